import PhotonCore

/// The real network behind PhotonCore's `Connector`: TCP or TLS byte streams, and
/// WebSockets over either. The CLI and daemon inject it into adapters.
public struct NetConnector: Connector {
    public let log: PhotonLog
    /// Where pinned TLS connections keep and find their sessions (nil: every TLS connection
    /// runs a full handshake).
    public let sessions: TLSSessionCache?

    public init(log: PhotonLog = .silent, sessions: TLSSessionCache? = nil) {
        self.log = log
        self.sessions = sessions
    }

    public func openByteStream(to endpoint: Endpoint, security: TransportSecurity, timeout: Duration) async throws
        -> any ByteStream
    {
        switch security {
        case .plain:
            log.debug("TCP connect \(endpoint)")
            return try await SocketStream.connect(host: endpoint.host, port: endpoint.port, timeout: timeout)
        case .tls(let options):
            log.debug("TLS connect \(endpoint)")
            let stream = try await TLSStream.connect(
                host: endpoint.host, port: endpoint.port, options: options, timeout: timeout, sessions: sessions)
            log.debug("TLS established with \(endpoint): \(stream.protocolVersion)\(stream.resumedSession ? ", session resumed" : "")")
            return stream
        }
    }

    public func upgradeToMessageStream(_ stream: any ByteStream, request: MessageStreamRequest, timeout: Duration) async throws
        -> any MessageStream
    {
        try await WebSocketClient.connect(
            over: stream, host: request.endpoint.description, target: request.target, headers: request.headers,
            maxMessageSize: request.maxMessageSize, timeout: timeout, log: log)
    }

    public func openMessageStream(_ request: MessageStreamRequest, timeout: Duration) async throws -> any MessageStream {
        let end = ContinuousClock.now + timeout
        let stream = try await openByteStream(to: request.endpoint, security: request.security, timeout: timeout)
        do {
            return try await WebSocketClient.connect(
                over: stream, host: request.endpoint.description, target: request.target, headers: request.headers,
                maxMessageSize: request.maxMessageSize, timeout: end - ContinuousClock.now, log: log)
        } catch {
            await stream.close()
            throw error
        }
    }
}
