import PhotonCore
import PhotonKit

/// `photon apps TV`: the apps a TV has, with the ids `photon launch` takes; `photon apps
/// --catalog`: the names `photon launch` knows on every brand.
enum AppsCommand {
    static let spec = CommandSpec(
        ["apps"], summary: "list a TV's installed apps (ids for `photon launch`), or the app catalog", arguments: "[TV]",
        minimumArguments: 0, maximumArguments: 1,
        options: [OptionSpec("catalog", help: "the app names `photon launch` knows, with each brand's id for them")],
        details: """
            Where the TV's brand can list them (see the app-list capability in `photon list --json`). A TV that cannot \
            list its apps shows the catalog's apps for its brand instead, and says so.
            """,
        examples: ["photon apps living-room", "photon apps den --json", "photon apps --catalog"], run: run)

    static func run(_ parsed: ParsedCommand, _ context: CLIContext) async throws -> Int32 {
        if parsed.flag("catalog") {
            guard parsed.arguments.isEmpty else { throw PhotonError(.usage, "--catalog takes no TV") }
            printCatalog(context)
            return 0
        }
        guard let tv = parsed.arguments.first else {
            throw PhotonError(.usage, "give a TV, or --catalog", hint: "photon apps living-room")
        }
        let apps: [TVApp]
        do {
            apps = try await installedApps(tv, context)
        } catch let error as PhotonError where error.code == .unsupported {
            // A TV that cannot list its apps: what the catalog launches on its brand.
            let catalog = await StatusCommand.appCatalog(of: tv, context)
            guard !catalog.isEmpty else { throw error }
            context.note("\(error.message); these are Photon's catalog apps for its brand (`photon launch \(tv) NAME`):")
            let rows = AppCatalog.entries.compactMap { entry in catalog[entry.key]?.first.map { TVApp(id: $0, name: entry.name) } }
            emit(rows, source: "catalog", context)
            return 0
        }
        emit(apps, source: nil, context)
        return 0
    }

    static func emit(_ apps: [TVApp], source: String?, _ context: CLIContext) {
        if context.json {
            for app in apps {
                var fields: [(String, JSONValue)] = [("id", .string(app.id)), ("name", .string(app.name))]
                if let source { fields.append(("source", .string(source))) }
                context.emit(.object(fields), text: nil)
            }
        } else {
            let rows = [["ID", "NAME"]] + apps.map { [Redaction.sanitize($0.id, limit: 64), Redaction.sanitize($0.name, limit: 64)] }
            context.terminal.write(Table.render(rows))
        }
    }

    /// The catalog: one row per app, one column per brand (its newest id; `-`: none).
    static func printCatalog(_ context: CLIContext) {
        let adapters = context.registry.adapters.filter { !$0.descriptor.appCatalogIDs.isEmpty }
        if context.json {
            for entry in AppCatalog.entries {
                let ids = adapters.compactMap { adapter in
                    adapter.descriptor.appCatalogIDs[entry.key].map { (adapter.id, JSONValue.array($0.map { .string($0) })) }
                }
                context.emit(
                    .object([
                        ("name", .string(entry.name)), ("key", .string(entry.key)), ("aliases", .array(entry.aliases.map { .string($0) })),
                        ("ids", .object(ids)),
                    ]), text: nil)
            }
            return
        }
        let rows =
            [["APP"] + adapters.map(\.id)]
            + AppCatalog.entries.map { entry in
                [entry.name] + adapters.map { $0.descriptor.appCatalogIDs[entry.key]?.first ?? "-" }
            }
        context.terminal.write(Table.render(rows))
        context.note(
            "`photon launch TV NAME` takes these names (any case; also \"prime\", \"disney\", \"hbo max\"). A TV that lists its apps gets the id it has; - means the brand has no id here, but a TV that lists an app of that name launches it."
        )
    }

    /// The TV's apps through `photon serve`'s warm session when it runs, else directly.
    static func installedApps(_ tv: String, _ context: CLIContext) async throws -> [TVApp] {
        try await context.control().installedApps(tv)
    }
}
