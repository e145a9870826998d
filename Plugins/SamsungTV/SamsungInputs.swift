import PhotonCore

/// Samsung switches inputs with the `KEY_HDMI1`… keys (which ones a set obeys depends on
/// its model). Its protocol cannot list the inputs, so a TV's own labels are refused
/// before anything is sent.
extension SamsungSession: InputSwitching {
    /// The key for a standard input, or nil for a label.
    static func inputKey(for input: InputName) -> String? {
        switch input {
        case .hdmi(let n): return "KEY_HDMI\(n)"
        case .tuner: return "KEY_TV"
        case .composite: return "KEY_AV1"
        case .component: return "KEY_COMPONENT1"
        case .label: return nil
        }
    }

    func switchInput(_ input: InputName) async throws {
        guard let key = Self.inputKey(for: input) else { throw InputName.labelsNeedAList(input.description, brand: "Samsung") }
        try await sendKey(.raw(key), .press)
    }
}
