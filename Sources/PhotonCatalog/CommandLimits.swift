/// The one set of limits every door applies to a command's arguments: the CLI, the `photon`
/// front end, macros, the daemon's socket, the HTTP door and MQTT all read them from here,
/// so a text that one door takes is never refused by another.
public enum CommandLimits {
    /// The longest text `text` types, in UTF-8 bytes.
    public static let textBytes = 4096
    /// The longest app id, name or link `launch` takes, in UTF-8 bytes.
    public static let launchBytes = 2048
    /// The longest keywords `search` takes, in UTF-8 bytes.
    public static let searchBytes = 512
    /// The longest recognised words a `voice` command carries, in UTF-8 bytes.
    public static let spokenBytes = 512
    /// The longest notification, in characters: TVs show a line or two of a toast.
    public static let notificationCharacters = 200
    /// An absolute volume level.
    public static let volumeLevels = 0...100
    /// A brand's raw key code (`KEYCODE_TV_INPUT`, `178`), in UTF-8 bytes.
    public static let rawKeyBytes = 64
    /// How long a held key may be held, in milliseconds.
    public static let holdMilliseconds = 1...60_000
    /// The longest input or channel name, in UTF-8 bytes (the TV's labels are short).
    public static let nameBytes = 64
}
