import PhotonCore

/// Android TV switches inputs with the `KEYCODE_TV_INPUT_*` keys. They act only on sets
/// with inputs (a streaming box ignores them), and the Remote v2 protocol cannot list the
/// inputs, so a TV's own labels cannot be looked up and are refused before anything is sent.
extension AndroidTVSession: InputSwitching {
    /// The key for a standard input, or nil for a label.
    static func inputKey(for input: InputName) -> String? {
        switch input {
        case .hdmi(let n): return "KEYCODE_TV_INPUT_HDMI_\(n)"
        case .tuner: return "KEYCODE_TV"
        case .composite: return "KEYCODE_TV_INPUT_COMPOSITE_1"
        case .component: return "KEYCODE_TV_INPUT_COMPONENT_1"
        case .label: return nil
        }
    }

    func switchInput(_ input: InputName) async throws {
        guard let key = Self.inputKey(for: input) else { throw InputName.labelsNeedAList(input.description, brand: "Android TV") }
        try await sendKey(.raw(key), .press)
    }
}
