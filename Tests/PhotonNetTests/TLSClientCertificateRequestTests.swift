import PhotonCore
import PhotonCrypto
import PhotonTestSupport
import Testing

@testable import PhotonNet

/// A TLS server asks for a client certificate only where it keeps clients by it (the
/// emulated TVs); the HTTP door, which knows its clients by their tokens, asks for none, so
/// a phone's work certificate is never sent (round 4, L3).
@Suite(.serialized) struct TLSClientCertificateRequestTests {
    func handshake(requesting: Bool) async throws -> CertificateFingerprint? {
        let server = try IdentityFactory.makeClientIdentity(commonName: "server")
        let client = try IdentityFactory.makeClientIdentity(commonName: "phone with a work certificate")
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
        await stream.close()
        await serverSide.close()
        return seen
    }

    @Test func aServerThatDoesNotAskGetsNoClientCertificate() async throws {
        #expect(try await handshake(requesting: true) != nil, "a server that asks got no certificate: the test proves nothing")
        #expect(try await handshake(requesting: false) == nil)
    }
}
