import PhotonCore

/// A Bravia's picture modes: `video/getPictureQualitySettings {"target": "pictureMode"}`
/// gives the mode in use and the ones offered, `setPictureQualitySettings` switches, as
/// pybravia sends them.
extension SonySession: PictureModeSwitching {
    func pictureModes() async throws -> [TVListItem] {
        try checkOpen()
        let (current, candidates) = try SonyReadings.pictureModes(
            try await api.result("video", "getPictureQualitySettings", [.object([("target", "pictureMode")])]))
        return candidates.map { TVListItem(id: $0, name: SonyReadings.standardPictureName($0), active: $0 == current) }
    }

    func setPictureMode(_ mode: String) async throws {
        try checkOpen()
        let value = SonyReadings.pictureValue(for: mode)
        guard SonyReadings.isSettingValue(value) else { throw PhotonError(.usage, "'\(Redaction.sanitize(mode))' is not a picture mode") }
        let setting = JSONValue.object([("target", "pictureMode"), ("value", .string(value))])
        _ = try await api.result("video", "setPictureQualitySettings", [.object([("settings", .array([setting]))])])
    }
}

extension SonyReadings {
    /// Sony's picture mode values and Photon's standard names for them.
    public static let pictureNames: [(value: String, standard: String)] = [
        ("vivid", "vivid"), ("standard", "standard"), ("cinemaPro", "cinema"), ("game", "game"), ("sports", "sports"), ("custom", "custom"),
    ]

    public static func standardPictureName(_ value: String) -> String { pictureNames.first { $0.value == value }?.standard ?? value }
    public static func pictureValue(for mode: String) -> String { pictureNames.first { $0.standard == mode.lowercased() }?.value ?? mode }

    /// `video/getPictureQualitySettings {"target": "pictureMode"}`: the mode in use and the
    /// ones the TV offers.
    public static func pictureModes(_ result: [JSONValue]) throws -> (current: String?, candidates: [String]) {
        guard let setting = result.first?.arrayValue?.first(where: { $0["target"]?.stringValue == "pictureMode" }) else {
            throw PhotonError(.protocolViolation, "the TV's picture settings have no picture mode")
        }
        let current = setting["currentValue"]?.stringValue.flatMap { isSettingValue($0) ? $0 : nil }
        let candidates = (setting["candidate"]?.arrayValue ?? []).prefix(32).compactMap { $0["value"]?.stringValue }.filter(isSettingValue)
        return (current, candidates)
    }
}
