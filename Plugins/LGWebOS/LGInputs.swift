import PhotonCore

/// An LG TV's inputs: `tv/getExternalInputList` gives each one's id (`HDMI_2`), the label
/// the user gave it and the app that shows it; `tv/switchInput` switches by id. The tuner
/// is not an external input: `tv` opens the Live TV app.
extension LGSession: InputSwitching, InputListing {
    /// The Live TV app, which `tv` (the tuner) opens.
    static let liveTVApp = "com.webos.app.livetv"

    func inputs() async throws -> [TVInput] {
        try checkOpen()
        let payload = try await request("tv/getExternalInputList")
        return try LGInputList.parse(payload, foregroundApp: foregroundApp)
    }

    func switchInput(_ name: InputName) async throws {
        let listed = try await inputs()
        if name == .tuner, !listed.contains(where: { $0.standard == .tuner || $0.label.lowercased() == "tv" }) {
            _ = try await request("system.launcher/launch", .object([("id", .string(Self.liveTVApp))]))
            return
        }
        let input = try listed.matching(name)
        _ = try await request("tv/switchInput", .object([("inputId", .string(input.id))]))
    }
}

/// Reads `tv/getExternalInputList` answers. Every field came from the network.
public enum LGInputList {
    /// The standard input an LG input id is (`HDMI_2`, `AV_1`, `COMP_1`), where it is one.
    public static func standardInput(_ id: String) -> InputName? {
        let upper = id.uppercased()
        if upper.hasPrefix("HDMI_"), let n = Int(upper.dropFirst(5)), (1...4).contains(n) { return .hdmi(n) }
        if upper == "AV_1" || upper == "AV1" { return .composite }
        if upper == "COMP_1" || upper == "COMPONENT_1" { return .component }
        return nil
    }

    /// The inputs in a `devices` answer; the one whose app is in front is active.
    public static func parse(_ payload: JSONValue, foregroundApp: String?) throws -> [TVInput] {
        guard let devices = payload["devices"]?.arrayValue else {
            throw PhotonError(.protocolViolation, "the TV's input list has no devices")
        }
        return devices.prefix(64).compactMap { device in
            guard let id = device["id"]?.stringValue, !id.isEmpty, id.utf8.count <= 64 else { return nil }
            let label = device["label"]?.stringValue.map { Redaction.sanitize($0, limit: 64) } ?? id
            let app = device["appId"]?.stringValue
            return TVInput(
                id: id, label: label.isEmpty ? id : label, standard: standardInput(id),
                active: foregroundApp.map { app != nil && $0 == app })
        }
    }
}
