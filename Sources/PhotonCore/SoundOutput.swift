/// Where a TV's audio goes (capability `sound-output`): the outputs it has, the one in use,
/// and switching. An adapter maps the standard names (`SoundOutputName`) to its brand's ids
/// and takes those ids as given too; it reports the output in use as
/// `TVEvent.setting(name: "sound", value:)`.
public protocol SoundOutputSwitching: RemoteSession {
    /// The outputs, each by the TV's id, its standard name as `name` where it has one
    /// (else the TV's id), and whether it is in use.
    func soundOutputs() async throws -> [TVListItem]
    /// Switches to `output`: a standard name or the TV's own id.
    func setSoundOutput(_ output: String) async throws
}

/// The standard names of sound outputs that every brand with the capability maps, as the
/// command catalog completes them.
public enum SoundOutputName {
    public static var standardNames: [String] { CommandCatalog.entry(named: "sound")?.completions ?? [] }
    /// The name of the status field and setting event that report the output in use.
    public static let setting = "sound"
}
