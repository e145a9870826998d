import PhotonCore

/// One controller's TCP connection to an accessory server: requests read from its bytes
/// (plain until pair-verify, encrypted after), answers and events written in order through
/// `write`, the controller it verified as, and the characteristics it subscribed to.
/// The runner feeds `receive` and closes the socket when it throws or `cut` is called.
public final class HAPConnection: Sendable {
    struct State {
        var reader = HAPRequestReader()
        var cipher: HAPSessionCipher?
        var controllerID: String?
        var setup: PairSetupAccessory?
        var verify: PairVerifyAccessory?
        var subscriptions: Set<Int> = []
        var closed = false
    }

    let state = Locked(State())
    unowned let server: HAPAccessoryServer
    let write: @Sendable ([UInt8]) -> Void
    let close: @Sendable () -> Void

    init(server: HAPAccessoryServer, write: @escaping @Sendable ([UInt8]) -> Void, close: @escaping @Sendable () -> Void) {
        self.server = server
        self.write = write
        self.close = close
    }

    /// The controller this connection verified as, once pair-verify succeeded.
    public var controllerID: String? { state.withLock { $0.controllerID } }

    var pendingSetup: PairSetupAccessory? { state.withLock { $0.setup } }
    var pendingVerify: PairVerifyAccessory? { state.withLock { $0.verify } }
    func setup(_ accessory: PairSetupAccessory?) { state.withLock { $0.setup = accessory } }
    func verifying(_ verify: PairVerifyAccessory?) { state.withLock { $0.verify = verify } }

    func isSubscribed(to iid: Int) -> Bool { state.withLock { $0.subscriptions.contains(iid) } }
    func subscribe(_ iid: Int, _ on: Bool) {
        state.withLock { s in
            if on { s.subscriptions.insert(iid) } else { s.subscriptions.remove(iid) }
        }
    }

    /// Bytes from the controller. Throws when the connection must close: a frame that does
    /// not open, a request that cannot be read.
    public func receive(_ bytes: [UInt8]) async throws {
        try state.withLock { s in
            if s.cipher != nil {
                let plain = try s.cipher!.open(bytes)
                s.reader.append(plain)
            } else {
                s.reader.append(bytes)
            }
        }
        while let request = try state.withLock({ try $0.reader.next() }) {
            let answer = await server.answer(request, on: self)
            send(answer)
            switch answer.effect {
            case .startSession(let controller, let secret)?:
                try state.withLock { s in
                    s.cipher = try HAPSessionCipher(accessoryWithSharedSecret: secret)
                    s.controllerID = controller
                }
            case .cut(let ids)?: server.revoke(ids)
            case nil: break
            }
        }
    }

    /// Writes an answer or an event, sealed once the session is encrypted. Sealing and
    /// queueing happen under one lock, so frames leave in counter order.
    func send(_ response: HAPResponse) {
        state.withLock { s in
            guard !s.closed else { return }
            let bytes = response.encoded
            if s.cipher != nil {
                guard let sealed = try? s.cipher!.seal(bytes) else { return }
                write(sealed)
            } else {
                write(bytes)
            }
        }
    }

    /// Ends the connection now (a removed controller, a reset accessory).
    public func cut() {
        let first = state.withLock { s in
            defer { s.closed = true }
            return !s.closed
        }
        if first { close() }
        server.disconnected(self)
    }

    /// The runner saw the socket close.
    public func closed() {
        state.withLock { $0.closed = true }
        server.disconnected(self)
    }
}
