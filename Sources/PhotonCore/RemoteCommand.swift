/// A command for a TV, independent of brand. Adapters encode it for their protocol or
/// reject it with `unsupported` before anything is sent.
public enum RemoteCommand: Sendable, Hashable {
    case key(KeyInput, KeyAction)
    /// Hold a key for a duration, then release it (long press).
    case longPress(KeyInput, milliseconds: Int)
    case text(String)
    case launch(String)
    case volume(VolumeChange)
    /// Sets the volume to an absolute level (0–100), where the brand can.
    case setVolume(Int)
    /// A voice query: 16-bit little-endian mono PCM at `sampleRate` Hz.
    case voice(pcm: [UInt8], sampleRate: Int)
    /// A voice query still being spoken: the TV gets the audio as it is recorded (where
    /// its brand takes pieces; others get it whole at the end). Only its start is bound
    /// by the command's lifetime.
    case liveVoice(LiveAudio)
    /// Words a person said (recognised already): "open netflix", "search for …",
    /// "channel one two", or words searched for or typed (`VoiceRequest`). What they
    /// become depends on the TV: a search where it has one, else typed text.
    case spoken(String, to: VoiceRequest.Target)
    /// The TV's own search for `keyword` (where the brand has one).
    case search(String)
    /// Switches to an input (`hdmi2`, `tv`, or the TV's label for one).
    case input(InputName)
    /// A short message shown on the TV's screen (a toast), where the brand has them.
    case notify(String)
    /// Switches the picture off (sound and apps go on) or back on, where the brand can.
    case screen(on: Bool)
    /// Tunes a channel: the TV's own call where it has one, else the digits and Enter.
    case channel(ChannelNumber)
    /// Sends the TV's audio to an output: a standard name (`speaker`, `arc`, `optical`,
    /// `bluetooth`, `headphone`, `lineout`) or the TV's own id for one.
    case sound(String)
    /// Switches the picture mode: a standard name (`vivid`, `standard`, `cinema`, `game`,
    /// `sports`, `custom`) or the TV's own name for one.
    case picture(String)
    /// The ambient light: `on`, `off`, a standard style (`follow-video`, `follow-audio`,
    /// `lounge`) or the TV's own style.
    case ambilight(String)
    /// Art mode and artwork on a TV that shows art (Samsung's The Frame).
    case art(ArtCommand)
    /// Adds an image to the TV's artwork: too large for a request line, so it goes over a
    /// direct session only.
    case artUpload(ArtUpload)
    /// Wakes a TV that does not answer (Wake-on-LAN to its stored MACs) and waits for
    /// it. Performed by the session service, never by an adapter's session, but admitted
    /// by the router like every other command: an expired or repeated wake sends nothing.
    case wake(WakeRequest)

    /// The capability a TV must declare for this command.
    public var requiredCapability: Capability {
        switch self {
        case .key: return .keys
        case .longPress: return .longPress
        case .text: return .text
        case .launch: return .appLaunch
        case .volume: return .keys
        case .setVolume: return .volumeSet
        case .voice, .liveVoice: return .voice
        case .spoken(let words, _):
            switch VoiceRequest(heard: words) {
            case .open: return .appLaunch
            case .channel: return .keys
            // A search falls back to typing, which every brand with search also has.
            case .search, .words: return .text
            }
        case .search: return .search
        case .input: return .inputs
        case .notify: return .notifications
        case .screen: return .screenPower
        case .channel: return .keys
        case .sound: return .soundOutput
        case .picture: return .pictureMode
        case .ambilight: return .ambilight
        case .art, .artUpload: return .artMode
        case .wake: return .wakeOnLAN
        }
    }
}

public enum VolumeChange: String, Sendable, Hashable, Codable, CaseIterable {
    case up, down, mute
}

/// What an adapter (and a particular TV) can do. Queried before sending so that a
/// command a TV cannot perform fails with `unsupported` rather than silently.
public enum Capability: String, Sendable, Hashable, Codable, CaseIterable {
    case keys
    case longPress = "long-press"
    case text
    case appLaunch = "app-launch"
    case appList = "app-list"
    case volumeState = "volume-state"
    /// Absolute volume (`photon volume TV 12`), not only steps.
    case volumeSet = "volume-set"
    case powerState = "power-state"
    case voice
    case search
    case currentApp = "current-app"
    case wakeOnLAN = "wake-on-lan"
    /// Switching inputs (`photon input TV hdmi2`).
    case inputs
    /// Listing the inputs with their labels (`photon input TV`).
    case inputList = "input-list"
    /// On-screen notifications (`photon notify TV MESSAGE`).
    case notifications
    /// The picture switched off and on while the TV stays on (`photon screen TV off`).
    case screenPower = "screen-power"
    /// Listing channels, and tuning one with the TV's own call (`photon channels TV`).
    case channelList = "channel-list"
    /// Where the TV's audio goes: listing the outputs, switching, and reporting the one in
    /// use (`photon sound TV arc`).
    case soundOutput = "sound-output"
    /// The picture modes: listing them, switching, and reporting the one in use
    /// (`photon picture TV cinema`).
    case pictureMode = "picture-mode"
    /// The ambient light around the screen (Philips's Ambilight): its styles, on and off,
    /// and reporting the style in use (`photon ambilight TV follow-audio`).
    case ambilight
    /// Art mode and artwork (Samsung's The Frame): on and off, showing, deleting and
    /// uploading artwork (`photon art TV show MY_F0003`), reported as the power state `art`.
    case artMode = "art-mode"
}

/// A set of capabilities, kept as a value so it can be stored and compared.
public struct Capabilities: Sendable, Hashable, Codable {
    public var members: Set<Capability>

    public init(_ members: Set<Capability>) { self.members = members }
    public init(_ members: Capability...) { self.members = Set(members) }

    public func contains(_ capability: Capability) -> Bool { members.contains(capability) }
    public static let none = Capabilities([])

    /// The names in a stable order, for output.
    public var sortedNames: [String] { members.map(\.rawValue).sorted() }
}

/// The TV's volume as it reports it.
public struct VolumeState: Sendable, Hashable, Codable {
    public var level: Int
    public var maximum: Int
    public var muted: Bool
    public init(level: Int, maximum: Int, muted: Bool) {
        self.level = level
        self.maximum = maximum
        self.muted = muted
    }
}

/// What the TV's player is doing, where its protocol says: a state word (`play`,
/// `pause`, `close`, `live`…), the position, and the channel for live TV.
public struct PlaybackState: Sendable, Hashable, Codable {
    public var state: String
    public var positionMilliseconds: Int?
    public var channel: String?
    public init(state: String, positionMilliseconds: Int? = nil, channel: String? = nil) {
        self.state = state
        self.positionMilliseconds = positionMilliseconds
        self.channel = channel
    }
}

/// Something the TV told us. Only typed values: nothing from the TV is passed raw.
public enum TVEvent: Sendable, Equatable {
    case power(isOn: Bool)
    /// What the TV says of its power beyond on and off, where its brand says more: on,
    /// network standby, the picture off while on, or off; `reason` in the TV's words
    /// (`Active Standby`, `Screen Saver`, `DisplayOff`).
    case powerState(PowerState, reason: String?)
    case volume(VolumeState)
    case currentApp(String)
    case playback(PlaybackState)
    case deviceInfo(model: String?, vendor: String?, version: String?)
    /// A setting the TV reports by the name of the catalog command that changes it (`sound`:
    /// where its audio goes, by its standard name where it has one), so a new setting is a
    /// catalog entry, not a new event in every door.
    case setting(name: String, value: String)
    case disconnected(reason: PhotonError?)
}

/// A TV's power as automations need it. `standby`: network standby (it answers, the
/// picture is off); `screen-off`: on, with the picture switched off; `off`: it does not
/// answer, or says it is powering off.
public enum PowerState: String, Sendable, Hashable, CaseIterable {
    case on
    case standby
    case screenOff = "screen-off"
    case off
    /// Showing artwork with the picture otherwise off (Samsung's The Frame): off for
    /// automations, the screen lit.
    case art
}

/// How to wake a TV that does not answer: where the packet goes and how long to wait.
public struct WakeRequest: Sendable, Hashable {
    /// Where the packet goes (default: every broadcast address).
    public var destinations: [String]
    /// UDP ports (default 9 and 7).
    public var ports: [UInt16]
    /// How long to wait for the TV to answer after waking it.
    public var patience: Duration
    public init(destinations: [String] = [], ports: [UInt16] = [], patience: Duration = .seconds(45)) {
        self.destinations = destinations
        self.ports = ports
        self.patience = patience
    }
}

extension RemoteCommand {
    /// The command for a log, without the text it types (which may be private).
    public var logDescription: String {
        switch self {
        case .key(let input, let action): return action == .press ? "key \(input)" : "key \(input) \(action.rawValue)"
        case .longPress(let input, let ms): return "key \(input) held \(ms) ms"
        case .text(let text): return "text (\(text.count) characters)"
        case .launch(let app): return "launch \(Redaction.sanitize(app))"
        case .volume(let change): return "volume \(change.rawValue)"
        case .setVolume(let level): return "volume \(level)"
        case .voice(let pcm, _): return "voice (\(pcm.count) bytes)"
        case .liveVoice(let audio): return "voice (live, \(audio.sampleRate) Hz)"
        case .spoken(let words, let target): return "spoken words (\(words.count) characters, to \(target.rawValue))"
        case .search(let keyword): return "search (\(keyword.count) characters)"
        case .input(let name): return "input \(Redaction.sanitize(name.description))"
        case .notify(let message): return "notify (\(message.count) characters)"
        case .screen(let on): return "screen \(on ? "on" : "off")"
        case .channel(let number): return "channel \(number)"
        case .sound(let output): return "sound \(Redaction.sanitize(output))"
        case .picture(let mode): return "picture \(Redaction.sanitize(mode))"
        case .ambilight(let choice): return "ambilight \(Redaction.sanitize(choice))"
        case .art(let command): return "art \(command)"
        case .artUpload(let upload): return "art upload (\(upload.bytes.count) bytes, \(upload.fileType))"
        case .wake(let request): return "wake (waiting up to \(Int(request.patience.seconds)) s)"
        }
    }
}

extension Capability {
    /// What a TV with this capability can do, in words for a person ("set a volume level"):
    /// the one wording of "unsupported" on every brand.
    public var action: String {
        switch self {
        case .keys: return "take key presses"
        case .longPress: return "hold a key (long press)"
        case .text: return "type text"
        case .appLaunch: return "launch apps"
        case .appList: return "list its apps"
        case .volumeState: return "report its volume"
        case .volumeSet: return "set a volume level"
        case .powerState: return "report its power"
        case .voice: return "take voice audio"
        case .search: return "search"
        case .currentApp: return "report the app in front"
        case .wakeOnLAN: return "be woken over the network"
        case .inputs: return "switch inputs"
        case .inputList: return "list its inputs"
        case .notifications: return "show a message on the screen"
        case .screenPower: return "switch its picture off while staying on"
        case .channelList: return "list its channels"
        case .soundOutput: return "say or switch where its audio goes"
        case .pictureMode: return "switch picture modes"
        case .ambilight: return "drive an ambient light"
        case .artMode: return "show art (The Frame's art mode)"
        }
    }
}
