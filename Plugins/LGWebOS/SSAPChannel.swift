import PhotonCore

/// The main SSAP socket once registered: requests carry numeric ids and their replies are
/// matched by id, each wait bounded; subscriptions hand every update with their id to a
/// handler; frames of other types, or for ids nobody waits for, are dropped. One reader
/// task runs for the life of the channel, and `ended` is called once when it stops.
final class SSAPChannel: Sendable {
    private struct State {
        var nextID = 1
        var pending: [String: Promise<SSAPMessage>] = [:]
        var subscriptions: [String: @Sendable (SSAPMessage) -> Void] = [:]
        var ended: PhotonError?
    }

    let stream: any MessageStream
    let log: PhotonLog
    private let state = Locked(State())
    private let reader = Locked<Task<Void, Never>?>(nil)
    private let sendGate = AsyncGate()

    init(stream: any MessageStream, log: PhotonLog) {
        self.stream = stream
        self.log = log
    }

    /// Starts reading. `ended` gets nil for a clean close by the TV or by us, or the error.
    func start(ended: @escaping @Sendable (PhotonError?) -> Void) {
        let task = Task { [weak self] in
            guard let self else { return }
            let reason = await self.readLoop()
            self.failAll(reason ?? PhotonError(.connectionClosed, "the TV closed the connection"))
            ended(reason)
        }
        reader.withLock { $0 = task }
    }

    private func readLoop() async -> PhotonError? {
        do {
            while let frame = try await stream.receive(timeout: nil) {
                guard case .text(let text) = frame else { continue }
                // A frame that is not a JSON object ends the session (the peer is not
                // speaking SSAP); a well-formed frame of another type is dropped.
                guard let message = try SSAPMessage.parse(text), let id = message.id else { continue }
                let (waiter, handler) = state.withLock { s -> (Promise<SSAPMessage>?, (@Sendable (SSAPMessage) -> Void)?) in
                    (s.pending.removeValue(forKey: id), s.subscriptions[id])
                }
                if let waiter {
                    waiter.succeed(message)
                } else if let handler {
                    handler(message)
                }
            }
            let code = await stream.closeCode
            return code == 1000 || code == 1001
                ? nil : PhotonError(.connectionClosed, "the TV closed the connection (code \(code.map(String.init) ?? "none"))")
        } catch {
            await stream.close(code: 1002, reason: "")
            return PhotonError.wrap(error)
        }
    }

    private func failAll(_ error: PhotonError) {
        let waiters = state.withLock { s -> [Promise<SSAPMessage>] in
            if s.ended == nil { s.ended = error }
            defer {
                s.pending = [:]
                s.subscriptions = [:]
            }
            return Array(s.pending.values)
        }
        for waiter in waiters { waiter.fail(error) }
    }

    private func nextID() throws -> Int {
        try state.withLock { s in
            if let ended = s.ended { throw ended }
            defer { s.nextID += 1 }
            return s.nextID
        }
    }

    private func write(_ text: String) async throws {
        try await sendGate.withGate { try await self.stream.send(.text(text)) }
    }

    /// Sends a request and returns the payload of a successful reply; a failed reply
    /// throws the error it maps to (`unsupported` for 401 and 404).
    func request(_ uri: String, payload: JSONValue = .object([]), timeout: Duration) async throws -> JSONValue {
        let id = try nextID()
        let promise = Promise<SSAPMessage>()
        state.withLock { $0.pending[String(id)] = promise }
        do {
            try await write(SSAPRequest.message(id: id, uri: uri, payload: payload))
            let reply = try await withTimeout(timeout, "waiting for the TV to answer \(uri)") { try await promise.value() }
            if let failure = reply.failure { throw LGErrors.request(uri, failed: failure) }
            return reply.payload
        } catch {
            _ = state.withLock { $0.pending.removeValue(forKey: String(id)) }
            throw error
        }
    }

    /// Sends a request without waiting for its reply (`system/turnOff`, whose reply is
    /// unreliable while the TV shuts down).
    func fire(_ uri: String, payload: JSONValue = .object([])) async throws {
        try await write(SSAPRequest.message(id: try nextID(), uri: uri, payload: payload))
    }

    /// Subscribes to `uri`: `update` gets the first reply's payload and every later one.
    /// Throws what a failed first reply maps to.
    func subscribe(_ uri: String, timeout: Duration, update: @escaping @Sendable (JSONValue) -> Void) async throws {
        let id = try nextID()
        let first = Promise<SSAPMessage>()
        state.withLock { $0.pending[String(id)] = first }
        do {
            try await write(SSAPRequest.message(id: id, type: "subscribe", uri: uri))
            let reply = try await withTimeout(timeout, "waiting for the TV to answer \(uri)") { try await first.value() }
            if let failure = reply.failure { throw LGErrors.request(uri, failed: failure) }
            state.withLock { s in
                s.subscriptions[String(id)] = { message in
                    if message.failure == nil { update(message.payload) }
                }
            }
            update(reply.payload)
        } catch {
            _ = state.withLock { $0.pending.removeValue(forKey: String(id)) }
            throw error
        }
    }

    /// Closes the socket and waits for the reader to stop.
    func close() async {
        await stream.close(code: 1000, reason: "")
        failAll(PhotonError(.connectionClosed, "the session to the TV is closed"))
        if let task = reader.withLock({ $0 }) {
            task.cancel()
            // Bounded: a reader that does not notice (inside a read the close did not
            // end) must not hold up the caller; it ends on its own once the socket is gone.
            let ended: Void? = try? await waitAtMost(.seconds(2)) { await task.value }
            if ended == nil {
                log.debug("lg: the SSAP reader did not end within 2 s of closing; not waiting for it")
            }
        }
    }
}

/// What the TV's error texts mean to a user.
enum LGErrors {
    static func request(_ uri: String, failed text: String) -> PhotonError {
        let shown = Redaction.sanitize(text, limit: 120)
        if text.hasPrefix("401") {
            return PhotonError.unsupported(
                "not available on this pairing: the TV refused \(uri) (\(shown))",
                hint: "LG TVs grant some permissions only to signed apps; Photon's unsigned pairing cannot have them")
        }
        if text.hasPrefix("404") {
            return PhotonError.unsupported("this TV has no \(uri) service (\(shown))")
        }
        return PhotonError(.protocolViolation, "the TV refused \(uri): \(shown)")
    }

    static let stalePairingHint = "pair again with `photon pair` (the TV forgot this remote, or it was removed on the TV)"
}
