import PhotonJSON

/// The paired TVs' nicknames for shell completion, read from the metadata file only
/// (never the secrets), with the standard library alone so that the small `photon` front
/// end answers in about a millisecond: `photon __complete-tvs [--home DIR]`.
public enum CompletionNames {
    /// The hidden command the completion scripts call.
    public static let command = "__complete-tvs"

    /// The metadata directory, by the rule the store follows: `--home`, then
    /// `PHOTON_HOME` (`DIR/config`), then `$XDG_CONFIG_HOME/photon` or `~/.config/photon`.
    public static func configDirectory(home: String?, environment: (String) -> String?) -> String? {
        if let home = home ?? environment("PHOTON_HOME").flatMap({ $0.isEmpty ? nil : $0 }), !home.isEmpty {
            return home + "/config"
        }
        if let config = environment("XDG_CONFIG_HOME"), config.hasPrefix("/") { return config + "/photon" }
        guard let userHome = environment("HOME"), !userHome.isEmpty else { return nil }
        return userHome + "/.config/photon"
    }

    /// The nicknames in a devices file, sorted; nothing for a file that does not parse.
    public static func nicknames(fromDevicesFile bytes: [UInt8]) -> [String] {
        guard let file = try? JSONValue.parse(bytes), let devices = file["devices"]?.arrayValue else { return [] }
        return devices.compactMap { $0["nickname"]?.stringValue }
            .filter { name in !name.isEmpty && name.unicodeScalars.allSatisfy { $0.value > 0x20 && $0.value != 0x7F } }
            .sorted()
    }

    /// `--home DIR` (or `--home=DIR`) among the arguments, if given.
    public static func home(in arguments: [String]) -> String? {
        for (index, argument) in arguments.enumerated() {
            if argument == "--home", index + 1 < arguments.count { return arguments[index + 1] }
            if argument.hasPrefix("--home=") { return String(argument.dropFirst(7)) }
        }
        return nil
    }
}
