import Foundation
import PhotonCore
import PhotonCrypto

/// An emulated TV's own TLS identity: made fresh each start, or kept in its state directory
/// (`tv-cert.pem`, `tv-key.pem` 0600) so that a restarted TV presents the same certificate
/// and stays paired — as a real TV does.
public enum EmulatorIdentity {
    /// A fresh self-signed identity (RSA-2048) under the subject the emulated brand's TVs use.
    public static func selfSigned(subject: [(String, String)], subjectAltNames: [String] = []) throws -> ClientIdentity {
        let key = try RSAKey.generate()
        let certificate = try Certificate.selfSigned(key: key, subject: subject, subjectAltNames: subjectAltNames)
        return ClientIdentity(certificatePEM: try certificate.pem(), privateKeyPEM: try key.privateKeyPEM())
    }

    /// The identity in `directory`, or one made by `make` (and stored there when given).
    public static func loadOrMake(in directory: URL?, make: () throws -> ClientIdentity) throws -> ClientIdentity {
        guard let directory else { return try make() }
        let certURL = directory.appendingPathComponent("tv-cert.pem"), keyURL = directory.appendingPathComponent("tv-key.pem")
        if let cert = try? String(contentsOf: certURL, encoding: .utf8), let key = try? String(contentsOf: keyURL, encoding: .utf8) {
            return ClientIdentity(certificatePEM: cert, privateKeyPEM: key)
        }
        let made = try make()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try made.certificatePEM.write(to: certURL, atomically: true, encoding: .utf8)
        try made.privateKeyPEM.write(to: keyURL, atomically: true, encoding: .utf8)
        chmod(keyURL.path, 0o600)
        return made
    }
}
