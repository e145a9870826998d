import Foundation
import PhotonCore

/// A live remote-control channel to a Samsung TV: keys (Click, Press/Release), text,
/// app launch, with pacing between keys; a reader that answers pings (through the
/// WebSocket layer), tracks replies and reports the end of the connection; a keep-alive
/// that pings a TV gone quiet and ends the session when it does not answer.
final class SamsungSession: AppListing, KeySending, TextTyping, AppLaunching, ArtControlling, HoldsStateReads {
    private struct State {
        var lastKey: Date?
        var launchWaiter: Promise<Int>?
        var appsWaiter: Promise<[SamsungApp]>?
        var closed = false
    }

    let channel: any MessageStream
    let device: DeviceRecord
    let context: AdapterContext
    let pacing: Duration
    let keepAlive: Duration
    let capabilities = SamsungTVAdapter.maximumCapabilities
    var catalogIDs: [String: [String]] { SamsungTVAdapter.appCatalogIDs }
    let events: AsyncStream<TVEvent>
    let continuation: AsyncStream<TVEvent>.Continuation
    private let state = Locked(State())
    private let sendGate = AsyncGate()
    private let reader = Locked<Task<Void, Never>?>(nil)
    private let keeper = Locked<Task<Void, Never>?>(nil)
    private let powerPoller = Locked<Task<Void, Never>?>(nil)
    /// How often the power state is read again over REST (0: only at the start).
    let powerPoll: Duration
    let restPort: UInt16
    /// How the channels reach the TV (the art channel uses the same), and the token.
    let security: TransportSecurity
    let token: String?
    /// The Frame's art channel and what it says (nil until known).
    let frame = Locked<SamsungFrameState>(SamsungFrameState())
    /// The first REST read waits for the command the session was opened for: it is a
    /// second connection the TV would serve beside the key.
    let stateReads: StateReadGate

    private init(
        channel: any MessageStream, device: DeviceRecord, context: AdapterContext, pacing: Duration, keepAlive: Duration,
        security: TransportSecurity, token: String?, powerPoll: Duration
    ) {
        self.powerPoll = powerPoll
        self.security = security
        self.token = token
        self.channel = channel
        self.device = device
        self.context = context
        self.pacing = pacing
        self.keepAlive = keepAlive
        restPort = device.ports["rest"] ?? 8001
        stateReads = StateReadGate(for: context)
        (events, continuation) = AsyncStream.makeStream(of: TVEvent.self, bufferingPolicy: .bufferingNewest(256))
    }

    static func open(
        device: DeviceRecord, secrets: DeviceSecrets, context: AdapterContext, pacing: Duration, keepAlive: Duration,
        powerPoll: Duration = .seconds(5)
    ) async throws
        -> SamsungSession
    {
        let restPort = device.ports["rest"] ?? 8001
        let tls = SamsungTVAdapter.usesTLS(port: device.port, restPort: restPort)
        if !tls, secrets[SamsungTVAdapter.tokenSecret] != nil {
            // A token is a credential: it travels only inside TLS, never in a clear URL.
            throw SamsungTVAdapter.tokenInClear(device.endpoint)
        }
        var security = TransportSecurity.plain
        if tls {
            guard let pin = secrets.pin else {
                throw PhotonError(.notPaired, "\(device.nickname) has no stored certificate pin", hint: "pair it again with `photon pair`")
            }
            security = .tls(TLSClientOptions(trust: .pinned(pin)))
        }
        let request = MessageStreamRequest(
            endpoint: device.endpoint,
            target: SamsungCommand.channelTarget(clientName: context.clientName, token: secrets[SamsungTVAdapter.tokenSecret]),
            security: security, maxMessageSize: SamsungEvent.maximumSize)
        let channel = try await context.connector.openMessageStream(request, timeout: context.timeout)
        do {
            let token = try await waitForConnect(channel, timeout: context.timeout, pairing: false, log: context.log)
            if let token, token != secrets[SamsungTVAdapter.tokenSecret] {
                // The TV rotated the token: store it at once.
                context.log.debug("the TV issued a new token; saving it")
                var updated = secrets
                updated[SamsungTVAdapter.tokenSecret] = token
                try await context.secretsChanged(secrets, updated)
            }
        } catch {
            await channel.close(code: 1000, reason: "")
            throw error
        }
        let session = SamsungSession(
            channel: channel, device: device, context: context, pacing: pacing, keepAlive: keepAlive, security: security,
            token: secrets[SamsungTVAdapter.tokenSecret], powerPoll: powerPoll)
        session.start()
        return session
    }

    /// Waits for `ms.channel.connect`, skipping every other event (TVs send noise such as
    /// `ed.edenTV.update` first). Returns `data.token` when the TV issued one.
    static func waitForConnect(_ channel: any MessageStream, timeout: Duration, pairing: Bool, log: PhotonLog) async throws -> String? {
        let end = ContinuousClock.now + timeout
        while true {
            let remaining = end - ContinuousClock.now
            let message: WebSocketMessage?
            do {
                guard remaining > .zero else { throw PhotonError(.timeout, "waiting for the TV") }
                message = try await channel.receive(timeout: remaining)
            } catch let error as PhotonError where error.code == .timeout {
                throw pairing
                    ? PhotonError(
                        .timeout, "nobody accepted the request on the TV in time",
                        hint:
                            "accept the prompt on the TV within 30 s; if none appears, set Access Notification to \"First Time Only\" (Settings → General → External Device Manager → Device Connection Manager)"
                    )
                    : PhotonError(
                        .authenticationRefused, "the TV did not accept the stored token in time (it may be showing a prompt)",
                        hint: "accept the prompt on the TV, or pair again with `photon pair`")
            }
            guard let message else {
                let code = await channel.closeCode
                throw PhotonError(
                    .connectionClosed, "the TV closed the channel before connecting (close code \(code.map(String.init) ?? "none"))",
                    hint: "check that the TV is on and allows remote control over IP")
            }
            guard case .text(let text) = message else { continue }
            switch try SamsungEvent.parse(text) {
            case .connect(_, let token): return token
            case .unauthorized:
                throw PhotonError(
                    pairing ? .pairingRefused : .authenticationRefused, "the TV refused this remote (unauthorized)",
                    hint:
                        "remove Photon from the TV's Device List (Settings → General → External Device Manager → Device Connection Manager) and pair again"
                )
            case .timeout:
                throw PhotonError(
                    .timeout, "the TV gave up waiting for the request to be accepted (ms.channel.timeOut)",
                    hint: "accept the prompt on the TV within 30 s; the TV must show its normal picture (not Art Mode), and be on the same subnet")
            case .error(let message):
                if message.contains("unrecognized method") {
                    throw PhotonError.unsupported(
                        "this Samsung TV does not speak the WebSocket remote API (\(message))",
                        hint: "2014–2015 (H/J) sets use an encrypted protocol Photon does not support")
                }
                throw PhotonError(.protocolViolation, "the TV reported an error: \(message)")
            case .ignored(let name):
                log.debug("skipping '\(name)' while waiting for the TV to connect")
            default:
                continue
            }
        }
    }

    private func start() {
        let task = Task { [weak self] in
            guard let self else { return }
            await self.readLoop()
        }
        reader.withLock { $0 = task }
        if keepAlive > .zero {
            let keeping = Task { [weak self] in
                guard let self else { return }
                await self.keepAliveLoop()
            }
            keeper.withLock { $0 = keeping }
        }
        // Power state comes from REST, fetched off the key path, and again every
        // `powerPoll` while the session lasts (the remote channel says nothing of it): a
        // set that went to standby is reported so within that time, not kept "on".
        let poller = Task { [weak self, stateReads] in
            do { try await stateReads.wait() } catch { return }
            var last: PowerState?
            var first = true
            while !Task.isCancelled {
                guard let self, !self.state.withLock({ $0.closed }) else { return }
                if let info = try? await SamsungTVAdapter.deviceInfo(host: self.device.host, restPort: self.restPort, context: self.context) {
                    if first {
                        self.continuation.yield(.deviceInfo(model: info.modelName, vendor: "Samsung", version: nil))
                        self.frame.withLock { $0.isFrame = info.frameTV }
                    }
                    var now: PowerState?
                    if info.frameTV, info.isOn == true {
                        // A Frame is "on" over REST while it shows art: its art channel tells
                        // (and pushes changes; asked again only when it came back from standby).
                        let known = self.frame.withLock { $0.artMode }
                        let art = (first || last == .standby || known == nil) ? (try? await self.artMode()) : known
                        now = (art ?? false) ? .art : .on
                    } else if let on = info.isOn {
                        now = on ? .on : .standby
                    }
                    if let now, now != last {
                        last = now
                        if now == .art || (info.frameTV && now == .on) {
                            self.report(artMode: now == .art)
                        } else {
                            // PowerState (2019+ sets; empty on 2024+ firmware) tells standby from
                            // on; the detail first, so a status that waited for `power` has both.
                            self.continuation.yield(.powerState(now, reason: info.powerState))
                            self.continuation.yield(.power(isOn: now == .on))
                        }
                    }
                }
                first = false
                let interval = self.powerPoll
                guard interval > .zero else { return }
                let clock = self.context.clock
                do { try await clock.sleep(for: interval) } catch { return }
            }
        }
        powerPoller.withLock { $0 = poller }
    }

    private func readLoop() async {
        var reason: PhotonError?
        do {
            while let message = try await channel.receive(timeout: nil) {
                guard case .text(let text) = message else { continue }
                let event: SamsungEvent
                do { event = try SamsungEvent.parse(text) } catch { continue }
                switch event {
                case .appLaunched(let status):
                    state.withLock { $0.launchWaiter }?.succeed(status)
                case .installedApps(let apps):
                    state.withLock { $0.appsWaiter }?.succeed(apps)
                default:
                    break
                }
            }
            let code = await channel.closeCode
            // 1000/1001 are clean; TVs also close with 1005 (no code) or drop (1006).
            reason =
                code == 1000 || code == 1001
                ? nil : PhotonError(.connectionClosed, "the TV closed the connection (code \(code.map(String.init) ?? "none"))")
        } catch {
            reason = PhotonError.wrap(error)
        }
        finish(reason)
    }

    /// Pings the TV after `keepAlive` without a frame from it; if nothing comes back within
    /// `keepAlive` more, the connection is gone (network loss sends no FIN) and the
    /// session ends with `timeout`.
    private func keepAliveLoop() async {
        guard
            await KeepAlive.watch(
                channel, interval: keepAlive, label: "samsung", log: context.log, isClosed: { [state] in state.withLock { $0.closed } })
        else { return }
        finish(KeepAlive.silentPeer(after: keepAlive))
        await channel.close(code: 1001, reason: "")
    }

    private func finish(_ reason: PhotonError?) {
        let (first, launch, apps) = state.withLock { s -> (Bool, Promise<Int>?, Promise<[SamsungApp]>?) in
            defer {
                s.closed = true
                s.launchWaiter = nil
                s.appsWaiter = nil
            }
            return (!s.closed, s.launchWaiter, s.appsWaiter)
        }
        guard first else { return }
        let error = reason ?? PhotonError(.connectionClosed, "the session closed")
        launch?.fail(error)
        apps?.fail(error)
        continuation.yield(.disconnected(reason: reason))
        continuation.finish()
    }

    func close() async {
        let (art, opening) = frame.withLock { ($0.channel, $0.opening) }
        if let art {
            await art.close()
        } else if let opening {
            // An art channel still opening is closed once it opens.
            Task { try? await opening.value.close() }
        }
        keeper.withLock { $0 }?.cancel()
        powerPoller.withLock { $0 }?.cancel()
        await channel.close(code: 1000, reason: "")
        reader.withLock { $0 }?.cancel()
        finish(nil)
    }

    // MARK: commands

    func checkOpen() throws {
        if state.withLock({ $0.closed }) { throw PhotonError(.connectionClosed, "the session to the TV is closed") }
    }

    func sendKey(_ input: KeyInput, _ action: KeyAction) async throws {
        try checkOpen()
        if case .key(let key) = input, key == .powerOn || key == .powerOff, action == .press, try await isFrame() {
            return try await framePower(on: key == .powerOn)
        }
        switch (input, action) {
        case (.key(.powerOn), .press):
            switch try await currentPower() {
            case true?: return
            case false?:
                // PowerState says standby (or "", as 2024+ firmware does while off) while the
                // set answers: KEY_POWER switches it on.
                try await sendKey("KEY_POWER", .click)
            case nil:
                throw PhotonError.unsupported(
                    "this Samsung TV does not report its power state (sets before 2019), so Photon cannot tell whether KEY_POWER would switch it off",
                    hint: "waking from deep standby needs Wake-on-LAN to the stored MAC (`photon power TV on`, `photon wake`)")
            }
        case (.key(.powerOff), .press):
            // KEY_POWER toggles: send it only when the TV reports itself on.
            guard try await currentPower() != false else { return }
            try await sendKey("KEY_POWER", .click)
        default:
            let code = try SamsungKeys.resolve(input)
            switch action {
            case .press: try await sendKey(code, .click)
            case .holdStart: try await sendKey(code, .press)
            // A Release follows its Press at once, whatever the pacing.
            case .holdEnd: try await sendKey(code, .release, paced: false)
            }
        }
    }

    func type(_ text: String) async throws {
        try checkOpen()
        guard !text.isEmpty else { throw PhotonError(.usage, "there is no text to type") }
        try await sendGate.withGate {
            try await self.channel.send(.text(SamsungCommand.text(text)))
            try await self.channel.send(.text(SamsungCommand.textEnd))
        }
    }

    func sendKey(_ code: String, _ command: SamsungCommand.KeyCommand, paced: Bool = true) async throws {
        try await sendGate.withGate {
            if paced, pacing > .zero, let last = self.state.withLock({ $0.lastKey }) {
                let wait = self.pacing - .seconds(self.context.clock.now.timeIntervalSince(last))
                if wait > .zero { try await self.context.clock.sleep(for: wait) }
            }
            try await self.channel.send(.text(SamsungCommand.key(code, command)))
            let now = self.context.clock.now
            self.state.withLock { $0.lastKey = now }
        }
    }

    func currentPower() async throws -> Bool? {
        try await SamsungTVAdapter.deviceInfo(host: device.host, restPort: restPort, context: context).isOn
    }

    /// `ed.apps.launch` first; if the TV does not confirm (2021+ sets ignore it), the
    /// REST `POST /api/v2/applications/{id}`.
    func launch(_ app: String) async throws {
        try checkOpen()
        guard !app.isEmpty, app.count <= 200, !app.contains("/") || app.hasPrefix("http") else {
            throw PhotonError(.usage, "give a Samsung app id, e.g. 111299001912 (YouTube)")
        }
        let promise = Promise<Int>()
        state.withLock { $0.launchWaiter = promise }
        try await channel.send(.text(SamsungCommand.launch(app)))
        let status: Int? = try? await withTimeout(.seconds(3), "launching \(app)") { try await promise.value() }
        state.withLock { $0.launchWaiter = nil }
        if status == 200 { return }
        context.log.debug("ed.apps.launch not confirmed; trying REST")
        let encoded = percentEncoded(app, strict: true)
        let response = try await SamsungTVAdapter.rest(
            "POST", "/api/v2/applications/\(encoded)", host: device.host, restPort: restPort, context: context)
        guard (200..<300).contains(response.status) else {
            throw PhotonError(
                .notFound, "the TV could not launch '\(Redaction.sanitize(app))' (HTTP \(response.status))",
                hint: "app ids differ by model year; check the id for this TV")
        }
    }

    /// The installed apps, where the TV still answers (2020+ sets usually never do).
    func installedApps() async throws -> [TVApp] {
        try await installedApps(timeout: .seconds(5)).map { TVApp(id: $0.id, name: $0.name) }
    }

    func installedApps(timeout: Duration) async throws -> [SamsungApp] {
        let promise = Promise<[SamsungApp]>()
        state.withLock { $0.appsWaiter = promise }
        defer { state.withLock { $0.appsWaiter = nil } }
        try await channel.send(.text(SamsungCommand.installedApps))
        return try await withTimeout(timeout, "waiting for the TV's app list (newer TVs never send it)") { try await promise.value() }
    }
}

/// What a Samsung session knows of The Frame: whether the set is one (from REST), its art
/// channel once opened, and the art mode last seen.
struct SamsungFrameState: Sendable {
    var isFrame: Bool?
    var channel: SamsungArtChannel?
    /// The opening of the art channel, shared by whoever needs it first.
    var opening: Task<SamsungArtChannel, any Error>?
    var artMode: Bool?
    /// How long KEY_POWER is held to switch a Frame off rather than to art (its remote: ~3 s).
    static let offHold: Duration = .milliseconds(3200)
}
