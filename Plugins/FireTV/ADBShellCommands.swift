import PhotonCore

/// The device shell commands Photon sends, built so that nothing the user gives is ever
/// run: every value is one single-quoted word (inside single quotes `sh` and Android's
/// `mksh` take every character literally; a `'` is closed, escaped and reopened).
public enum ADBShellCommands {
    /// `value` as one literal shell word.
    public static func quote(_ value: String) -> String { "'" + value.replacingOccurrences(of: "'", with: "'\\''") + "'" }

    /// `input keyevent` for a key code name (`KEYCODE_HOME`), with `--longpress` for a long
    /// press.
    public static func keyEvent(_ code: String, longPress: Bool = false) -> String {
        "input keyevent " + (longPress ? "--longpress " : "") + quote(code)
    }

    /// The commands that type `text` literally with `input text`. That tool turns `%s`
    /// into a space, so spaces are written `%s` and a literal `%` followed by `s` is split
    /// between two calls; a newline or tab is its key (Enter, Tab). It types ASCII only on
    /// most Fire OS versions, so other characters are refused (`unsupported`) before
    /// anything is sent, and so are other control characters (`usage`).
    public static func typing(_ text: String) throws -> [String] {
        var commands: [String] = []
        var chunk = ""
        func flush() {
            if !chunk.isEmpty { commands.append("input text " + quote(chunk)) }
            chunk = ""
        }
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n", "\r":
                flush()
                commands.append(keyEvent("KEYCODE_ENTER"))
            case "\t":
                flush()
                commands.append(keyEvent("KEYCODE_TAB"))
            case " ":
                chunk += "%s"
            case "s" where chunk.hasSuffix("%") && !chunk.hasSuffix("%%s"):
                // `%` then `s` would be read as a space: end the call between them.
                flush()
                chunk = "s"
            case _ where scalar.value < 0x20 || scalar.value == 0x7f:
                throw PhotonError(
                    .usage, "the text holds a control character (U+\(String(scalar.value, radix: 16, uppercase: true))) that cannot be typed",
                    hint: "send keys for it instead (photon key TV ...)")
            case _ where scalar.value > 0x7e:
                throw PhotonError.unsupported(
                    "Fire TV's `input text` types ASCII only; '\(Redaction.sanitize(String(scalar)))' cannot be typed, so nothing was sent",
                    hint: "type the text on the TV's on-screen keyboard, or use ASCII letters")
            default:
                chunk.unicodeScalars.append(scalar)
            }
        }
        flush()
        return commands
    }

    /// Whether `app` is an Android package name (`com.netflix.ninja`).
    public static func isPackageName(_ app: String) -> Bool {
        let parts = app.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count >= 2, app.count <= 255 else { return false }
        return parts.allSatisfy { part in
            guard let first = part.unicodeScalars.first, CharacterClass.letter(first) else { return false }
            return part.unicodeScalars.allSatisfy { CharacterClass.letter($0) || ("0"..."9").contains($0) || $0 == "_" }
        }
    }

    /// The command that starts `app`: a package's launcher activity, or a link (`https://`,
    /// `netflix://`…) opened with the VIEW intent.
    public static func launch(_ app: String) throws -> String {
        if isPackageName(app) { return "monkey -p \(quote(app)) -c android.intent.category.LAUNCHER 1" }
        if let colon = app.firstIndex(of: ":"), colon != app.startIndex,
            app[..<colon].unicodeScalars.allSatisfy({ CharacterClass.letter($0) || "+-.".unicodeScalars.contains($0) }),
            app.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value < 0x7f }), app.count <= 2000
        {
            return "am start -a android.intent.action.VIEW -d " + quote(app)
        }
        throw PhotonError(
            .usage, "'\(Redaction.sanitize(app))' is neither an Android package name nor a link",
            hint: "give a package (com.netflix.ninja, see `photon apps TV`), a link (https://…), or a catalog name (netflix)")
    }

    private enum CharacterClass {
        static func letter(_ scalar: Unicode.Scalar) -> Bool { ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) }
    }

    /// The device's serial number and model, one per line.
    public static let identity = "getprop ro.serialno; getprop ro.product.model; getprop ro.product.manufacturer"
    /// The Wi-Fi and Ethernet MACs, one a line (a missing interface prints an error line,
    /// which is not a MAC): what Wake-on-LAN needs.
    public static let macAddresses = "cat /sys/class/net/wlan0/address; cat /sys/class/net/eth0/address"

    /// The unicast, non-zero MACs in `output`, in order, without repeats.
    public static func macs(in output: String) -> [String] {
        var seen = Set<String>()
        return output.split(whereSeparator: \.isNewline).compactMap { line -> String? in
            guard let bytes = MACAddress.bytes(String(line)), bytes.contains(where: { $0 != 0 }), bytes[0] & 1 == 0 else { return nil }
            let text = WakeOnLAN.format(bytes)
            return seen.insert(text).inserted ? text : nil
        }
    }
    /// The installed packages, one `package:NAME` per line.
    public static let packages = "pm list packages"
    /// Power: the `mWakefulness=` line of `dumpsys power` (Awake, Asleep, Dreaming, Dozing).
    public static let power = "dumpsys power | grep -E 'mWakefulness='"
    /// The foreground app: the focused window of `dumpsys window`.
    public static let foreground = "dumpsys window windows | grep -E 'mCurrentFocus='"
}
