/// A TV's ambient light (capability `ambilight`, Philips's Ambilight): its styles, the one
/// in use, switching it on or off and choosing a style. An adapter maps the standard
/// choices (`AmbilightName`) to its brand's styles and takes the brand's names as given;
/// it reports the style in use, or `off`, as `TVEvent.setting(name: "ambilight", value:)`.
public protocol AmbilightControlling: RemoteSession {
    /// The styles, each by the TV's name for it (`STYLE/SETTING`), its standard name as
    /// `name` where it has one, and whether it is in use.
    func ambilightStyles() async throws -> [TVListItem]
    /// `on`, `off`, a standard style, or the TV's own style.
    func setAmbilight(_ choice: String) async throws
}

/// The standard Ambilight choices, as the command catalog completes them.
public enum AmbilightName {
    public static var standardNames: [String] { CommandCatalog.entry(named: "ambilight")?.completions ?? [] }
    /// The name of the status field and setting event that report the style in use.
    public static let setting = "ambilight"
}
