import PhotonCore

/// One direction of an in-memory connection: a bounded-by-use FIFO of items with at most
/// one waiting reader at a time.
final class InMemoryChannel<Item: Sendable>: Sendable {
    private struct State {
        var items: [Item] = []
        var closed = false
        var waiter: CheckedContinuation<Item?, any Error>?
        var waiterID = 0
    }
    private let state = Locked(State())

    func push(_ item: Item) throws {
        let waiter: CheckedContinuation<Item?, any Error>? = try state.withLock { s in
            guard !s.closed else { throw PhotonError(.connectionClosed, "the in-memory peer closed the connection") }
            if let w = s.waiter {
                s.waiter = nil
                return w
            }
            s.items.append(item)
            return nil
        }
        waiter?.resume(returning: item)
    }

    func close() {
        let waiter = state.withLock { s -> CheckedContinuation<Item?, any Error>? in
            s.closed = true
            defer { s.waiter = nil }
            return s.waiter
        }
        waiter?.resume(returning: nil)
    }

    /// The next item, or nil once closed and drained.
    func pop() async throws -> Item? {
        let id = state.withLock { s -> Int in
            s.waiterID += 1
            return s.waiterID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (c: CheckedContinuation<Item?, any Error>) in
                let immediate: Result<Item?, any Error>? = state.withLock { s in
                    if !s.items.isEmpty { return .success(s.items.removeFirst()) }
                    if s.closed { return .success(nil) }
                    if Task.isCancelled { return .failure(CancellationError()) }
                    if s.waiter != nil {
                        return .failure(PhotonError(.internal, "two concurrent reads on one in-memory stream"))
                    }
                    s.waiter = c
                    s.waiterID = id
                    return nil
                }
                if let immediate { c.resume(with: immediate) }
            }
        } onCancel: {
            let w = state.withLock { s -> CheckedContinuation<Item?, any Error>? in
                guard s.waiterID == id, let w = s.waiter else { return nil }
                s.waiter = nil
                return w
            }
            w?.resume(throwing: CancellationError())
        }
    }

    /// Puts an item back at the front (a partial read leaves the rest for later).
    func unshift(_ item: Item) {
        state.withLock { $0.items.insert(item, at: 0) }
    }
}

/// A byte stream with no socket underneath: one end of `InMemoryByteStream.pair()`. Lets
/// adapters and codecs be tested byte by byte without a network.
public final class InMemoryByteStream: ByteStream {
    private let inbound: InMemoryChannel<[UInt8]>
    private let outbound: InMemoryChannel<[UInt8]>
    public let peerCertificate: CertificateInfo?
    public let localCertificate: CertificateInfo?

    init(
        inbound: InMemoryChannel<[UInt8]>, outbound: InMemoryChannel<[UInt8]>, peer: CertificateInfo?,
        local: CertificateInfo?
    ) {
        self.inbound = inbound
        self.outbound = outbound
        self.peerCertificate = peer
        self.localCertificate = local
    }

    /// Two connected ends. `clientSees` is reported as the peer certificate on the first
    /// end, as a TLS server's certificate would be.
    public static func pair(clientSees: CertificateInfo? = nil, serverSees: CertificateInfo? = nil)
        -> (client: InMemoryByteStream, server: InMemoryByteStream)
    {
        let a = InMemoryChannel<[UInt8]>()
        let b = InMemoryChannel<[UInt8]>()
        return (
            InMemoryByteStream(inbound: a, outbound: b, peer: clientSees, local: serverSees),
            InMemoryByteStream(inbound: b, outbound: a, peer: serverSees, local: clientSees)
        )
    }

    public func read(maxLength: Int, timeout: Duration?) async throws -> [UInt8] {
        precondition(maxLength > 0, "maxLength must be positive")
        let chunk: [UInt8]?
        if let timeout {
            chunk = try await withTimeout(timeout, "reading from the TV") { try await self.inbound.pop() }
        } else {
            chunk = try await inbound.pop()
        }
        guard let chunk else { return [] }
        if chunk.count <= maxLength { return chunk }
        inbound.unshift(Array(chunk[maxLength...]))
        return Array(chunk[..<maxLength])
    }

    public func write(_ bytes: [UInt8], timeout: Duration?) async throws {
        guard !bytes.isEmpty else { return }
        try outbound.push(bytes)
    }

    public func close() async {
        inbound.close()
        outbound.close()
    }
}

/// A message stream with no socket underneath, for testing WebSocket-based adapters.
public final class InMemoryMessageStream: MessageStream {
    private let inbound: InMemoryChannel<WebSocketMessage>
    private let outbound: InMemoryChannel<WebSocketMessage>
    /// Shared by both ends: the code of whichever end closed first.
    private let closeState: Locked<UInt16?>
    public let peerCertificate: CertificateInfo?

    init(
        inbound: InMemoryChannel<WebSocketMessage>, outbound: InMemoryChannel<WebSocketMessage>,
        peer: CertificateInfo?, closeState: Locked<UInt16?>
    ) {
        self.inbound = inbound
        self.outbound = outbound
        self.peerCertificate = peer
        self.closeState = closeState
    }

    public static func pair(clientSees: CertificateInfo? = nil) -> (
        client: InMemoryMessageStream, server: InMemoryMessageStream
    ) {
        let a = InMemoryChannel<WebSocketMessage>()
        let b = InMemoryChannel<WebSocketMessage>()
        let shared = Locked<UInt16?>(nil)
        let client = InMemoryMessageStream(inbound: a, outbound: b, peer: clientSees, closeState: shared)
        let server = InMemoryMessageStream(inbound: b, outbound: a, peer: nil, closeState: shared)
        return (client, server)
    }

    public func receive(timeout: Duration?) async throws -> WebSocketMessage? {
        if let timeout {
            return try await withTimeout(timeout, "waiting for a message from the TV") { try await self.inbound.pop() }
        }
        return try await inbound.pop()
    }

    public func send(_ message: WebSocketMessage) async throws { try outbound.push(message) }

    public func close(code: UInt16, reason: String) async {
        closeState.withLock { if $0 == nil { $0 = code } }
        inbound.close()
        outbound.close()
    }

    public var closeCode: UInt16? {
        get async { closeState.withLock { $0 } }
    }
}

/// A `Connector` that hands out in-memory streams from closures supplied by a test.
public struct InMemoryConnector: Connector {
    public typealias ByteStreamFactory = @Sendable (Endpoint, TransportSecurity) async throws -> any ByteStream
    public typealias MessageStreamFactory = @Sendable (MessageStreamRequest) async throws -> any MessageStream
    public typealias UpgradeFactory = @Sendable (any ByteStream, MessageStreamRequest) async throws -> any MessageStream

    private let byteStreams: ByteStreamFactory
    private let messageStreams: MessageStreamFactory
    private let upgrades: UpgradeFactory

    public init(
        byteStreams: @escaping ByteStreamFactory = { endpoint, _ in
            throw PhotonError(.unreachable, "nothing listens at \(endpoint) in this test")
        },
        messageStreams: @escaping MessageStreamFactory = { request in
            throw PhotonError(.unreachable, "nothing listens at \(request.endpoint) in this test")
        },
        upgrades: @escaping UpgradeFactory = { _, request in
            throw PhotonError(.unsupported, "no WebSocket upgrade for \(request.endpoint) in this test")
        }
    ) {
        self.byteStreams = byteStreams
        self.messageStreams = messageStreams
        self.upgrades = upgrades
    }

    public func upgradeToMessageStream(_ stream: any ByteStream, request: MessageStreamRequest, timeout: Duration) async throws
        -> any MessageStream
    {
        try await upgrades(stream, request)
    }

    public func openByteStream(to endpoint: Endpoint, security: TransportSecurity, timeout: Duration) async throws
        -> any ByteStream
    {
        try await byteStreams(endpoint, security)
    }

    public func openMessageStream(_ request: MessageStreamRequest, timeout: Duration) async throws
        -> any MessageStream
    {
        try await messageStreams(request)
    }
}
