import Foundation
import PhotonCore
import PhotonCrypto
import PhotonNet
import PhotonTestSupport
import Testing

/// Our TLS client and server against OpenSSL's own `s_server` and `s_client`.
@Suite(.serialized) struct TLSInteropTests {
    static let tv = Result { try OpenSSLIdentity(subject: "/CN=atvremote\\/test\\/test\\/Emulated TV\\/AA:BB:CC:DD:EE:FF") }
    static let client = Result { try IdentityFactory.makeClientIdentity(commonName: "Photon interop client") }

    func startServer(_ version: String) async throws -> (TestProcess, UInt16) {
        let tv = try Self.tv.get()
        let port = try freePort()
        let server = try TestProcess(
            "/usr/bin/openssl",
            [
                "s_server", "-accept", "127.0.0.1:\(port)", "-cert", tv.certificatePath, "-key", tv.keyPath,
                "-Verify", "1", "-rev", "-naccept", "1", version,
            ])
        try await server.waitFor("ACCEPT")
        return (server, port)
    }

    @Test(arguments: [("-tls1_2", "TLSv1.2"), ("-tls1_3", "TLSv1.3")])
    func clientAgainstOpenSSLServer(flag: String, expected: String) async throws {
        let tv = try Self.tv.get()
        let identity = try Self.client.get()
        let (server, port) = try await startServer(flag)
        defer { server.terminate() }

        let stream = try await TLSStream.connect(
            host: "127.0.0.1", port: port,
            options: TLSClientOptions(identity: identity, trust: .pinned(tv.fingerprint)), timeout: .seconds(10))
        #expect(stream.protocolVersion == expected)
        #expect(stream.peerCertificate?.fingerprint == tv.fingerprint)
        #expect(stream.peerCertificate?.commonName == "atvremote/test/test/Emulated TV/AA:BB:CC:DD:EE:FF")
        #expect(stream.localCertificate?.commonName == "Photon interop client")
        try await stream.write(Array("hello photon\n".utf8))
        let reply = try await readExactly(stream, 13)
        #expect(String(decoding: reply, as: UTF8.self) == "notohp olleh\n")
        await stream.close()
        try await server.waitFor("Peer certificate: CN = Photon interop client")
        #expect((server.standardOutput + server.standardError).contains("Protocol version: \(expected)"))
    }

    @Test func captureForFirstUseReportsTheFingerprint() async throws {
        let tv = try Self.tv.get()
        let (server, port) = try await startServer("-tls1_3")
        defer { server.terminate() }
        let stream = try await TLSStream.connect(
            host: "localhost", port: port,
            options: TLSClientOptions(identity: try Self.client.get(), trust: .captureForFirstUse), timeout: .seconds(10))
        #expect(stream.peerCertificate?.fingerprint == tv.fingerprint)
        #expect(stream.peerCertificate?.rsaModulus?.count == 256)
        await stream.close()
    }

    @Test func wrongPinIsRefusedAndNothingIsSent() async throws {
        let (server, port) = try await startServer("-tls1_3")
        defer { server.terminate() }
        let wrong = try CertificateFingerprint(bytes: [UInt8](repeating: 0xAB, count: 32))
        do {
            _ = try await TLSStream.connect(
                host: "127.0.0.1", port: port,
                options: TLSClientOptions(identity: try Self.client.get(), trust: .pinned(wrong)), timeout: .seconds(10))
            Issue.record("a wrong pin was accepted")
        } catch let error as PhotonError {
            #expect(error.code == .pinMismatch)
            #expect(error.exitCode == 5)
            // Both fingerprints shortened: 8 hex digits each, never the whole pin.
            #expect(!error.message.contains(wrong.description) && !error.message.contains(wrong.compactHex))
            #expect(error.message.contains("SHA256:abababab[REDACTED]"))
            #expect(error.message.filter { $0 == "[" }.count == 2, "\(error.message)")
            #expect(error.hint != nil)
        }
        _ = await server.waitForExit(timeout: .seconds(5))
        // s_server -rev echoes what it receives: it got nothing to echo.
        #expect(!server.standardOutput.contains("hello"))
    }

    @Test func openSSLClientAgainstOurServer() async throws {
        let tvIdentity = try IdentityFactory.makeClientIdentity(commonName: "Our TV")
        let listener = try TLSListener(
            configuration: TLSServerConfiguration(
                certificatePEM: tvIdentity.certificatePEM, privateKeyPEM: tvIdentity.privateKeyPEM))
        defer { listener.close() }
        let openssl = try OpenSSLIdentity(subject: "/CN=openssl-client")
        let client = try TestProcess(
            "/usr/bin/openssl",
            [
                "s_client", "-connect", "127.0.0.1:\(listener.port)", "-cert", openssl.certificatePath, "-key",
                openssl.keyPath, "-quiet", "-no_ign_eof",
            ])
        defer { client.terminate() }
        let stream = try await listener.accept()
        #expect(stream.peerCertificate?.fingerprint == openssl.fingerprint)
        #expect(stream.peerCertificate?.commonName == "openssl-client")
        client.writeToStandardInput("ping from s_client\n")
        let line = try await readExactly(stream, 19)
        #expect(String(decoding: line, as: UTF8.self) == "ping from s_client\n")
        try await stream.write(Array("pong from photon\n".utf8))
        try await client.waitFor("pong from photon")
        await stream.close()
    }

    @Test func serverWithoutClientCertificateStillAccepts() async throws {
        let tvIdentity = try IdentityFactory.makeClientIdentity(commonName: "Our TV")
        let listener = try TLSListener(
            configuration: TLSServerConfiguration(
                certificatePEM: tvIdentity.certificatePEM, privateKeyPEM: tvIdentity.privateKeyPEM))
        defer { listener.close() }
        let client = try TestProcess(
            "/usr/bin/openssl", ["s_client", "-connect", "127.0.0.1:\(listener.port)", "-quiet", "-tls1_2"])
        defer { client.terminate() }
        let stream = try await listener.accept()
        #expect(stream.peerCertificate == nil)
        #expect(stream.protocolVersion == "TLSv1.2")
        await stream.close()
    }
}
