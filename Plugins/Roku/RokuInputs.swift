import PhotonCore

/// A Roku TV's inputs are the `tvinput.*` entries of its app list (`tvinput.hdmi2`,
/// `tvinput.dtv`), each with the label the user gave it, and it switches by launching one
/// (as Home Assistant and rokuecp do). A streaming player lists none, so every name is
/// "not found" there and nothing is sent.
extension RokuSession: InputSwitching, InputListing {
    /// The standard input a `tvinput.*` id is, where it is one.
    static func standardInput(_ id: String) -> InputName? {
        switch id {
        case "tvinput.dtv": return .tuner
        case "tvinput.cvbs", "tvinput.av1": return .composite
        case "tvinput.component", "tvinput.component1": return .component
        default:
            guard id.hasPrefix("tvinput.hdmi"), let n = Int(id.dropFirst("tvinput.hdmi".count)), (1...4).contains(n) else { return nil }
            return .hdmi(n)
        }
    }

    func inputs() async throws -> [TVInput] {
        try checkOpen()
        let listed = try await installedApps().filter { $0.id.hasPrefix("tvinput.") }
        let response = try await client.request("GET", "/query/active-app")
        try Self.check(response, what: "active-app")
        let active = try RokuApp.active(response.body)?.id
        return listed.map { TVInput(id: $0.id, label: $0.name, standard: Self.standardInput($0.id), active: $0.id == active) }
    }

    func switchInput(_ name: InputName) async throws {
        let input = try await inputs().matching(name)
        // The id came from the TV: only a plain one goes into a request path.
        guard input.id.utf8.allSatisfy({ $0.isASCIIAlphanumeric || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-") })
        else { throw PhotonError(.protocolViolation, "the Roku listed an input id Photon does not send ('\(Redaction.sanitize(input.id))')") }
        try CommandDeadline.checkBeforeSending()
        try await post("/launch/\(input.id)", what: "the input \(input.id)")
    }
}
