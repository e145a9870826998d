import PhotonCore
import PhotonCrypto
import PhotonTestSupport
import Testing

@testable import PhotonNet

/// A TLS server asks for a client certificate only where it keeps clients by it (the
/// emulated TVs); the HTTP door, which knows its clients by their tokens, asks for none, so
/// a phone's work certificate is never sent (round 4, L3).
@Suite(.serialized) struct TLSClientCertificateRequestTests {
    func handshake(requesting: Bool, client: ClientIdentity? = nil) async throws -> CertificateFingerprint? {
        let server = try IdentityFactory.makeClientIdentity(commonName: "server")
        let client = try client ?? IdentityFactory.makeClientIdentity(commonName: "phone with a work certificate")
        var configuration = TLSServerConfiguration(certificatePEM: server.certificatePEM, privateKeyPEM: server.privateKeyPEM)
        configuration.requestsClientCertificate = requesting
        let listener = try TLSListener(configuration: configuration)
        defer { listener.close() }
        let accepted = Task { try await listener.accept() }
        let pin = try Certificate(pem: server.certificatePEM).fingerprint
        let stream = try await TLSStream.connect(
            host: "127.0.0.1", port: listener.port, options: TLSClientOptions(identity: client, trust: .pinned(pin)), timeout: .seconds(5))
        let serverSide = try await accepted.value
        let seen = serverSide.peerCertificate?.fingerprint
        // Both at once: a close waits (up to 2 s) for the other side's close_notify.
        async let clientClosed: Void = stream.close()
        async let serverClosed: Void = serverSide.close()
        _ = await (clientClosed, serverClosed)
        return seen
    }

    @Test func aServerThatDoesNotAskGetsNoClientCertificate() async throws {
        #expect(try await handshake(requesting: true) != nil, "a server that asks got no certificate: the test proves nothing")
        #expect(try await handshake(requesting: false) == nil)
    }

    /// The client's identity is read only when a server asks for it (a resumed handshake
    /// never does, and reading it is ~1.4 ms of a cold key); when it cannot be used, the
    /// handshake fails with that reason and what to do, not with OpenSSL's alert.
    @Test(arguments: ["garbage key", "another identity's key"])
    func anIdentityIsReadOnlyWhenAskedForAndAnUnusableOneSaysSo(damage: String) async throws {
        let good = try IdentityFactory.makeClientIdentity(commonName: "photon")
        let other = try IdentityFactory.makeClientIdentity(commonName: "someone else")
        let key = damage == "garbage key" ? "-----BEGIN PRIVATE KEY-----\nnope\n-----END PRIVATE KEY-----\n" : other.privateKeyPEM
        let damaged = ClientIdentity(certificatePEM: good.certificatePEM, privateKeyPEM: key)
        // Not asked for: never read, so the connection works.
        #expect(try await handshake(requesting: false, client: damaged) == nil)
        do {
            _ = try await handshake(requesting: true, client: damaged)
            Issue.record("a handshake presenting an unusable identity succeeded")
        } catch let error as PhotonError {
            #expect(error.code == .tls)
            #expect(error.message.hasPrefix("the TLS identity is unusable"), "\(error.message)")
            #expect(error.hint?.contains("photon identity regenerate") == true)
        }
        // A good identity is presented when asked (the same server, the same way).
        #expect(try await handshake(requesting: true, client: good) == (try Certificate(pem: good.certificatePEM).fingerprint))
    }
}
