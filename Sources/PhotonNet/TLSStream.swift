import COpenSSL
import Foundation
import Glibc
import PhotonCore
import PhotonCrypto

/// A TLS connection over a non-blocking socket, driven by the event loop. OpenSSL calls
/// are made under a lock (an `SSL` object is not thread-safe) that is never held while
/// waiting, so a reader task and a writer task can share the stream.
public final class TLSStream: ByteStream, @unchecked Sendable {
    let socket: Socket
    private let ssl: OpaquePointer
    private let sslLock = NSLock()
    private var closed = false  // guarded by sslLock
    /// Set by OpenSSL's socket reads: the last one returned less than asked for.
    private let lastReadWasShort = UnsafeMutablePointer<Int32>.allocate(capacity: 1)
    /// The socket had nothing more after the last read and OpenSSL holds nothing back:
    /// the next read waits for readiness first instead of a read(2) that would only say
    /// EAGAIN (one system call less per message on a steady connection). Guarded by sslLock.
    private var socketDrained = false
    private let readGate = AsyncGate()
    private let writeGate = AsyncGate()
    private let context: TLSContext
    /// The identity this client connection presents if the server asks for one; kept
    /// alive as long as the `SSL` that points to it.
    private let credentials: TLSClientCredentials?

    public private(set) var peerCertificate: CertificateInfo?
    public var localCertificate: CertificateInfo? { context.localCertificate ?? credentials?.certificateInfo }
    /// The negotiated version, e.g. `TLSv1.3`.
    public private(set) var protocolVersion: String = ""
    /// Whether the handshake resumed a stored session (`TLSSessionCache`).
    public private(set) var resumedSession = false
    /// Where the sessions the TV gives this connection go (pinned client connections with a
    /// cache only); kept alive as long as the `SSL` that points to it.
    private var sessionSink: TLSSessionSink?

    private init(
        socket: Socket, context: TLSContext, server: Bool, serverName: String?, credentials: TLSClientCredentials? = nil
    ) throws {
        guard let ssl = SSL_new(context.pointer) else {
            throw PhotonError(.tls, "cannot create a TLS session: \(OpenSSLError.drain())")
        }
        self.ssl = ssl
        self.socket = socket
        self.context = context
        self.credentials = credentials
        if let credentials {
            SSL_set_ex_data(ssl, TLSClientCredentials.index, Unmanaged.passUnretained(credentials).toOpaque())
        }
        SSL_set_fd(ssl, socket.fd)
        lastReadWasShort.initialize(to: 0)
        photon_SSL_track_short_reads(ssl, lastReadWasShort)
        if server {
            SSL_set_accept_state(ssl)
        } else {
            SSL_set_connect_state(ssl)
            if let serverName, SocketAddress(numericHost: serverName, port: 0) == nil {
                _ = photon_SSL_set_tlsext_host_name(ssl, serverName)
            }
        }
    }

    deinit {
        socket.close()
        SSL_free(ssl)
        lastReadWasShort.deallocate()
    }

    /// Connects to a TV and checks its certificate against `options.trust`. With a pin,
    /// a different certificate fails with `pinMismatch` and nothing is sent. With a pin and
    /// `sessions`, the last session with this TV is offered for resumption, and the one the
    /// TV gives is kept once the certificate has matched.
    public static func connect(
        host: String, port: UInt16, options: TLSClientOptions, timeout: Duration, sessions: TLSSessionCache? = nil
    ) async throws -> TLSStream {
        let end = ContinuousClock.now + timeout
        let socket = try await Socket.connect(host: host, port: port, timeout: timeout)
        PhaseTimer.mark("tcp connected")
        await NetworkWarmUp.finished()
        let stream: TLSStream
        do {
            let context = try TLSContext.client(minimum: options.minimumVersion, maximum: options.maximumVersion)
            PhaseTimer.mark("tls context ready (warm-up awaited)")
            stream = try TLSStream(
                socket: socket, context: context, server: false, serverName: options.serverName,
                credentials: options.identity.map(TLSClientCredentials.of))
        } catch {
            socket.close()
            throw error
        }
        var offered = false
        if let sessions, case .pinned(let pin) = options.trust {
            offered = stream.offerSession(from: sessions, key: TLSSessionCache.key(host: host, port: port, pin: pin, identity: options.identity))
        }
        do {
            try await stream.handshake(deadline: end, peerDescription: Endpoint(host: host, port: port).description)
        } catch let error where offered {
            // A TV that cannot resume should answer with a full handshake; one that drops
            // the connection instead gets one more try, without the session (now forgotten).
            stream.sessionSink?.peerRejected()
            let remaining = end - ContinuousClock.now
            guard remaining > .zero else { throw error }
            return try await connect(host: host, port: port, options: options, timeout: remaining, sessions: sessions)
        }
        PhaseTimer.mark("tls handshake")
        if case .pinned(let expected) = options.trust {
            guard let seen = stream.peerCertificate?.fingerprint, seen == expected else {
                stream.sessionSink?.peerRejected()
                await stream.close()
                // Both shortened, as in diagnostic reports: enough to tell them apart,
                // not the whole stored pin in every log and terminal scrollback.
                let seenText = stream.peerCertificate.map { "SHA256:" + $0.fingerprint.redacted } ?? "none"
                throw PhotonError(
                    .pinMismatch,
                    "the TV's certificate changed since pairing (pinned SHA256:\(expected.redacted), now \(seenText))",
                    hint: "if the TV was reset or updated, pair it again; otherwise something may be impersonating it")
            }
            stream.sessionSink?.peerVerified()
        }
        return stream
    }

    /// Hangs a session sink on this connection and offers the stored session, if any;
    /// returns whether one was offered.
    private func offerSession(from sessions: TLSSessionCache, key: String) -> Bool {
        let sink = TLSSessionSink(cache: sessions, key: key)
        sessionSink = sink
        return sslLock.withLock {
            SSL_set_ex_data(ssl, TLSContext.sessionSinkIndex, Unmanaged.passUnretained(sink).toOpaque())
            guard let session = sessions.resumableSession(for: key) else { return false }
            defer { SSL_SESSION_free(session) }
            return SSL_set_session(ssl, session) == 1
        }
    }

    /// Runs the server side of the handshake on an accepted socket.
    static func accept(socket: Socket, context: TLSContext, timeout: Duration) async throws -> TLSStream {
        let stream = try TLSStream(socket: socket, context: context, server: true, serverName: nil)
        try await stream.handshake(deadline: ContinuousClock.now + timeout, peerDescription: "client")
        // A resumed session skips the certificate check: a client refused since (a TV that
        // forgot it) is refused now, as a full handshake would have.
        if stream.resumedSession, !context.acceptsClient(stream.peerCertificate?.fingerprint) {
            await stream.close()
            throw PhotonError(.tls, "the client's certificate is no longer accepted")
        }
        return stream
    }

    private enum Step<R> {
        case done(R)
        case wait(EventLoop.Interest)
        case eof
        case failure(PhotonError)
    }

    /// Calls `operation` under the lock until it completes, parking on the event loop
    /// for WANT_READ/WANT_WRITE.
    private func drive<R>(
        deadline: ContinuousClock.Instant?, what: String, _ operation: (OpaquePointer) -> (Int32, R)
    ) async throws -> R? {
        while true {
            let step: Step<R> = sslLock.withLock {
                if closed { return .failure(PhotonError(.connectionClosed, "the connection was closed")) }
                ERR_clear_error()
                errno = 0
                // OpenSSL reads and writes the descriptor's number: only while it is open,
                // under its lock, so a closed connection's number reused by another file can
                // never be read from or written to (nor block a cooperative thread).
                guard let (rc, value) = socket.withOpenDescriptor({ _ in operation(ssl) }) else {
                    return .failure(PhotonError(.connectionClosed, "the connection was closed"))
                }
                if rc == 1 { return .done(value) }
                let code = SSL_get_error(ssl, rc)
                let sysErrno = errno
                switch code {
                case SSL_ERROR_WANT_READ: return .wait(.read)
                case SSL_ERROR_WANT_WRITE: return .wait(.write)
                case SSL_ERROR_ZERO_RETURN: return .eof
                case SSL_ERROR_SYSCALL:
                    let detail = OpenSSLError.drain()
                    if sysErrno == 0 || sysErrno == ECONNRESET || sysErrno == EPIPE { return .eof }
                    return .failure(
                        PhotonError(.connectionClosed, "\(what) failed: \(detail.isEmpty ? errnoText(sysErrno) : detail)"))
                default:
                    return .failure(PhotonError(.tls, "\(what) failed: \(OpenSSLError.drain())"))
                }
            }
            switch step {
            case .done(let value): return value
            case .eof: return nil
            case .failure(let error): throw error
            case .wait(let interest): try await wait(for: interest, deadline: deadline, what: what)
            }
        }
    }

    private func wait(for interest: EventLoop.Interest, deadline: ContinuousClock.Instant?, what: String) async throws {
        do {
            try await socket.wait(for: interest, deadline: deadline)
        } catch let error as PhotonError where error.code == .timeout {
            throw PhotonError(.timeout, "\(what) timed out", hint: "check that the TV is on and answering, or raise --timeout")
        }
    }

    private func handshake(deadline: ContinuousClock.Instant, peerDescription: String) async throws {
        let completed: Bool?
        do {
            completed = try await drive(deadline: deadline, what: "the TLS handshake with \(peerDescription)") {
                (SSL_do_handshake($0), true)
            }
        } catch let error as PhotonError {
            await close()
            // The server asked for our certificate and it could not be read: that, not
            // the handshake's own alert, is what the user can act on.
            if let unusable = credentials?.failure { throw unusable }
            if error.code == .tls {
                throw PhotonError(
                    .tls, error.message,
                    hint: "the TV refused the secure connection: if it was paired before, pair it again")
            }
            throw error
        }
        guard completed != nil else {
            await close()
            throw PhotonError(
                .connectionClosed, "\(peerDescription) closed the connection during the TLS handshake",
                hint: "a TV does this when it no longer accepts this client's certificate: pair it again")
        }
        sslLock.withLock {
            if let peer = SSL_get1_peer_certificate(ssl) {
                peerCertificate = Certificate(takingOwnershipOf: peer).info
            }
            protocolVersion = String(cString: photon_SSL_get_version(ssl))
            resumedSession = SSL_session_reused(ssl) == 1
        }
    }

    /// Tasks that wait on this stream run best on the event loop's thread.
    public var preferredExecutor: (any TaskExecutor)? { EventLoop.shared }

    public func allowBatchedReadiness() { EventLoop.shared.batchReadiness(socket.registration) }

    public func read(maxLength: Int, timeout: Duration?) async throws -> [UInt8] {
        let end = deadline(after: timeout)
        return try await readGate.withGate {
            let what = "reading from the TV"
            let drained = sslLock.withLock { () -> Bool in
                defer { socketDrained = false }
                return socketDrained
            }
            if drained { try await wait(for: .read, deadline: end, what: what) }
            let bytes: [UInt8]? = try await drive(deadline: end, what: what) { ssl in
                var rc: Int32 = 0
                let bytes = ReadScratch.read(maxLength: maxLength) { buffer in
                    var n = 0
                    rc = SSL_read_ex(ssl, buffer.baseAddress, buffer.count, &n)
                    return rc == 1 ? n : 0
                }
                if rc == 1 { socketDrained = lastReadWasShort.pointee == 1 && SSL_has_pending(ssl) == 0 }
                return (rc, bytes)
            }
            return bytes ?? []
        }
    }

    public func write(_ bytes: [UInt8], timeout: Duration?) async throws {
        guard !bytes.isEmpty else { return }
        let end = deadline(after: timeout)
        try await writeGate.withGate {
            var offset = 0
            while offset < bytes.count {
                let written: Int? = try await drive(deadline: end, what: "writing to the TV") { ssl in
                    var n = 0
                    let rc = bytes.withUnsafeBytes {
                        SSL_write_ex(ssl, $0.baseAddress! + offset, $0.count - offset, &n)
                    }
                    return (rc, n)
                }
                guard let written else {
                    throw PhotonError(.connectionClosed, "the TV closed the connection")
                }
                offset += written
            }
        }
    }

    /// Sends close_notify, shuts down writing and drains the TV's replies until it
    /// closes (bounded), then closes the socket.
    public func close() async {
        // nil: someone else is already closing; leave the socket to them.
        let established = sslLock.withLock { () -> Bool? in
            guard !closed else { return nil }
            closed = true
            ERR_clear_error()
            let finished = SSL_is_init_finished(ssl) == 1
            if finished { _ = SSL_shutdown(ssl) }
            ERR_clear_error()
            return finished
        }
        switch established {
        case false?: socket.close()
        // Established, or another task is closing: wait for the graceful close, so no
        // caller returns (and no process exits) while the TV's last replies are unread.
        case true?, nil: await socket.closeGracefully()
        }
    }
}

/// Configuration of a TLS server (emulated TVs, tests).
public struct TLSServerConfiguration: Sendable {
    public var certificatePEM: String
    public var privateKeyPEM: String
    public var minimumVersion: TLSVersion
    public var maximumVersion: TLSVersion
    public var handshakeTimeout: Duration
    /// Decides, during the handshake, whether a client certificate is accepted (nil: any,
    /// or none, reported on the stream). One it refuses ends the handshake with a TLS
    /// alert, as a TV that no longer knows a client does.
    public var acceptsClient: (@Sendable (CertificateFingerprint) -> Bool)?
    /// Whether the handshake asks the client for a certificate (emulated TVs keep their
    /// paired clients by it); false for a server that authenticates clients otherwise.
    public var requestsClientCertificate = true

    public init(
        certificatePEM: String, privateKeyPEM: String, minimumVersion: TLSVersion = .tls12,
        maximumVersion: TLSVersion = .tls13, handshakeTimeout: Duration = .seconds(10)
    ) {
        self.certificatePEM = certificatePEM
        self.privateKeyPEM = privateKeyPEM
        self.minimumVersion = minimumVersion
        self.maximumVersion = maximumVersion
        self.handshakeTimeout = handshakeTimeout
    }
}

/// A TLS listener. It asks every client for a certificate and accepts any (or none),
/// reporting it on the stream, so an emulated TV can keep its own paired list.
public final class TLSListener: Sendable {
    public let tcp: TCPListener
    private let context: TLSContext
    private let handshakeTimeout: Duration

    public init(host: String = "127.0.0.1", port: UInt16 = 0, configuration: TLSServerConfiguration) throws {
        context = try TLSContext.make(
            server: true, certificatePEM: configuration.certificatePEM, privateKeyPEM: configuration.privateKeyPEM,
            minimum: configuration.minimumVersion, maximum: configuration.maximumVersion,
            requestsClientCertificate: configuration.requestsClientCertificate)
        if let accepts = configuration.acceptsClient { context.filterClients(accepts) }
        tcp = try TCPListener(host: host, port: port)
        handshakeTimeout = configuration.handshakeTimeout
    }

    public var port: UInt16 { tcp.port }

    /// Accepts the next connection and completes its handshake. A failed handshake throws
    /// (`tls`, `timeout`, `connectionClosed`); the listener stays usable.
    public func accept() async throws -> TLSStream {
        let (socket, _) = try await tcp.acceptSocket()
        return try await TLSStream.accept(socket: socket, context: context, timeout: handshakeTimeout)
    }

    /// Accepts the next raw TCP connection; call `handshake` on it (lets a server run
    /// handshakes concurrently instead of one after another).
    public func acceptPending() async throws -> PendingTLSConnection {
        let (socket, peer) = try await tcp.acceptSocket()
        return PendingTLSConnection(socket: socket, context: context, timeout: handshakeTimeout, peerAddress: peer)
    }

    public func close() { tcp.close() }
}

/// An accepted connection whose TLS handshake has not run yet.
public struct PendingTLSConnection: Sendable {
    let socket: Socket
    let context: TLSContext
    let timeout: Duration
    /// Who connected.
    public let peerAddress: SocketAddress?

    /// Closes the connection without a handshake (a server that is full).
    public func abort() { socket.close() }

    public func handshake() async throws -> TLSStream {
        try await TLSStream.accept(socket: socket, context: context, timeout: timeout)
    }
}
