import AndroidKeys
import Foundation
import PhotonCore

/// A live remote-control session on the remote port (protocol notes §7): the configure /
/// set-active handshake with feature negotiation, pings answered, an idle limit, and
/// the TV's power, volume and current-app reports as `TVEvent`s.
final class AndroidTVSession: KeySending, TextTyping, AppLaunching, VoiceQuerying, ExplainsCapabilities {
    private struct State {
        var imeCounter: Int32 = 0
        var fieldCounter: Int32 = 0
        var voiceWaiter: Promise<Int32>?
        var closed = false
    }

    let framed: FramedStream
    let tvFeatures: RemoteFeatures
    let active: RemoteFeatures
    let capabilities: Capabilities
    var catalogIDs: [String: [String]] { AndroidTVAdapter.appCatalogIDs }
    let events: AsyncStream<TVEvent>
    let tvInfo: RemoteDeviceInfo?
    private let continuation: AsyncStream<TVEvent>.Continuation
    private let state = Locked(State())
    private let log: PhotonLog
    private let timeout: Duration
    private let tasks = Locked<[Task<Void, Never>]>([])

    /// Nothing at all for this long closes the session (the TV pings every ~5 s).
    static let defaultIdleLimit: Duration = .seconds(16)
    let idleLimit: Duration

    private init(
        framed: FramedStream, tvFeatures: RemoteFeatures, active: RemoteFeatures, tvInfo: RemoteDeviceInfo?, context: AdapterContext,
        idleLimit: Duration
    ) {
        self.idleLimit = idleLimit
        self.framed = framed
        self.tvFeatures = tvFeatures
        self.active = active
        self.tvInfo = tvInfo
        self.log = context.log
        self.timeout = context.timeout
        capabilities = Self.capabilities(for: active)
        (events, continuation) = AsyncStream.makeStream(of: TVEvent.self, bufferingPolicy: .bufferingNewest(256))
    }

    static func capabilities(for features: RemoteFeatures) -> Capabilities {
        var set: Set<Capability> = [.wakeOnLAN]
        if features.contains(.key) { set.formUnion([.keys, .longPress, .inputs]) }
        if features.contains(.ime) { set.formUnion([.text, .currentApp]) }
        if features.contains(.appLink) { set.insert(.appLaunch) }
        if features.contains(.volume) { set.insert(.volumeState) }
        if features.contains(.power) { set.insert(.powerState) }
        if features.contains(.voice) { set.insert(.voice) }
        return Capabilities(set)
    }

    /// Connects with the stored pin and client identity and runs the handshake.
    static func open(
        device: DeviceRecord, secrets: DeviceSecrets, context: AdapterContext, wanted: RemoteFeatures,
        idleLimit: Duration = defaultIdleLimit
    ) async throws
        -> AndroidTVSession
    {
        guard let pin = secrets.pin else {
            throw PhotonError(.notPaired, "\(device.nickname) has no stored certificate pin", hint: "pair it again with `photon pair`")
        }
        let options = TLSClientOptions(identity: context.clientIdentity, trust: .pinned(pin))
        let stream: any ByteStream
        do {
            stream = try await context.connector.openByteStream(to: device.endpoint, security: .tls(options), timeout: context.timeout)
        } catch let error as PhotonError where error.code == .tls {
            // A TLS alert is the TV refusing this client's certificate.
            throw pairAgain(device, detail: error.message)
        } catch let error as PhotonError where error.code == .connectionClosed {
            // A bare close is what a network fault looks like too: not a refusal.
            throw cutShort(device, error)
        }
        let framed = FramedStream(stream)
        do {
            // The TV speaks first: remote_configure with its feature mask. A close here
            // is how a TV refuses a client certificate it no longer trusts.
            let first: [UInt8]?
            do {
                first = try await framed.receive(timeout: context.timeout)
            } catch let error as PhotonError where error.code == .tls {
                throw pairAgain(device, detail: error.message)
            } catch let error as PhotonError where error.code == .connectionClosed {
                throw cutShort(device, error)
            }
            guard let first else {
                throw cutShort(device, PhotonError(.connectionClosed, "the TV closed the connection before configuring"))
            }
            guard case .configure(let tvMask, let info) = try RemoteMessage.decode(first) else {
                throw PhotonError(.protocolViolation, "the TV did not start with remote_configure")
            }
            let tvFeatures = RemoteFeatures(rawValue: tvMask)
            let requested = tvFeatures.intersection(wanted)
            context.log.debug("remote: TV features \(tvMask), requesting \(requested.rawValue)")
            let ours = RemoteDeviceInfo(
                model: "Photon", vendor: "Photon", platform: 1, osVersion: "Linux", packageName: "photon", appVersion: "0.1.0")
            try await framed.send(RemoteMessage.configure(features: requested.rawValue, device: ours).encoded())
            // Wait for the TV's set_active (answering pings that may come first).
            while true {
                guard let bytes = try await framed.receive(timeout: context.timeout) else {
                    throw cutShort(device, PhotonError(.connectionClosed, "the TV closed the connection during the handshake"))
                }
                let message = try RemoteMessage.decode(bytes)
                if case .pingRequest(let v1, _) = message {
                    try await framed.send(RemoteMessage.pingResponse(val1: v1).encoded())
                    continue
                }
                guard case .setActive = message else { continue }
                break
            }
            try await framed.send(RemoteMessage.setActive(features: requested.rawValue).encoded())
            let session = AndroidTVSession(
                framed: framed, tvFeatures: tvFeatures, active: requested, tvInfo: info, context: context, idleLimit: idleLimit)
            session.start()
            return session
        } catch {
            await framed.close()
            throw error
        }
    }

    /// A connection that ended without the TV saying why (no TLS alert): a network fault,
    /// or a TV restarting — retried, never taken for a refusal. Only a TV's explicit
    /// refusal (an alert) ends retries.
    static func cutShort(_ device: DeviceRecord, _ error: PhotonError) -> PhotonError {
        PhotonError(
            .connectionClosed, "\(device.nickname) closed the connection before the session was set up (\(error.message))",
            hint: "usually the network or a TV restarting; if it happens every time, the TV may have forgotten this client: pair again")
    }

    static func pairAgain(_ device: DeviceRecord, detail: String) -> PhotonError {
        PhotonError(
            .authenticationRefused, "\(device.nickname) no longer accepts this client (\(detail))",
            hint:
                "pair again with `photon pair \(device.host)`; if that loops, clear the storage of the TV's Android TV Remote Service app and restart the TV"
        )
    }

    private func start() {
        if let info = tvInfo {
            continuation.yield(
                .deviceInfo(
                    model: info.model.isEmpty ? nil : info.model, vendor: info.vendor.isEmpty ? nil : info.vendor,
                    version: info.appVersion.isEmpty ? nil : info.appVersion))
        }
        // The reader prefers the stream's executor (the event loop's thread for sockets):
        // a ping is read and answered where its readiness is seen, with no thread woken.
        // Nothing the TV sends needs an instant answer (a ping may wait seconds), so its
        // readiness may be batched with other sessions'.
        framed.stream.allowBatchedReadiness()
        let reader = Task(executorPreference: framed.stream.preferredExecutor) { [weak self] in
            guard let self else { return }
            await self.readLoop()
        }
        tasks.withLock { $0 = [reader] }
    }

    /// Reads until the TV closes, fails, or is silent for the idle limit. The limit is
    /// the read's own deadline (kept by the event loop), not a timer task per session.
    private func readLoop() async {
        var reason: PhotonError?
        do {
            while true {
                guard let bytes = try await framed.receive(timeout: idleLimit) else {
                    reason = PhotonError(.connectionClosed, "the TV closed the connection")
                    break
                }
                try await handle(try RemoteMessage.decode(bytes))
            }
        } catch let error as PhotonError where error.code == .timeout {
            log.debug("remote: nothing from the TV for \(Int(idleLimit.seconds)) s; closing")
            reason = PhotonError(.timeout, "the TV stopped answering (nothing for \(String(format: "%.1f", idleLimit.seconds)) s)")
        } catch {
            reason = PhotonError.wrap(error)
        }
        await finish(reason)
    }

    private func handle(_ message: RemoteMessage) async throws {
        switch message {
        case .pingRequest(let v1, _):
            try await framed.send(RemoteMessage.pingResponse(val1: v1).encoded())
        case .start(let started):
            // A TV that answers with its screen off is in network standby (newcomer #34:
            // "power: off" read as unreachable).
            continuation.yield(.powerState(started ? .on : .standby, reason: nil))
            continuation.yield(.power(isOn: started))
        case .setVolumeLevel(let v):
            if v.maximum > 0 { continuation.yield(.volume(VolumeState(level: v.level, maximum: v.maximum, muted: v.muted))) }
        case .imeKeyInject(let package, _):
            if let package, !package.isEmpty { continuation.yield(.currentApp(Redaction.sanitize(package, limit: 200))) }
        case .imeBatchEdit(let ime, let field, _):
            state.withLock {
                $0.imeCounter = ime
                $0.fieldCounter = field
            }
        case .voiceBegin(let id, _):
            takeVoiceWaiter()?.succeed(id)
        case .error(let value, _):
            log.debug("remote: the TV reported error \(value) for a message it could not process")
        default:
            break
        }
    }

    /// Removes and returns whoever waits for the TV's voice_begin (resumed exactly once).
    private func takeVoiceWaiter() -> Promise<Int32>? {
        state.withLock { s in
            defer { s.voiceWaiter = nil }
            return s.voiceWaiter
        }
    }

    private func finish(_ reason: PhotonError?) async {
        let first = state.withLock { s -> Bool in
            defer { s.closed = true }
            return !s.closed
        }
        guard first else { return }
        takeVoiceWaiter()?.fail(reason ?? PhotonError(.connectionClosed, "the session closed"))
        continuation.yield(.disconnected(reason: reason))
        continuation.finish()
        await framed.close()
    }

    func close() async {
        for task in tasks.withLock({ $0 }) { task.cancel() }
        await framed.close()
        await finish(nil)
    }

    // MARK: commands

    private func checkOpen() throws {
        if state.withLock({ $0.closed }) {
            throw PhotonError(.connectionClosed, "the session to the TV is closed", hint: "run the command again")
        }
    }

    func sendKey(_ input: KeyInput, _ action: KeyAction) async throws {
        try checkOpen()
        let code = try AndroidKeyCodes.resolve(input)
        let direction: RemoteKeyDirection = action == .press ? .short : (action == .holdStart ? .startLong : .endLong)
        try await framed.send(RemoteMessage.keyInject(code: code, direction: direction).encoded())
    }

    func type(_ text: String) async throws {
        try checkOpen()
        guard !text.isEmpty else { throw PhotonError(.usage, "there is no text to type") }
        let (ime, field) = state.withLock { ($0.imeCounter, $0.fieldCounter) }
        try await framed.send(RemoteMessage.imeBatchEdit(imeCounter: ime, fieldCounter: field, text: text).encoded())
    }

    func launch(_ link: String) async throws {
        try checkOpen()
        guard !link.isEmpty else { throw PhotonError(.usage, "give an app link, e.g. https://www.youtube.com") }
        try await framed.send(RemoteMessage.appLinkLaunch(link).encoded())
    }

    func sendVoice(pcm: [UInt8], sampleRate: Int) async throws {
        try checkOpen()
        try await sendVoice(pcm, sampleRate: sampleRate)
    }

    /// The TV's feature mask, in the words the core's capability check gives.
    func whyUnavailable(_ capability: Capability) -> PhotonError? {
        switch capability {
        case .keys, .longPress, .inputs:
            return PhotonError.unsupported(
                "this TV does not accept keys right now (its feature mask \(tvFeatures.rawValue) lacks KEY)",
                hint: "clear the storage of the TV's Android TV Remote Service app (Settings → Apps → system apps), restart the TV, then pair again")
        case .text: return PhotonError.unsupported("this TV did not enable text input (IME) for this session")
        case .appLaunch:
            return PhotonError.unsupported(
                "this TV does not accept app links (its feature mask \(tvFeatures.rawValue) lacks APP_LINK)",
                hint: "update the TV's Android TV Remote Service")
        case .voice: return PhotonError.unsupported("this TV does not offer voice input to remote apps")
        case .search:
            return PhotonError.unsupported(
                "Android TV Remote v2 has no search request", hint: "use `photon voice`, or `photon key TV search` then `photon text`")
        case .volumeSet: return PhotonError.unsupported("Android TV Remote v2 takes volume steps only", hint: "use `photon volume TV up` or `down`")
        case .inputList:
            return PhotonError.unsupported(
                "Android TV Remote v2 cannot list a TV's inputs",
                hint: "switch with a standard name: \(InputName.standardNames.joined(separator: ", "))")
        default: return nil
        }
    }

    /// Voice (protocol notes §8): KEYCODE_SEARCH, the TV's voice_begin, our echo, PCM in
    /// 8–20 KiB chunks (the last padded with silence), then voice_end.
    private func sendVoice(_ pcm: [UInt8], sampleRate: Int) async throws {
        guard !pcm.isEmpty else { throw PhotonError(.usage, "the voice recording is empty") }
        let sessionID = try await beginVoice(sampleRate: sampleRate)
        for chunk in VoiceChunker.chunks(of: pcm) {
            try await framed.send(RemoteMessage.voicePayload(sessionID: sessionID, samples: chunk).encoded())
        }
        try await framed.send(RemoteMessage.voiceEnd(sessionID: sessionID).encoded())
    }

    /// Streams audio while it is recorded: the voice session opens at once, each 20 KiB
    /// goes as soon as it is there, and the rest when the recording ends. The command's
    /// lifetime bounds its start; the words that follow may take the recording's length.
    func sendVoice(live audio: LiveAudio) async throws {
        try checkOpen()
        let sessionID = try await beginVoice(sampleRate: audio.sampleRate)
        try await CommandDeadline.$expiresAt.withValue(nil) {
            var chunker = VoiceChunker()
            for await block in audio.blocks {
                for chunk in chunker.append(block) {
                    try await framed.send(RemoteMessage.voicePayload(sessionID: sessionID, samples: chunk).encoded())
                }
            }
            guard chunker.received > 0 else {
                // Nothing was said: close the TV's voice session without audio.
                try await framed.send(RemoteMessage.voiceEnd(sessionID: sessionID).encoded())
                throw PhotonError(.usage, "the voice recording is empty")
            }
            for chunk in chunker.finish() {
                try await framed.send(RemoteMessage.voicePayload(sessionID: sessionID, samples: chunk).encoded())
            }
            try await framed.send(RemoteMessage.voiceEnd(sessionID: sessionID).encoded())
        }
    }

    /// Asks the TV for a voice session (the SEARCH key) and answers its voice_begin.
    private func beginVoice(sampleRate: Int) async throws -> Int32 {
        guard sampleRate == 8000 else {
            throw PhotonError(.usage, "voice audio must be 8 kHz 16-bit mono PCM, not \(sampleRate) Hz")
        }
        let begin = Promise<Int32>()
        state.withLock { $0.voiceWaiter = begin }
        try await framed.send(RemoteMessage.keyInject(code: 84, direction: .short).encoded())
        let sessionID: Int32
        do {
            // The command's network wait, as for any answer: a busy TV (or a loaded machine
            // running an emulated one) can take seconds to open its microphone.
            sessionID = try await withTimeout(timeout, "waiting for the TV to start voice input") { try await begin.value() }
        } catch let error as PhotonError where error.code == .timeout {
            _ = takeVoiceWaiter()
            throw PhotonError.unsupported("the TV did not start a voice session", hint: "its assistant may be off or unavailable")
        }
        try await framed.send(RemoteMessage.voiceBegin(sessionID: sessionID, packageName: nil).encoded())
        return sessionID
    }
}
