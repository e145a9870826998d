/// A TV's picture modes (capability `picture-mode`): the modes it has, the one in use, and
/// switching. An adapter maps the standard names (`PictureModeName`) to its brand's own and
/// takes the brand's names as given too; it reports the mode in use as
/// `TVEvent.setting(name: "picture", value:)`.
public protocol PictureModeSwitching: RemoteSession {
    /// The modes, each by the TV's name for it, its standard name as `name` where it has
    /// one (else the TV's), and whether it is in use.
    func pictureModes() async throws -> [TVListItem]
    /// Switches to `mode`: a standard name or the TV's own.
    func setPictureMode(_ mode: String) async throws
}

/// The standard picture mode names every brand with the capability maps, as the command
/// catalog completes them.
public enum PictureModeName {
    public static var standardNames: [String] { CommandCatalog.entry(named: "picture")?.completions ?? [] }
    /// The name of the status field and setting event that report the mode in use.
    public static let setting = "picture"
}
