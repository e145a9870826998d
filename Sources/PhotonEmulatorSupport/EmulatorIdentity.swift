import Foundation
import PhotonCore
import PhotonCrypto

/// An emulated TV's own TLS identity: made fresh each start, or kept in its state directory
/// (`tv-cert.pem`, `tv-key.pem` 0600) so that a restarted TV presents the same certificate
/// and stays paired — as a real TV does.
public enum EmulatorIdentity {
    /// A self-signed identity under the subject the emulated brand's TVs use: a new
    /// certificate each time, on this process's one RSA-2048 key unless `freshKey` (a
    /// rotated certificate gets a new key, as a reset TV's does). Making a key takes 50 to
    /// 500 ms; a test run or a fleet that starts hundreds of TVs would spend minutes on it.
    public static func selfSigned(subject: [(String, String)], subjectAltNames: [String] = [], freshKey: Bool = false) throws
        -> ClientIdentity
    {
        let key = freshKey ? try RSAKey.generate() : try sharedKey.get()
        let certificate = try Certificate.selfSigned(key: key, subject: subject, subjectAltNames: subjectAltNames)
        return ClientIdentity(certificatePEM: try certificate.pem(), privateKeyPEM: try key.privateKeyPEM())
    }

    /// The process's one key: read from `PHOTON_EMULATOR_KEY_FILE` (an RSA private key in
    /// PEM) when set, so that many emulator processes — a test run starts dozens — skip
    /// making one each; otherwise made on first use.
    private static let sharedKey = Result { () throws -> RSAKey in
        if let path = ProcessInfo.processInfo.environment["PHOTON_EMULATOR_KEY_FILE"], !path.isEmpty {
            guard let pem = try? String(contentsOfFile: path, encoding: .utf8) else {
                throw PhotonError(
                    .usage, "PHOTON_EMULATOR_KEY_FILE names \(path), which cannot be read", hint: "unset it to let the emulator make a key")
            }
            return try RSAKey(pem: pem)
        }
        return try RSAKey.generate()
    }

    /// The identity in `directory`, or one made by `make` (and stored there when given).
    public static func loadOrMake(in directory: URL?, make: () throws -> ClientIdentity) throws -> ClientIdentity {
        guard let directory else { return try make() }
        let certURL = directory.appendingPathComponent("tv-cert.pem")
        let keyURL = directory.appendingPathComponent("tv-key.pem")
        if let cert = try? String(contentsOf: certURL, encoding: .utf8), let key = try? String(contentsOf: keyURL, encoding: .utf8) {
            return ClientIdentity(certificatePEM: cert, privateKeyPEM: key)
        }
        let made = try make()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try made.certificatePEM.write(to: certURL, atomically: true, encoding: .utf8)
        // Created 0600 before a byte of the key is written (never readable by others).
        let fd = open(keyURL.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw PhotonError(.storePermissions, "cannot write \(keyURL.path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        fchmod(fd, 0o600)
        let bytes = Array(made.privateKeyPEM.utf8)
        guard bytes.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) == bytes.count else {
            throw PhotonError(.storePermissions, "cannot write \(keyURL.path)")
        }
        return made
    }
}
