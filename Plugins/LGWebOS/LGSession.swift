import PhotonCore

/// A live session with an LG TV: the registered main socket (requests by id, state
/// subscriptions that feed events), the pointer input socket for buttons (requested again
/// on every connection, opened once and shared), and a keep-alive that ends the session
/// when the TV goes silent.
final class LGSession: AppListing, KeySending, TextTyping, AppLaunching, VolumeSetting, AcknowledgesCommands {
    private struct State {
        var isOn: Bool?
        var volume: VolumeState?
        var app: String?
        var playing: Bool?
        var apps: [TVApp]?
        var closed = false
    }

    let device: DeviceRecord
    let context: AdapterContext
    let keepAlive: Duration
    let capabilities = LGWebOSAdapter.maximumCapabilities
    var catalogIDs: [String: [String]] { LGWebOSAdapter.appCatalogIDs }
    let events: AsyncStream<TVEvent>
    private let continuation: AsyncStream<TVEvent>.Continuation
    private let main: SSAPChannel
    private let security: TransportSecurity
    private let state = Locked(State())
    private let pointerGate = AsyncGate()
    private let pointer = Locked<(any MessageStream)?>(nil)
    /// The pointer socket's connection, started while the session opened because the
    /// command it was opened for is a button (`AdapterContext.expectedCommand`); taken by
    /// the first press, closed with the session if none came.
    private let preopened = Locked<Task<any ByteStream, any Error>?>(nil)
    private let tasks = Locked<[Task<Void, Never>]>([])

    private init(
        device: DeviceRecord, context: AdapterContext, keepAlive: Duration, main: SSAPChannel, security: TransportSecurity,
        preopened: Task<any ByteStream, any Error>?
    ) {
        self.preopened.withLock { $0 = preopened }
        self.device = device
        self.context = context
        self.keepAlive = keepAlive
        self.main = main
        self.security = security
        (events, continuation) = AsyncStream.makeStream(of: TVEvent.self, bufferingPolicy: .bufferingNewest(256))
    }

    static func open(device: DeviceRecord, secrets: DeviceSecrets, context: AdapterContext, keepAlive: Duration) async throws -> LGSession {
        guard let key = secrets[LGWebOSAdapter.clientKeySecret] else {
            throw PhotonError(.notPaired, "\(device.nickname) has no stored client key", hint: "pair it again with `photon pair`")
        }
        let security: TransportSecurity
        if device.unencrypted == true {
            // Consented to at pairing: this TV offers no TLS.
            security = .plain
        } else {
            guard let pin = secrets.pin else {
                throw PhotonError(.notPaired, "\(device.nickname) has no stored certificate pin", hint: "pair it again with `photon pair`")
            }
            security = .tls(TLSClientOptions(trust: .pinned(pin)))
        }
        // A command line opened for a button: the pointer socket's TCP and TLS run while
        // the main socket says hello and registers (its path is asked for afterwards, and
        // it is almost always on the main port), not after them.
        let preopened = context.expectedCommand.map(usesPointer) == true ? preopen(device.endpoint, security: security, context: context) : nil
        let stream: any MessageStream
        do {
            stream = try await context.connector.openMessageStream(
                LGWebOSAdapter.mainSocket(device.endpoint, security: security), timeout: context.timeout)
        } catch {
            await discard(preopened)
            throw error
        }
        let greeting: LGHandshake.Greeting
        do {
            greeting = try await LGHandshake.greet(stream, timeout: context.timeout, log: context.log)
            // Every LG TV may carry the same certificate, so the pin alone does not prove
            // which TV answers: the UUID in its hello must be the paired one's before the
            // client key is sent.
            try LGWebOSAdapter.requireIdentity(of: greeting.hello, is: device)
            _ = try await LGHandshake.register(stream, clientKey: key, timeout: context.timeout, accept: context.timeout, log: context.log)
        } catch {
            await stream.close(code: 1000, reason: "")
            await discard(preopened)
            throw error
        }
        let session = LGSession(
            device: device, context: context, keepAlive: keepAlive, main: SSAPChannel(stream: stream, log: context.log), security: security,
            preopened: preopened)
        session.start(greeting)
        return session
    }

    /// Whether `command` is a press the pointer socket carries (every key but power's).
    static func usesPointer(_ command: RemoteCommand) -> Bool {
        guard case .key(let input, .press) = command else { return false }
        return ![.key(.power), .key(.powerOn), .key(.powerOff)].contains(input)
    }

    private static func preopen(_ endpoint: Endpoint, security: TransportSecurity, context: AdapterContext) -> Task<any ByteStream, any Error> {
        let connector = context.connector
        let timeout = context.timeout
        return Task { try await connector.openByteStream(to: endpoint, security: security, timeout: timeout) }
    }

    /// Closes a pre-opened connection nobody will use (or lets its attempt fail quietly).
    private static func discard(_ preopened: Task<any ByteStream, any Error>?) async {
        if let stream = try? await preopened?.value { await stream.close() }
    }

    private func takePreopened() -> Task<any ByteStream, any Error>? {
        preopened.withLock { p in
            defer { p = nil }
            return p
        }
    }

    private func start(_ greeting: LGHandshake.Greeting) {
        main.start { [weak self] reason in self?.finish(reason) }
        continuation.yield(.deviceInfo(model: greeting.modelName, vendor: "LG", version: greeting.hello.osRelease.map { "webOS \($0)" }))
        var started: [Task<Void, Never>] = []
        // The state subscriptions, which no command waits for. The pointer socket is opened
        // by the first key (its connection while the session opened, when it was opened
        // for one), so a one-shot launch or text never starts a TLS handshake it does not
        // need.
        started.append(Task { [weak self] in await self?.subscribe() })
        if keepAlive > .zero {
            started.append(
                Task { [weak self] in
                    guard let self else { return }
                    guard
                        await KeepAlive.watch(
                            self.main.stream, interval: self.keepAlive, label: "lg", log: self.context.log,
                            isClosed: { [state] in state.withLock { $0.closed } })
                    else { return }
                    self.finish(KeepAlive.silentPeer(after: self.keepAlive))
                    await self.main.close()
                })
        }
        tasks.withLock { $0 = started }
    }

    private func subscribe() async {
        let timeout = context.timeout
        let subscriptions: [(String, @Sendable (JSONValue) -> Void)] = [
            ("com.webos.service.tvpower/power/getPowerState", { [weak self] in self?.powerChanged($0) }),
            ("com.webos.applicationManager/getForegroundAppInfo", { [weak self] in self?.appChanged($0) }),
            ("audio/getVolume", { [weak self] in self?.volumeChanged($0) }),
            ("com.webos.applicationManager/listLaunchPoints", { [weak self] in self?.launchPointsChanged($0) }),
            ("com.webos.media/getForegroundAppInfo", { [weak self] in self?.playbackChanged($0) }),
            (LGSoundOutputs.getURI, { [weak self] in self?.soundOutputChanged($0) }),
        ]
        await withTaskGroup(of: Void.self) { group in
            for (uri, update) in subscriptions {
                group.addTask { [main, context] in
                    do {
                        try await main.subscribe(uri, timeout: timeout, update: update)
                    } catch {
                        context.log.debug("lg: no subscription to \(uri): \(PhotonError.wrap(error).message)")
                    }
                }
            }
        }
    }

    private func powerChanged(_ payload: JSONValue) {
        guard let on = LGState.isOn(payload), let power = LGState.powerState(payload) else { return }
        state.withLock { $0.isOn = on }
        // The detail first: a status that has waited for `power` then has both.
        continuation.yield(.powerState(power.state, reason: power.reason))
        continuation.yield(.power(isOn: on))
    }

    private func appChanged(_ payload: JSONValue) {
        guard let app = LGState.foregroundApp(payload) else { return }
        let fallbackPower = state.withLock { s -> Bool in
            s.app = app
            return s.isOn == nil
        }
        continuation.yield(.currentApp(app))
        // Firmware without the power-state service: an app in front means the TV is on.
        if fallbackPower { continuation.yield(.power(isOn: true)) }
    }

    private func soundOutputChanged(_ payload: JSONValue) {
        guard let output = LGSoundOutputs.current(payload) else { return }
        continuation.yield(.setting(name: SoundOutputName.setting, value: LGSoundOutputs.standardName(ofID: output)))
    }

    private func volumeChanged(_ payload: JSONValue) {
        guard let volume = LGState.volume(payload) else { return }
        state.withLock { $0.volume = volume }
        continuation.yield(.volume(volume))
    }

    private func launchPointsChanged(_ payload: JSONValue) {
        guard let change = LGState.launchPoints(payload) else { return }
        state.withLock { s in
            switch change {
            case .list(let apps): s.apps = apps
            case .added(let app):
                s.apps = (s.apps ?? []).filter { $0.id != app.id } + [app]
            case .removed(let id): s.apps = s.apps?.filter { $0.id != id }
            }
        }
    }

    private func playbackChanged(_ payload: JSONValue) {
        guard let playback = LGState.playback(payload) else { return }
        state.withLock { $0.playing = playback.state == "playing" }
        continuation.yield(.playback(playback))
    }

    private func finish(_ reason: PhotonError?) {
        let first = state.withLock { s -> Bool in
            defer { s.closed = true }
            return !s.closed
        }
        guard first else { return }
        for task in tasks.withLock({ $0 }) { task.cancel() }
        let pointerStream = pointer.withLock { p -> (any MessageStream)? in
            defer { p = nil }
            return p
        }
        if let pointerStream { Task { await pointerStream.close(code: 1000, reason: "") } }
        if let unused = takePreopened() { Task { await Self.discard(unused) } }
        continuation.yield(.disconnected(reason: reason))
        continuation.finish()
    }

    /// Closes both sockets and waits for every task of the session to end, so nothing is
    /// left inside a TLS call when the caller (a one-shot command) exits.
    func close() async {
        let pointerStream = pointer.withLock { p -> (any MessageStream)? in
            defer { p = nil }
            return p
        }
        finish(nil)
        // Both sockets at once: each close waits for the TV's answer to it.
        async let mainClosed: Void = main.close()
        async let pointerClosed: Void? = pointerStream?.close(code: 1000, reason: "")
        async let unusedClosed: Void = Self.discard(takePreopened())
        _ = await (mainClosed, pointerClosed, unusedClosed)
        let tasks = self.tasks.withLock { $0 }
        for task in tasks { task.cancel() }
        // Bounded: a task still inside a read the close did not end (seen once in ~60
        // cold keys: the pointer socket's reader) must not keep a one-shot command from
        // exiting. Two seconds, then the process goes on without it (`withTimeout` would
        // wait for the task to notice its cancellation, which is what is stuck).
        let ended: Void? = try? await waitAtMost(.seconds(2)) { for task in tasks { await task.value } }
        if ended == nil {
            context.log.debug("lg: a session task did not end within 2 s of closing; not waiting for it")
        }
    }

    // MARK: the pointer socket

    /// The pointer socket, opened once per session on the path the TV issues for this
    /// connection: to the TV already connected (never to a host the TV names), with the
    /// main socket's security, never weaker.
    private func pointerSocket() async throws -> any MessageStream {
        if let open = pointer.withLock({ $0 }) { return open }
        return try await pointerGate.withGate {
            if let open = self.pointer.withLock({ $0 }) { return open }
            // The TLS handshake to the TV's port runs while the TV answers the request for
            // the path (or ran while the session opened): the socket is almost always on
            // the main port.
            let connector = self.context.connector
            let endpoint = self.device.endpoint
            let security = self.security
            let timeout = self.context.timeout
            let early =
                self.takePreopened() ?? Task { try await connector.openByteStream(to: endpoint, security: security, timeout: timeout) }
            let socket: (secure: Bool, port: UInt16?, path: String)
            do {
                let reply = try await self.main.request("com.webos.service.networkinput/getPointerInputSocket", timeout: timeout)
                socket = try LGState.pointerSocket(reply)
                guard socket.secure == security.isTLS else {
                    throw PhotonError(
                        .protocolViolation,
                        "the TV offered a \(socket.secure ? "TLS" : "plain") pointer socket on a \(security.isTLS ? "TLS" : "plain") session",
                        hint: "Photon does not downgrade a session's security; check for something between you and the TV")
                }
            } catch {
                if let stream = try? await early.value { await stream.close() }
                throw error
            }
            let target = Endpoint(host: endpoint.host, port: socket.port ?? endpoint.port)
            var stream = try? await early.value
            if target.port != endpoint.port, let unused = stream {
                await unused.close()
                stream = nil
            }
            let request = MessageStreamRequest(
                endpoint: target, target: socket.path, security: security, maxMessageSize: SSAPMessage.maximumPointerSize)
            let channel: any MessageStream
            if let stream {
                do {
                    channel = try await connector.upgradeToMessageStream(stream, request: request, timeout: timeout)
                } catch {
                    await stream.close()
                    throw error
                }
            } else {
                channel = try await connector.openMessageStream(request, timeout: timeout)
            }
            // Stored only while the session is open, in one step with the check: a close
            // in between would otherwise miss it and leave its reader running.
            let stored = self.state.withLock { s -> Bool in
                guard !s.closed else { return false }
                self.pointer.withLock { $0 = channel }
                return true
            }
            guard stored else {
                await channel.close(code: 1000, reason: "")
                throw PhotonError(.connectionClosed, "the session to the TV is closed")
            }
            // The TV sends nothing here; reading answers its pings and notices a close.
            let drain = Task { [weak self] in
                while let frame = try? await channel.receive(timeout: nil) { _ = frame }
                self?.pointer.withLock { p in if p === channel { p = nil } }
            }
            self.tasks.withLock { $0.append(drain) }
            return channel
        }
    }

    private func press(_ button: String) async throws {
        let frame = try LGPointer.button(button)
        let stream = try await pointerSocket()
        try CommandDeadline.checkBeforeSending()
        try await stream.send(.text(frame))
    }

    /// Whether the TV is on: as its subscription last said, else asked now (a fresh
    /// session's first command may come before the subscription's first answer); nil
    /// when the TV has no power-state service.
    private func currentlyOn() async throws -> Bool? {
        if let known = state.withLock({ $0.isOn }) { return known }
        guard let payload = try? await main.request("com.webos.service.tvpower/power/getPowerState", timeout: context.timeout) else { return nil }
        return LGState.isOn(payload)
    }

    /// The app in front, as the TV last reported it.
    var foregroundApp: String? { state.withLock { $0.app } }

    // MARK: commands

    func checkOpen() throws {
        if state.withLock({ $0.closed }) { throw PhotonError(.connectionClosed, "the session to the TV is closed") }
    }

    /// SSAP requests are answered; keys go over the pointer socket, which answers nothing.
    func acknowledges(_ command: RemoteCommand) -> Bool {
        switch command {
        case .text, .launch, .setVolume, .input, .notify, .screen: return true
        case .channel: return true  // tuned with tv/openChannel, which answers
        default: return false
        }
    }

    func sendKey(_ input: KeyInput, _ action: KeyAction) async throws {
        try checkOpen()
        guard action == .press else {
            throw PhotonError.unsupported("LG's pointer socket takes presses only, not \(action.rawValue)", hint: "send the key again for each press")
        }
        try await pressKey(input)
    }

    func type(_ text: String) async throws {
        try checkOpen()
        var text = text
        guard !text.isEmpty, text.utf8.count <= 4096 else { throw PhotonError(.usage, "give 1 to 4096 bytes of text to type") }
        // A trailing newline submits, as the TV keyboard's Enter.
        let submit = text.hasSuffix("\n")
        if submit { text.removeLast() }
        if !text.isEmpty {
            _ = try await request("com.webos.service.ime/insertText", .object([("text", .string(text)), ("replace", 0)]))
        }
        if submit { _ = try await request("com.webos.service.ime/sendEnterKey") }
    }

    func setVolume(_ level: Int) async throws {
        try checkOpen()
        _ = try await request("audio/setVolume", .object([("volume", .int(level))]))
    }

    func request(_ uri: String, _ payload: JSONValue = .object([])) async throws -> JSONValue {
        try CommandDeadline.checkBeforeSending()
        return try await main.request(uri, payload: payload, timeout: context.timeout)
    }

    private func pressKey(_ input: KeyInput) async throws {
        switch input {
        case .key(.power), .key(.powerOff):
            // turnOff toggles on real sets: sent only to a TV that is on (or cannot say).
            guard try await currentlyOn() != false else { return }
            try CommandDeadline.checkBeforeSending()
            try await main.fire("system/turnOff")
        case .key(.powerOn):
            // Only a TV that answers gets here: in Active Standby the socket still takes
            // system/turnOn (from deep standby only Wake-on-LAN wakes it).
            guard try await currentlyOn() == false else { return }
            _ = try await request("system/turnOn")
        case .key(.playPause):
            try await press(state.withLock { $0.playing } == true ? "PAUSE" : "PLAY")
        default:
            try await press(try LGKeys.button(for: input))
        }
    }

    /// An app id through `system.launcher/launch`; an http(s) link through `open`.
    func launch(_ app: String) async throws {
        try checkOpen()
        guard !app.isEmpty, app.utf8.count <= 2048, !app.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            throw PhotonError(.usage, "give an LG app id (youtube.leanback.v4) or an https:// link")
        }
        let lower = app.lowercased()
        if lower.hasPrefix("https://") || lower.hasPrefix("http://") {
            _ = try await request("system.launcher/open", .object([("target", .string(app))]))
        } else {
            do {
                _ = try await request("system.launcher/launch", .object([("id", .string(app))]))
            } catch let error as PhotonError where error.code == .protocolViolation {
                throw PhotonError(
                    .notFound, "the TV could not launch '\(Redaction.sanitize(app))' (\(error.message))",
                    hint: "list the TV's app ids with `photon apps`")
            }
        }
    }

    func installedApps() async throws -> [TVApp] {
        if let apps = state.withLock({ $0.apps }) { return apps }
        let payload = try await main.request("com.webos.applicationManager/listLaunchPoints", timeout: context.timeout)
        guard case .list(let apps)? = LGState.launchPoints(payload) else {
            throw PhotonError(.protocolViolation, "the TV's app list has no launch points")
        }
        state.withLock { $0.apps = apps }
        return apps
    }
}
