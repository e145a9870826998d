/// A live connection to one TV: what it can do, its events, and how it ends. What it is
/// sent is declared separately, one protocol per kind of command (`KeySending`,
/// `TextTyping`, …): a session conforms to the ones its brand can do and to nothing
/// else, and `RemoteCommand.perform(on:)` is the one place that checks a command's
/// capability and picks the method. A new command therefore touches the core and the
/// adapters that can do it, never the others.
public protocol RemoteSession: AnyObject, Sendable {
    /// The capabilities this TV declared when the session opened.
    var capabilities: Capabilities { get }
    /// Power, volume, app and connection events; the stream ends after `.disconnected`.
    var events: AsyncStream<TVEvent> { get }
    func close() async

    // What every command asks of a session, as requirements its refinements fill in
    // (`HoldsStateReads`, `AcknowledgesCommands`, `KeySending`), not as dynamic casts: a
    // session type's first `as?` to a protocol scans every conformance record of the
    // binary (~40 µs each on a cold key, three per key).

    /// The gate its own state reads wait behind, if it holds them (`HoldsStateReads`).
    var stateReadGate: StateReadGate? { get }
    /// Whether the TV confirms `command` once carried out (an answer per request: Roku's
    /// HTTP, LG's SSAP requests; `AcknowledgesCommands`). A command it does not confirm
    /// (Android TV, Samsung, LG's pointer keys) was written, and a cut right after the
    /// write may still lose it.
    func confirms(_ command: RemoteCommand) -> Bool
    /// This session as a key sender, if it is one (`KeySending`).
    var keySending: (any KeySending)? { get }
}

extension RemoteSession {
    public var stateReadGate: StateReadGate? { nil }
    public func confirms(_ command: RemoteCommand) -> Bool { false }
    public var keySending: (any KeySending)? { nil }
}

extension RemoteSession {
    /// Sends one command: checks the capability once, then calls the session's method
    /// for it. A failed send is reported, never retried.
    public func send(_ command: RemoteCommand) async throws { try await command.perform(on: self) }

    /// Why this TV lacks `capability` right now, in the brand's words (a feature the TV
    /// did not enable, and what to do about it), or nil for the generic message.
    public func unavailability(of capability: Capability) -> PhotonError? {
        (self as? any ExplainsCapabilities)?.whyUnavailable(capability)
    }
}

/// A session whose TV answers each command it carries out, so "sent" can be told from
/// "done": results say `acknowledged`.
public protocol AcknowledgesCommands: RemoteSession {
    func acknowledges(_ command: RemoteCommand) -> Bool
}

extension AcknowledgesCommands {
    public func confirms(_ command: RemoteCommand) -> Bool { acknowledges(command) }
}

/// A session that can say why one of its capabilities is missing on this TV (an
/// Android TV whose feature mask lacks KEY), so the one capability check gives the
/// brand's hint instead of a generic refusal.
public protocol ExplainsCapabilities: RemoteSession {
    func whyUnavailable(_ capability: Capability) -> PhotonError?
}

/// Key presses, and holds where the brand has them (capability `keys`; `long-press`
/// for holds). Volume steps are keys, and a long press is a hold-start, a wait and a
/// hold-end, both made by the core from this one method.
public protocol KeySending: RemoteSession {
    /// One key action. A brand that takes presses only refuses `holdStart`/`holdEnd`
    /// with `unsupported`; a `holdEnd` runs even after the command's expiry.
    func sendKey(_ input: KeyInput, _ action: KeyAction) async throws
    /// Whether a hold lasts as long as asked (key down, the wait, key up). A brand whose
    /// long press is one fixed-length event (Fire TV's `input keyevent --longpress`) says
    /// false, and a long press then does not wait for a hold that changes nothing.
    var holdsForTheTimeAsked: Bool { get }
}

extension KeySending {
    public var keySending: (any KeySending)? { self }
}

extension KeySending {
    public var holdsForTheTimeAsked: Bool { true }
}

/// Text typed into the focused field (capability `text`).
public protocol TextTyping: RemoteSession {
    func type(_ text: String) async throws
}

/// An app or deep link opened (capability `app-launch`).
public protocol AppLaunching: RemoteSession {
    func launch(_ app: String) async throws
    /// The brand's ids (or links) for the apps of `AppCatalog`, by catalog key, newest
    /// first; the core turns `launch netflix` into one of them.
    var catalogIDs: [String: [String]] { get }
}

extension AppLaunching {
    public var catalogIDs: [String: [String]] { [:] }
}

/// The volume set to an absolute level, 0–100 (capability `volume-set`).
public protocol VolumeSetting: RemoteSession {
    func setVolume(_ level: Int) async throws
}

/// A voice query: 16-bit little-endian mono PCM (capability `voice`).
public protocol VoiceQuerying: RemoteSession {
    func sendVoice(pcm: [UInt8], sampleRate: Int) async throws
    /// Sends audio while it is still being recorded. A brand whose TV takes audio in
    /// pieces streams it; the default waits for the whole recording.
    func sendVoice(live audio: LiveAudio) async throws
}

extension VoiceQuerying {
    public func sendVoice(live audio: LiveAudio) async throws {
        var pcm: [UInt8] = []
        for await block in audio.blocks { pcm += block }
        try await sendVoice(pcm: pcm, sampleRate: audio.sampleRate)
    }
}

/// The TV's own search (capability `search`).
public protocol Searching: RemoteSession {
    func search(_ keyword: String) async throws
}

/// A short message on the TV's screen (capability `notifications`).
public protocol Notifying: RemoteSession {
    func notify(_ message: String) async throws
}

/// The picture off and on while the TV stays on (capability `screen-power`).
public protocol ScreenSwitching: RemoteSession {
    func setScreen(on: Bool) async throws
}

extension RemoteCommand {
    /// The longest notification Photon sends: TVs show a line or two of a toast.
    public static let notificationLimit = CommandLimits.notificationCharacters

    /// Throws `usage` for an empty or over-long message, or one with control characters
    /// other than a newline (a TV would show them, or its JSON escape, literally): the
    /// catalog's rule for `notify`.
    public static func checkNotification(_ message: String) throws {
        do {
            try CommandCatalog.check(wire: .object([("notify", .string(message))]))
        } catch let error as CommandGrammarError {
            throw PhotonError(error)
        }
    }
}

/// An app installed on a TV, as `photon apps` lists it: the id `photon launch` takes, and
/// its name.
public struct TVApp: Sendable, Hashable {
    public var id: String
    public var name: String
    public init(id: String, name: String) {
        self.id = id
        self.name = name
    }
}

/// A session whose TV can list its installed apps (the `appList` capability).
public protocol AppListing: RemoteSession {
    func installedApps() async throws -> [TVApp]
}
