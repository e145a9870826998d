import PhotonCore

/// What Fire OS's `dumpsys` answers mean: power from `dumpsys power`'s wakefulness, the
/// foreground app from `dumpsys window`'s focused window. Fire OS 6 to 8 (Android 7.1 to
/// 9, then 11) print both lines in these forms.
public enum FireTVStateParsing {
    /// `mWakefulness=Awake` → on; Asleep → standby; Dreaming (the screen saver) and Dozing →
    /// on with the reason, as other brands report a screen saver.
    public static func power(_ output: String) -> (PowerState, String?)? {
        guard let range = output.range(of: "mWakefulness=") else { return nil }
        let word = output[range.upperBound...].prefix { $0.isLetter }
        switch word {
        case "Awake": return (.on, nil)
        case "Asleep": return (.standby, "Asleep")
        case "Dreaming": return (.on, "Dreaming (screen saver)")
        case "Dozing": return (.standby, "Dozing")
        default: return nil
        }
    }

    /// The package of `mCurrentFocus=Window{… u0 com.netflix.ninja/…Activity}`.
    public static func foreground(_ output: String) -> String? {
        guard let range = output.range(of: "mCurrentFocus=") else { return nil }
        let line = output[range.upperBound...].prefix { !$0.isNewline }
        for word in line.split(separator: " ") {
            let candidate = word.prefix { $0 != "/" && $0 != "}" }
            if candidate.count < word.count || word.hasSuffix("}"), ADBShellCommands.isPackageName(String(candidate)) {
                return String(candidate)
            }
        }
        return nil
    }

}
