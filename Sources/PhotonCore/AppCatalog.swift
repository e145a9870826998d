/// The common streaming apps by a name anyone can type (`youtube`, `prime video`,
/// `disney+`), so `photon launch TV netflix` works on every brand. Each brand's plugin
/// says which ids its TVs use for them (`AppLaunching.catalogIDs`); this table holds only
/// the names. Launch ids change between TV generations, so a brand may give several,
/// newest first, and a TV that lists its apps gets the one it has.
public enum AppCatalog {
    /// One app: its catalog key, the name shown, and other names it answers to.
    public struct Entry: Sendable, Hashable {
        public var key: String
        public var name: String
        public var aliases: [String]
    }

    public static let entries: [Entry] = [
        Entry(key: "netflix", name: "Netflix", aliases: []),
        Entry(key: "youtube", name: "YouTube", aliases: []),
        Entry(key: "prime-video", name: "Prime Video", aliases: ["prime", "amazon", "amazon prime video", "amazon video"]),
        Entry(key: "disney-plus", name: "Disney+", aliases: ["disney", "disneyplus", "disney plus"]),
        Entry(key: "max", name: "Max", aliases: ["hbo max", "hbomax", "hbo"]),
        Entry(key: "hulu", name: "Hulu", aliases: []),
        Entry(key: "plex", name: "Plex", aliases: []),
        Entry(key: "spotify", name: "Spotify", aliases: []),
        Entry(key: "apple-tv", name: "Apple TV", aliases: ["appletv", "apple tv+", "apple tv plus"]),
        Entry(key: "twitch", name: "Twitch", aliases: []),
        Entry(key: "kodi", name: "Kodi", aliases: ["xbmc"]),
    ]

    /// `Prime Video`, `prime-video`, `PRIME_VIDEO` all read `primevideo`; `Disney+` reads
    /// `disney+`.
    static func folded(_ text: String) -> String {
        String(text.lowercased().unicodeScalars.filter { !" -_.".unicodeScalars.contains($0) })
    }

    /// The entry a user's word names (its key, name or an alias, in any case and spacing).
    public static func entry(named text: String) -> Entry? {
        let wanted = folded(text)
        guard !wanted.isEmpty else { return nil }
        return entries.first { entry in ([entry.key, entry.name] + entry.aliases).contains { folded($0) == wanted } }
    }

    /// The catalog name a mistyped word is close to (`netflx` → Netflix): only for plain
    /// words (no digits, dots or slashes, which brands' ids have), one or two letters off.
    public static func nearMiss(_ word: String) -> String? {
        let folded = folded(word)
        guard folded.count >= 4, folded.unicodeScalars.allSatisfy({ $0.properties.isAlphabetic }), entry(named: word) == nil else { return nil }
        var best: (name: String, distance: Int)?
        for entry in entries {
            for candidate in [entry.key, entry.name] + entry.aliases {
                let distance = Suggestions.distance(folded, Self.folded(candidate))
                if distance <= (folded.count >= 6 ? 2 : 1), distance < (best?.distance ?? Int.max) { best = (entry.name, distance) }
            }
        }
        return best?.name
    }

    /// The catalog's name for a brand's app id (`com.netflix.ninja` → Netflix), where the
    /// brand lists that id.
    public static func name(ofID id: String, in ids: [String: [String]]) -> String? {
        guard let key = ids.first(where: { $0.value.contains(id) })?.key else { return nil }
        return entries.first { $0.key == key }?.name
    }

    /// What `app` launches on a brand with `ids`: a catalog name becomes the brand's id —
    /// on a TV that lists its apps (`installed`), the first of the brand's ids it has, or an
    /// installed app of that name; else the brand's newest id. Anything else (an id, a link)
    /// is returned as given.
    public static func launchTarget(for app: String, ids: [String: [String]], installed: [TVApp]?) throws -> String {
        guard !app.contains(":"), let entry = entry(named: app) else {
            if let near = nearMiss(app) {
                throw PhotonError(
                    .notFound, "no app is called '\(Redaction.sanitize(app, limit: 40))'; nothing was sent", hint: "did you mean \(near)?")
            }
            return app
        }
        let candidates = ids[entry.key] ?? []
        if let installed {
            let names = Set(([entry.key, entry.name] + entry.aliases).map(folded))
            if let id = candidates.first(where: { id in installed.contains { $0.id == id } })
                ?? installed.first(where: { names.contains(folded($0.name)) })?.id
            {
                return id
            }
            // The user's word may also be the id itself on this brand (LG's `netflix`).
            if installed.contains(where: { $0.id == app }) { return app }
            throw PhotonError(
                .notFound, "\(entry.name) is not installed on this TV; nothing was sent",
                hint: "`photon apps TV` lists what it has")
        }
        guard let first = candidates.first else {
            throw PhotonError.unsupported(
                "Photon's catalog has no \(entry.name) id for this brand; nothing was sent",
                hint: "give the app's id or link as the brand takes it (`photon apps --catalog` shows the catalog)")
        }
        return first
    }
}

/// The app a TV reports in front, read the one way every door shows it: some brands report
/// an id (`netflix`, `com.netflix.ninja`), others a name with the id (`Netflix (12)`,
/// `Netflix (3:1)`). `id` is what `photon launch` takes; `name` a person's word for it,
/// where one is known.
public struct ReportedApp: Sendable, Equatable {
    public var id: String
    public var name: String?

    public init(id: String, name: String?) {
        self.id = id
        self.name = name
    }

    /// Reads a report; `catalog` (a brand's ids for the app catalog) names a bare id.
    public init(_ reported: String, catalog: [String: [String]] = [:]) {
        if reported.hasSuffix(")"), let open = reported.range(of: " (", options: .backwards) {
            let id = String(reported[open.upperBound..<reported.index(before: reported.endIndex)])
            let name = String(reported[..<open.lowerBound])
            if !id.isEmpty, !name.isEmpty, !id.contains("(") {
                self.init(id: id, name: name)
                return
            }
        }
        self.init(id: reported, name: AppCatalog.name(ofID: reported, in: catalog))
    }
}
