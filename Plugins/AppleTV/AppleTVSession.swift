import Foundation
import PhotonCore

/// A session with an Apple TV over one verified Companion connection. Opening it starts the
/// remote session as tvOS's own remote does (`_systemInfo`, `_touchStart`, `_sessionStart`,
/// `TVRCSessionStart`, `_tiStart`), subscribes to the power and media-control events and
/// asks for the attention state (only a power key waits for the answer). Keys are HID presses (down, then up; a hold is down until
/// its release), play/pause/next/previous are media controls, apps are launched by bundle
/// id or link, text goes through the text-input session (RTI archives), and the volume is
/// a media control the Apple TV passes on to the TV or speakers it controls.
final class AppleTVSession: KeySending, TextTyping, VolumeSetting, AppLaunching, AppListing, AcknowledgesCommands,
    ExplainsCapabilities
{
    let capabilities = AppleTVAdapter.maximumCapabilities
    var events: AsyncStream<TVEvent> { feed.stream }
    var catalogIDs: [String: [String]] { AppleTVAdapter.appCatalogIDs }

    private let connection: CompanionConnection
    private let feed = SessionEvents()
    private let timeout: Duration
    private let awake = Locked<Bool?>(nil)
    /// The media controls the Apple TV last said it has (`_iMC`'s `_mcF`), nil before it said.
    private let mediaFlags = Locked<Int64?>(nil)
    private let tasks = Locked<[Task<Void, Never>]>([])
    /// The attention state asked for when the session opened; the power key waits for it
    /// when no event has said yet whether the Apple TV is awake.
    private let attentionAsked = Locked<Task<Void, Never>?>(nil)

    private init(connection: CompanionConnection, timeout: Duration) {
        self.connection = connection
        self.timeout = timeout
    }

    /// Starts the remote session on a verified connection.
    static func open(_ connection: CompanionConnection, context: AdapterContext) async throws -> AppleTVSession {
        let session = AppleTVSession(connection: connection, timeout: max(context.timeout, .seconds(5)))
        let info = try await connection.request("_systemInfo", systemInfo(context), timeout: context.timeout)
        session.feed.yield(.deviceInfo(model: info["_mdl"]?.stringValue, vendor: "Apple", version: nil))
        _ = try await connection.request(
            "_touchStart", .object([("_height", .double(1000)), ("_tFl", .int(0)), ("_width", .double(1000))]), timeout: context.timeout)
        _ = try await connection.request(
            "_sessionStart", .object([("_srvT", .string("com.apple.tvremoteservices")), ("_sid", .int(Int64.random(in: 1...0xFFFF_FFFF)))]),
            timeout: context.timeout)
        // tvOS answers FetchAttentionState only once a TV remote session is registered;
        // older versions do not know the request, which is no reason to fail.
        _ = try? await connection.request("TVRCSessionStart", .object([("ProtocolVersionKey", .string("1.2"))]), timeout: context.timeout)
        _ = try await connection.request("_tiStart", timeout: context.timeout)
        let interests: [OPACK] = [.string("SystemStatus"), .string("TVSystemStatus"), .string("_iMC")]
        try await connection.event("_interest", .object([("_regEvents", .array(interests))]))
        let listener = Task { [weak session] in
            for await event in connection.events {
                guard let session else { return }
                if event.name == "SystemStatus" || event.name == "TVSystemStatus", let state = event.content["state"]?.intValue {
                    session.report(attention: state)
                }
                if event.name == "_iMC", let flags = event.content["_mcF"]?.intValue { await session.report(mediaFlags: flags) }
            }
            let reason = await connection.endReason
            session?.finish(reason)
        }
        session.tasks.withLock { $0.append(listener) }
        // tvOS answers FetchAttentionState only on some versions: without it, power is
        // learned from the next SystemStatus event. No command waits for the answer (a
        // round trip of every cold command) except a power key, which needs it.
        let asked = Task { [weak session] in
            guard let state = try? await connection.request("FetchAttentionState", timeout: context.timeout)["state"]?.intValue else {
                return
            }
            session?.report(attention: state)
        }
        session.attentionAsked.withLock { $0 = asked }
        session.tasks.withLock { $0.append(asked) }
        return session
    }

    /// What `_systemInfo` tells the Apple TV about this client.
    static func systemInfo(_ context: AdapterContext) -> OPACK {
        .object([
            ("_bf", .int(0)), ("_cf", .int(512)), ("_clFl", .int(128)), ("_i", .string("photon")), ("_n", .string(context.clientName)),
            ("_sf", .int(256)), ("_sv", .string("170.18")), ("model", .string("Photon")), ("name", .string(context.clientName)),
        ])
    }

    /// 1 asleep, 2 screensaver, 3 awake, 4 idle.
    private func report(attention: Int64) {
        let isAwake = attention != 1
        awake.withLock { $0 = isAwake }
        let state: PowerState = attention == 1 ? .standby : .on
        feed.yield(.powerState(state, reason: attention == 2 ? "screensaver" : attention == 1 ? "asleep" : nil))
        feed.yield(.power(isOn: isAwake))
    }

    /// The media controls changed: when volume is among them, its level is read and
    /// reported (what pyatv waits for after setting it).
    private func report(mediaFlags flags: Int64) async {
        self.mediaFlags.withLock { $0 = flags }
        guard flags & Self.volumeFlag != 0,
            let level = try? await request("_mcc", .object([("_mcc", .int(Self.getVolume))]))["_vol"]?.doubleValue, level.isFinite
        else { return }
        feed.yield(.volume(VolumeState(level: Int((min(max(level, 0), 1) * 100).rounded()), maximum: 100, muted: false)))
    }

    static let volumeFlag: Int64 = 0x100
    static let getVolume: Int64 = 5
    static let setVolume: Int64 = 6

    func whyUnavailable(_ capability: Capability) -> PhotonError? {
        guard capability == .volumeSet, let flags = mediaFlags.withLock({ $0 }), flags & Self.volumeFlag == 0 else { return nil }
        return PhotonError.unsupported(
            "this Apple TV does not control a volume right now; nothing was sent",
            hint:
                "it controls the volume of a TV over HDMI-CEC or of AirPlay speakers when set up to (Settings › Remotes and Devices › Volume Control); the volume keys still work where it does"
        )
    }

    // MARK: commands

    func sendKey(_ input: KeyInput, _ action: KeyAction) async throws {
        guard case .key(var key) = input else {
            throw PhotonError.unsupported("Apple TV has no raw key codes; nothing was sent", hint: "use a key name (photon keys)")
        }
        if key == .power {
            if awake.withLock({ $0 }) == nil { await attentionAsked.withLock { $0 }?.value }
            key = awake.withLock { $0 } == false ? .powerOn : .powerOff
        }
        if let media = AppleTVAdapter.media[key] {
            guard action != .holdEnd else { return }
            try await request("_mcc", .object([("_mcc", .int(media.code))]))
            return
        }
        guard let hid = AppleTVAdapter.hid[key] else {
            throw PhotonError.unsupported("Apple TV has no \(key.rawValue) key; nothing was sent", hint: "see `photon keys` for its keys")
        }
        switch action {
        case .press:
            try await button(hid.code, down: true)
            try await button(hid.code, down: false)
        case .holdStart: try await button(hid.code, down: true)
        case .holdEnd: try await button(hid.code, down: false)
        }
    }

    private func button(_ code: Int64, down: Bool) async throws {
        try await request("_hidC", .object([("_hBtS", .int(down ? 1 : 2)), ("_hidC", .int(code))]))
    }

    /// Types `text` into the focused field, as pyatv's `text_append` does: the text-input
    /// session is restarted to learn the field's session, then one insertion is sent (an
    /// event, which the Apple TV does not answer).
    func type(_ text: String) async throws {
        _ = try await request("_tiStop")
        guard let archive = try await request("_tiStart")["_tiD"]?.dataValue else {
            throw PhotonError(
                .notFound, "no text field is open on the Apple TV; nothing was typed",
                hint: "open a search or a text field on the TV first, then send the text again")
        }
        let field = try RemoteTextInput.session(in: archive)
        try CommandDeadline.checkBeforeSending()
        try await connection.event("_tiC", .object([("_tiV", .int(1)), ("_tiD", .data(RemoteTextInput.insert(text, session: field.session)))]))
    }

    /// Sets the volume of what the Apple TV controls (0–100, sent as a fraction).
    func setVolume(_ level: Int) async throws {
        if let refusal = whyUnavailable(.volumeSet) { throw refusal }
        let fraction = Double(min(max(level, 0), 100)) / 100
        do {
            try await request("_mcc", .object([("_mcc", .int(Self.setVolume)), ("_vol", .double(fraction))]))
        } catch let error as PhotonError where error.code == .protocolViolation {
            // Refused before its media controls said so (they come just after connecting).
            mediaFlags.withLock { $0 = $0 ?? 0 }
            throw whyUnavailable(.volumeSet) ?? error
        }
    }

    func launch(_ app: String) async throws {
        let isLink = app.contains("://") || (app.contains(":") && !app.contains("."))
        do {
            try await request("_launchApp", .object([(isLink ? "_urlS" : "_bundleID", .string(app))]))
        } catch let error as PhotonError where error.code == .protocolViolation {
            throw PhotonError(
                .notFound, "the Apple TV could not open '\(Redaction.sanitize(app))'; nothing was started", hint: "`photon apps TV` lists what it has"
            )
        }
    }

    func installedApps() async throws -> [TVApp] {
        guard case .dictionary(let fields) = try await request("FetchLaunchableApplicationsEvent") else { return [] }
        return fields.compactMap { field in
            guard let id = field.key.stringValue, let name = field.value.stringValue else { return nil }
            return TVApp(id: Redaction.sanitize(id, limit: 128), name: Redaction.sanitize(name, limit: 64))
        }.sorted { $0.id < $1.id }
    }

    /// Every request is answered; text is an event (`_tiC`) that is not.
    func acknowledges(_ command: RemoteCommand) -> Bool {
        if case .text = command { return false }
        return true
    }

    // MARK: plumbing

    @discardableResult
    private func request(_ name: String, _ content: OPACK = .object([])) async throws -> OPACK {
        try feed.checkOpen("the Apple TV")
        return try await connection.request(name, content, timeout: CommandDeadline.remaining(cap: timeout))
    }

    private func finish(_ reason: PhotonError?) { feed.end(reason) }

    func close() async {
        let wasOpen = !feed.isEnded
        await connection.close()
        for task in tasks.withLock({ $0 }) { task.cancel() }
        if wasOpen { feed.end(nil) }
    }
}
