import PhotonCore

/// Ambilight: `ambilight/power` switches the light, `ambilight/currentconfiguration` picks
/// a style and its setting (`FOLLOW_VIDEO` / `STANDARD`). The standard names take a style's
/// first setting; `STYLE/SETTING` is the TV's own, as the list shows it.
extension PhilipsSession {
    /// Styles and their settings where the TV's `supportedstyles` leaves the settings out
    /// (Android firmware does, as ha-philipsjs notes).
    static let fallbackSettings: [String: [String]] = [
        "FOLLOW_VIDEO": ["STANDARD", "VIVID", "IMMERSIVE", "NATURAL", "GAME"],
        "FOLLOW_AUDIO": ["ENERGY_ADAPTIVE_BRIGHTNESS", "VU_METER", "RANDOM_PIXEL_FLASH"],
        "Lounge light": ["HOT_LAVA", "DEEP_WATER", "FRESH_NATURE", "ISF", "CUSTOM_COLOR"],
        "FOLLOW_COLOR": ["HOT_LAVA", "DEEP_WATER", "FRESH_NATURE", "ISF", "CUSTOM_COLOR"],
    ]

    /// The standard name of a TV style.
    static func standardStyle(_ style: String) -> String? {
        switch style.uppercased() {
        case "FOLLOW_VIDEO": return "follow-video"
        case "FOLLOW_AUDIO": return "follow-audio"
        case "LOUNGE LIGHT", "FOLLOW_COLOR": return "lounge"
        default: return nil
        }
    }

    /// Each style and setting the TV offers, in its order.
    private func styles() async throws -> [(style: String, setting: String)] {
        let answer = try await api.read("ambilight/supportedstyles")
        var result: [(String, String)] = []
        for entry in (answer["supportedStyles"]?.arrayValue ?? []).prefix(32) {
            guard let style = entry["styleName"]?.stringValue, PhilipsReadings.isName(style.replacingOccurrences(of: " ", with: "_"), limit: 40),
                Self.standardStyle(style) != nil || !["OFF", "MANUAL", "EXPERT", "GRID"].contains(style.uppercased())
            else { continue }
            let listed = (entry["menuSettings"]?.arrayValue ?? []).prefix(32).compactMap(\.stringValue).filter {
                PhilipsReadings.isName($0, limit: 40)
            }
            for setting in listed.isEmpty ? Self.fallbackSettings[style] ?? [] : listed { result.append((style, setting)) }
        }
        return result
    }

    /// The style in use (`STYLE/SETTING`, nil when the light is off) and the state reported
    /// for it: `off`, its standard name, or the TV's.
    func ambilightCurrent() async throws -> (id: String?, state: String) {
        let power = try await api.read("ambilight/power")["power"]?.stringValue ?? "Off"
        guard power.lowercased() == "on" else { return (nil, "off") }
        let current = try await api.read("ambilight/currentconfiguration")
        guard let style = current["styleName"]?.stringValue, style.uppercased() != "OFF" else { return (nil, "off") }
        let setting = current["menuSetting"]?.stringValue ?? ""
        let id = Redaction.sanitize(setting.isEmpty ? style : "\(style)/\(setting)", limit: 80)
        return (id, Self.standardStyle(style) ?? id)
    }

    func ambilightState() async throws -> String { try await ambilightCurrent().state }

    func ambilightStyles() async throws -> [TVListItem] {
        try checkOpen()
        let current = try await ambilightCurrent().id
        var named = Set<String>()
        return try await styles().map { style, setting in
            let id = "\(style)/\(setting)"
            var name = id
            if let standard = Self.standardStyle(style), !named.contains(standard) {
                named.insert(standard)
                name = standard
            }
            return TVListItem(id: id, name: name, active: id == current)
        }
    }

    func setAmbilight(_ choice: String) async throws {
        try checkOpen()
        let lower = choice.lowercased()
        if lower == "on" || lower == "off" {
            try await api.write("ambilight/power", .object([("power", .string(lower == "on" ? "On" : "Off"))]))
        } else {
            let offered = try await styles()
            let wanted =
                offered.first { Self.standardStyle($0.style) == lower }
                ?? offered.first { "\($0.style)/\($0.setting)".lowercased() == lower }
                ?? offered.first { $0.style.lowercased() == lower }
            guard let (style, setting) = wanted else {
                throw PhotonError(
                    .notFound, "the Philips TV has no Ambilight style '\(Redaction.sanitize(choice))'",
                    hint: "its styles: on, off, " + offered.map { "\($0.style)/\($0.setting)" }.prefix(12).joined(separator: ", "))
            }
            try await api.write(
                "ambilight/currentconfiguration",
                .object([("styleName", .string(style)), ("isExpert", .bool(false)), ("menuSetting", .string(setting))]))
        }
        if let state = try? await ambilightState() { feed.yield(.setting(name: AmbilightName.setting, value: state)) }
    }
}
