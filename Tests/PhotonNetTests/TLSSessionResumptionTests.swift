import PhotonCore
import PhotonCrypto
import PhotonTestSupport
import Testing

@testable import PhotonNet

/// A pinned TLS connection resumes the last session with the same TV (the cold key's
/// saving), never offers one elsewhere, and never keeps one whose certificate failed the pin.
@Suite(.serialized) struct TLSSessionResumptionTests {
    /// Sessions in memory, as `TLSSessionFiles` keeps them on disk.
    final class MemorySessions: TLSSessionStore, @unchecked Sendable {
        let sessions = Locked<[String: [UInt8]]>([:])
        func session(for key: String) -> [UInt8]? { sessions.withLock { $0[key] } }
        func save(_ session: [UInt8], for key: String) { sessions.withLock { $0[key] = session } }
        func removeSession(for key: String) { sessions.withLock { $0[key] = nil } }
        var all: [String: [UInt8]] { sessions.withLock { $0 } }
    }

    /// Made once for the suite (an RSA key takes a while in a debug build).
    static let tvIdentity = Result { try IdentityFactory.makeClientIdentity(commonName: "tv") }
    static let clientIdentity = Result { try IdentityFactory.makeClientIdentity(commonName: "photon") }
    static let otherClientIdentity = Result { try IdentityFactory.makeClientIdentity(commonName: "someone else") }

    struct Server {
        let listener: TLSListener
        let pin: CertificateFingerprint
        let identity: ClientIdentity

        init(identity: ClientIdentity? = nil, port: UInt16 = 0, maximum: TLSVersion = .tls13) throws {
            let identity = try identity ?? TLSSessionResumptionTests.tvIdentity.get()
            listener = try TLSListener(
                port: port,
                configuration: TLSServerConfiguration(
                    certificatePEM: identity.certificatePEM, privateKeyPEM: identity.privateKeyPEM, maximumVersion: maximum))
            pin = try Certificate(pem: identity.certificatePEM).fingerprint
            self.identity = identity
        }
    }

    /// Connects, reads the byte the server sends (TLS 1.3 sessions arrive after the
    /// handshake, with the first data), closes; returns the client's and the server's views.
    func connect(
        to server: Server, pin: CertificateFingerprint? = nil, client: ClientIdentity? = nil, sessions: TLSSessionCache?,
        maximum: TLSVersion = .tls13
    ) async throws -> (resumed: Bool, peer: CertificateFingerprint?, clientSeenByServer: CertificateFingerprint?) {
        let accepted = Task {
            let stream = try await server.listener.accept()
            try await stream.write([42], timeout: .seconds(5))
            return stream
        }
        let options = TLSClientOptions(identity: client, trust: .pinned(pin ?? server.pin), maximumVersion: maximum)
        do {
            let stream = try await TLSStream.connect(
                host: "127.0.0.1", port: server.listener.port, options: options, timeout: .seconds(5), sessions: sessions)
            let serverSide = try await accepted.value
            #expect(try await readExactly(stream, 1) == [42])
            let result = (stream.resumedSession, stream.peerCertificate?.fingerprint, serverSide.peerCertificate?.fingerprint)
            // Both at once: a graceful close waits for the peer's.
            async let serverClosed: Void = serverSide.close()
            await stream.close()
            await serverClosed
            return result
        } catch {
            accepted.cancel()
            throw error
        }
    }

    @Test(arguments: [TLSVersion.tls13, .tls12])
    func aPinnedConnectionResumesTheLastSessionAsTheSameClient(version: TLSVersion) async throws {
        let server = try Server(maximum: version)
        defer { server.listener.close() }
        let client = try Self.clientIdentity.get()
        let clientPin = try Certificate(pem: client.certificatePEM).fingerprint
        let store = MemorySessions()
        let sessions = TLSSessionCache(store: store)

        let first = try await connect(to: server, client: client, sessions: sessions, maximum: version)
        #expect(!first.resumed)
        #expect(store.all.count == 1, "the pinned connection left no session")

        // A new process: only what the store kept.
        let second = try await connect(to: server, client: client, sessions: TLSSessionCache(store: store), maximum: version)
        #expect(second.resumed, "the stored session was not resumed")
        #expect(second.peer == server.pin, "the resumed session's certificate is the pinned one")
        #expect(second.clientSeenByServer == clientPin, "the server knows the client by its certificate after resumption too")

        // Another client identity has another key: nothing is offered to it.
        let other = try Self.otherClientIdentity.get()
        #expect(try await !connect(to: server, client: other, sessions: sessions, maximum: version).resumed)
    }

    @Test func aFirstContactConnectionNeitherOffersNorKeepsASession() async throws {
        let server = try Server()
        defer { server.listener.close() }
        let store = MemorySessions()
        let sessions = TLSSessionCache(store: store)
        _ = try await connect(to: server, sessions: sessions)
        #expect(store.all.count == 1)
        let accepted = Task {
            let stream = try await server.listener.accept()
            try await stream.write([42], timeout: .seconds(5))
            return stream
        }
        let stream = try await TLSStream.connect(
            host: "127.0.0.1", port: server.listener.port, options: TLSClientOptions(trust: .captureForFirstUse), timeout: .seconds(5),
            sessions: sessions)
        #expect(try await readExactly(stream, 1) == [42])
        #expect(!stream.resumedSession, "an unpinned connection resumed a pinned one's session")
        #expect(store.all.count == 1)
        let serverSide = try await accepted.value
        async let serverClosed: Void = serverSide.close()
        await stream.close()
        await serverClosed
    }

    /// TLS 1.2 hands the session over inside the handshake, before the pin check: a
    /// certificate that fails the check leaves nothing behind.
    @Test func aCertificateThatFailsThePinLeavesNoSession() async throws {
        let server = try Server(maximum: .tls12)
        defer { server.listener.close() }
        let store = MemorySessions()
        let wrongPin = try CertificateFingerprint(bytes: [UInt8](repeating: 7, count: 32))
        await #expect(throws: PhotonError.self) {
            _ = try await connect(to: server, pin: wrongPin, sessions: TLSSessionCache(store: store), maximum: .tls12)
        }
        #expect(store.all.isEmpty, "a session of a certificate that failed its pin was kept")
    }

    /// A TV that cannot resume (restarted, new ticket keys) gets a full handshake, checked
    /// against the pin, and its new session replaces the old one; so does an unreadable one.
    @Test func aRefusedOrUnreadableSessionMeansAFullHandshake() async throws {
        let identity = try Self.tvIdentity.get()
        var server = try Server(identity: identity)
        let port = server.listener.port
        let store = MemorySessions()
        _ = try await connect(to: server, sessions: TLSSessionCache(store: store))
        let before = try #require(store.all.first)

        server.listener.close()
        server = try Server(identity: identity, port: port)
        defer { server.listener.close() }
        let restarted = try await connect(to: server, sessions: TLSSessionCache(store: store))
        #expect(!restarted.resumed)
        #expect(restarted.peer == server.pin)
        #expect(store.all[before.key] != nil && store.all[before.key] != before.value, "the refused session was not replaced")

        store.save([0x30, 0x03, 0x02, 0x01], for: before.key)
        let corrupt = try await connect(to: server, sessions: TLSSessionCache(store: store))
        #expect(!corrupt.resumed)
        #expect(try await connect(to: server, sessions: TLSSessionCache(store: store)).resumed)
    }
}
