import Foundation
import PhotonCore
import PhotonCrypto
import PhotonNet
import PhotonTestSupport

/// A port that was free a moment ago, for peers that need one on their command line.
func freePort() throws -> UInt16 {
    let listener = try TCPListener(host: "127.0.0.1", port: 0)
    defer { listener.close() }
    return listener.port
}

/// A certificate and key written by the `openssl` command.
struct OpenSSLIdentity {
    let certificatePath: String
    let keyPath: String
    let certificatePEM: String
    let keyPEM: String
    let fingerprint: CertificateFingerprint

    init(subject: String) throws {
        let dir = try TestEnvironment.temporaryDirectory()
        certificatePath = dir.appendingPathComponent("cert.pem").path
        keyPath = dir.appendingPathComponent("key.pem").path
        let result = try TestEnvironment.run(
            "/usr/bin/openssl",
            [
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-subj", subject, "-days", "2", "-keyout", keyPath,
                "-out", certificatePath,
            ])
        guard result.status == 0 else { throw TestFailure("openssl req failed: \(result.output)") }
        certificatePEM = try String(contentsOfFile: certificatePath, encoding: .utf8)
        keyPEM = try String(contentsOfFile: keyPath, encoding: .utf8)
        fingerprint = try Certificate(pem: certificatePEM).fingerprint
    }

    var clientIdentity: ClientIdentity { ClientIdentity(certificatePEM: certificatePEM, privateKeyPEM: keyPEM) }
}

/// Writes a ClientIdentity to files so the openssl command can use it.
func writeIdentity(_ identity: ClientIdentity) throws -> (cert: String, key: String) {
    let dir = try TestEnvironment.temporaryDirectory()
    let cert = dir.appendingPathComponent("c.pem").path
    let key = dir.appendingPathComponent("k.pem").path
    try identity.certificatePEM.write(toFile: cert, atomically: true, encoding: .utf8)
    try identity.privateKeyPEM.write(toFile: key, atomically: true, encoding: .utf8)
    return (cert, key)
}

/// Reads until `count` bytes arrived or the stream ends.
func readExactly(_ stream: any ByteStream, _ count: Int, timeout: Duration = .seconds(10)) async throws -> [UInt8] {
    var out: [UInt8] = []
    while out.count < count {
        let chunk = try await stream.read(maxLength: count - out.count, timeout: timeout)
        if chunk.isEmpty { break }
        out += chunk
    }
    return out
}
