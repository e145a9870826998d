import Foundation
import PhotonCore

/// A session with an Apple TV over one verified Companion connection. Opening it starts the
/// remote session (`_systemInfo`, `_sessionStart`), subscribes to the power events and
/// reads the attention state. Keys are HID presses (down, then up; a hold is down until
/// its release), play/pause/next/previous are media controls, apps are launched by bundle
/// id or link; every request is answered, so commands are acknowledged.
final class AppleTVSession: KeySending, AppLaunching, AppListing, AcknowledgesCommands {
    let capabilities = AppleTVAdapter.maximumCapabilities
    let events: AsyncStream<TVEvent>
    var catalogIDs: [String: [String]] { AppleTVAdapter.appCatalogIDs }

    private let connection: CompanionConnection
    private let continuation: AsyncStream<TVEvent>.Continuation
    private let timeout: Duration
    private let awake = Locked<Bool?>(nil)
    private let tasks = Locked<[Task<Void, Never>]>([])
    private let closed = Locked(false)

    private init(connection: CompanionConnection, timeout: Duration) {
        self.connection = connection
        self.timeout = timeout
        (events, continuation) = AsyncStream.makeStream(of: TVEvent.self, bufferingPolicy: .bufferingNewest(64))
    }

    /// Starts the remote session on a verified connection.
    static func open(_ connection: CompanionConnection, context: AdapterContext) async throws -> AppleTVSession {
        let session = AppleTVSession(connection: connection, timeout: max(context.timeout, .seconds(5)))
        let info = try await connection.request("_systemInfo", systemInfo(context), timeout: context.timeout)
        session.continuation.yield(.deviceInfo(model: info["_mdl"]?.stringValue, vendor: "Apple", version: nil))
        _ = try await connection.request(
            "_sessionStart", .object([("_srvT", .string("com.apple.tvremoteservices")), ("_sid", .int(Int64.random(in: 1...0xFFFF_FFFF)))]),
            timeout: context.timeout)
        try await connection.event("_interest", .object([("_regEvents", .array([.string("SystemStatus"), .string("TVSystemStatus")]))]))
        let listener = Task { [weak session] in
            for await event in connection.events {
                guard let session else { return }
                if event.name == "SystemStatus" || event.name == "TVSystemStatus", let state = event.content["state"]?.intValue {
                    session.report(attention: state)
                }
            }
            let reason = await connection.endReason
            session?.finish(reason)
        }
        session.tasks.withLock { $0.append(listener) }
        // tvOS answers FetchAttentionState only on some versions: without it, power is
        // learned from the next SystemStatus event.
        if let state = try? await connection.request("FetchAttentionState", timeout: context.timeout)["state"]?.intValue {
            session.report(attention: state)
        }
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
        continuation.yield(.powerState(state, reason: attention == 2 ? "screensaver" : attention == 1 ? "asleep" : nil))
        continuation.yield(.power(isOn: isAwake))
    }

    // MARK: commands

    func sendKey(_ input: KeyInput, _ action: KeyAction) async throws {
        guard case .key(var key) = input else {
            throw PhotonError.unsupported("Apple TV has no raw key codes; nothing was sent", hint: "use a key name (photon keys)")
        }
        if key == .power { key = awake.withLock { $0 } == false ? .powerOn : .powerOff }
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

    func acknowledges(_ command: RemoteCommand) -> Bool { true }

    // MARK: plumbing

    @discardableResult
    private func request(_ name: String, _ content: OPACK = .object([])) async throws -> OPACK {
        if closed.withLock({ $0 }) { throw PhotonError(.connectionClosed, "the session to the Apple TV is closed") }
        return try await connection.request(name, content, timeout: CommandDeadline.remaining(cap: timeout))
    }

    private func finish(_ reason: PhotonError?) {
        let first = closed.withLock { c -> Bool in
            defer { c = true }
            return !c
        }
        guard first else { return }
        continuation.yield(.disconnected(reason: reason))
        continuation.finish()
    }

    func close() async {
        let first = closed.withLock { !$0 }
        await connection.close()
        for task in tasks.withLock({ $0 }) { task.cancel() }
        if first { finish(nil) }
    }
}
