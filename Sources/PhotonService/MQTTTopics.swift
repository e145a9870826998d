import Foundation
import PhotonCore

/// Where the MQTT bridge publishes and listens, for one site (one daemon): Photon's own
/// topics under `photon/<site>/`, and Home Assistant's device-based discovery under
/// `<prefix>/device/<object id>/config`.
public struct MQTTTopics: Sendable, Hashable {
    public let site: String
    public let prefix: String

    /// `site` and the prefix as given; the site goes into topics and ids as
    /// `[A-Za-z0-9_-]` only (Home Assistant refuses other characters in object ids).
    public init(site: String, prefix: String) {
        self.site = Self.objectID(site)
        self.prefix = prefix
    }

    /// Letters, digits, `_` and `-`; anything else becomes `_`.
    public static func objectID(_ text: String) -> String {
        let cleaned = String(
            String.UnicodeScalarView(
                text.unicodeScalars.map {
                    $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-" || $0 == "_") ? $0 : "_"
                }))
        return cleaned.isEmpty ? "photon" : String(cleaned.prefix(64))
    }

    /// The bridge's own availability (its last will says `offline`).
    public var bridgeAvailability: String { "photon/\(site)/availability" }
    /// Which daemon holds the site (retained): a second daemon with the same site name
    /// refuses to start instead of sharing availability and last will.
    public var siteOwner: String { "photon/\(site)/owner" }
    /// Every TV's command topics, for one subscription.
    public var commandWildcard: String { "photon/\(site)/+/+/set" }
    public var jsonCommandWildcard: String { "photon/\(site)/+/command" }
    /// Home Assistant's birth and last will.
    public var homeAssistantStatus: String { "\(prefix)/status" }

    public func tv(_ id: String) -> String { "photon/\(site)/\(Self.objectID(id))" }
    public func state(_ id: String, _ name: String) -> String { tv(id) + "/" + name }
    public func command(_ id: String, _ name: String) -> String { tv(id) + "/" + name + "/set" }
    public func jsonCommand(_ id: String) -> String { tv(id) + "/command" }
    public func result(_ id: String) -> String { tv(id) + "/result" }

    /// The id of the HA device (stable across restarts: site and TV id).
    public func deviceObjectID(_ id: String) -> String { "photon_\(site)_\(Self.objectID(id))" }
    public func discovery(_ id: String) -> String { "\(prefix)/device/\(deviceObjectID(id))/config" }

    /// Which TV and which command a message on a command topic is for.
    public func parseCommandTopic(_ topic: String) -> (tv: String, name: String)? {
        let parts = topic.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard parts.count >= 4, parts[0] == "photon", parts[1] == site else { return nil }
        if parts.count == 4, parts[3] == "command" { return (parts[2], "command") }
        if parts.count == 5, parts[4] == "set" { return (parts[2], parts[3]) }
        return nil
    }

    /// The state topics a TV has (cleared when it is forgotten).
    public static let stateNames = ["availability", "connection", "power", "power_state", "power_attributes", "volume", "app", "source"]
}

/// Home Assistant's device-based discovery payload for one TV: its device and origin
/// blocks and one component per entity its brand supports.
enum MQTTDiscovery {
    /// The keys that get a button, where the TV has them.
    static let buttonKeys: [RemoteKey] = [.up, .down, .left, .right, .select, .back, .home, .menu, .playPause, .volumeUp, .volumeDown, .mute]

    static func payload(
        device: DeviceRecord, brand: (any TVAdapter)?, apps: [TVApp], inputs: [TVListItem]? = nil, macros: [String] = [], topics: MQTTTopics,
        version: String
    ) -> JSONValue {
        let id = device.id
        let object = topics.deviceObjectID(id)
        let capabilities = Set(device.capabilities.compactMap(Capability.init(rawValue:)))
        let keys = Set(brand?.keyTable.map(\.key) ?? [])
        func unique(_ name: String) -> JSONValue { .string("\(object)_\(name)") }
        var components: [(String, JSONValue)] = [
            (
                "power",
                .object([
                    ("p", "switch"), ("uniq_id", unique("power")), ("name", "Power"), ("stat_t", .string(topics.state(id, "power"))),
                    ("cmd_t", .string(topics.command(id, "power"))), ("pl_on", "ON"), ("pl_off", "OFF"), ("ic", "mdi:television"),
                ])
            )
        ]
        if capabilities.contains(.appList), !apps.isEmpty {
            components.append(
                (
                    "source",
                    .object([
                        ("p", "select"), ("uniq_id", unique("source")), ("name", "Source"),
                        ("options", .array(apps.prefix(200).map { .string($0.name) })),
                        ("stat_t", .string(topics.state(id, "source"))), ("cmd_t", .string(topics.command(id, "source"))),
                    ])
                ))
        }
        // Every catalog command with a Home Assistant entity the TV's capabilities allow:
        // its settings come from the catalog, its topic's payload is read by its grammar.
        for entry in CommandCatalog.entries {
            guard let entity = entry.homeAssistant, !entity.buttonPerKey,
                let needed = Capability(rawValue: entity.capability), capabilities.contains(needed)
            else { continue }
            var fields: [(String, JSONValue)] = [
                ("p", .string(entity.platform)), ("uniq_id", unique(entity.topic)), ("name", .string(entity.name)),
            ]
            switch entity.options {
            case .inputs?:
                // The TV's own labels where it lists them, else the standard names its keys reach.
                let options = inputs.map { $0.prefix(64).map(\.name) } ?? InputName.standardNames
                fields.append(("options", .array(options.map { .string($0) })))
            case .completions?: fields.append(("options", .array(entry.completions.map { .string($0) })))
            case nil: break
            }
            fields += entity.settings
            if entity.hasState { fields.append(("stat_t", .string(topics.state(id, entity.topic)))) }
            fields.append(("cmd_t", .string(topics.command(id, entity.topic))))
            if let icon = entity.icon { fields.append(("ic", .string(icon))) }
            components.append((entity.topic, .object(fields)))
        }
        let keyTopic = CommandCatalog.entries.first { $0.homeAssistant?.buttonPerKey == true }?.homeAssistant?.topic ?? "key"
        for key in buttonKeys where keys.contains(key) {
            let name = key.rawValue.replacingOccurrences(of: "-", with: "_")
            components.append(
                (
                    "key_\(name)",
                    .object([
                        ("p", "button"), ("uniq_id", unique("key_\(name)")), ("name", .string(label(key))),
                        ("cmd_t", .string(topics.command(id, keyTopic))), ("pl_prs", .string(key.rawValue)),
                    ])
                ))
        }
        // Saved macros (`photon macro save`), run by the daemon as the mqtt source.
        for name in macros.prefix(100) {
            components.append(
                (
                    "macro_\(name)",
                    .object([
                        ("p", "button"), ("uniq_id", unique("macro_\(name)")), ("name", .string("Macro \(name)")),
                        ("cmd_t", .string(topics.command(id, "macro"))), ("pl_prs", .string(name)), ("ic", "mdi:script-text-play"),
                    ])
                ))
        }
        components += [
            (
                "app",
                .object([
                    ("p", "sensor"), ("uniq_id", unique("app")), ("name", "Current app"), ("stat_t", .string(topics.state(id, "app"))),
                    ("ic", "mdi:apps"),
                ])
            ),
            // on, standby, screen-off or off, with the TV's own words as the reason.
            (
                "power_state",
                .object([
                    ("p", "sensor"), ("uniq_id", unique("power_state")), ("name", "Power state"),
                    ("stat_t", .string(topics.state(id, "power_state"))),
                    ("dev_cla", "enum"), ("ops", .array(PowerState.allCases.map { .string($0.rawValue) })),
                    ("json_attr_t", .string(topics.state(id, "power_attributes"))),
                ])
            ),
            (
                "connection",
                .object([
                    ("p", "sensor"), ("uniq_id", unique("connection")), ("name", "Connection"), ("stat_t", .string(topics.state(id, "connection"))),
                    ("ent_cat", "diagnostic"),
                ])
            ),
        ]
        var deviceBlock: [(String, JSONValue)] = [
            // The name the user gave the TV (`photon pair --name`), as every door calls it; the
            // brand (not its protocol) as the maker; the TV's own name as its model.
            ("ids", .array([.string(object)])), ("name", .string(device.nickname)),
            ("mf", .string(Self.maker(brand?.displayName ?? device.brand))),
        ]
        if let model = device.model ?? device.name { deviceBlock.append(("mdl", .string(model))) }
        if !device.wakeMACs.isEmpty { deviceBlock.append(("cns", .array(device.wakeMACs.map { .array(["mac", .string($0.lowercased())]) }))) }
        return .object([
            ("dev", .object(deviceBlock)),
            ("o", .object([("name", "photon"), ("sw", .string(version)), ("url", "https://github.com/photon-remote/photon")])),
            ("avty", .array([.object([("t", .string(topics.bridgeAvailability))]), .object([("t", .string(topics.state(id, "availability")))])])),
            ("avty_mode", "all"),
            ("qos", 1),
            ("cmps", .object(components)),
        ])
    }

    /// The brand part of an adapter's display name: "Roku (External Control Protocol)" → "Roku".
    static func maker(_ displayName: String) -> String {
        String(displayName.prefix { $0 != "(" }).trimmingCharacters(in: .whitespaces)
    }

    static func label(_ key: RemoteKey) -> String {
        switch key {
        case .select: return "OK"
        case .playPause: return "Play/Pause"
        case .volumeUp: return "Volume up"
        case .volumeDown: return "Volume down"
        default: return key.rawValue.prefix(1).uppercased() + key.rawValue.dropFirst()
        }
    }
}
