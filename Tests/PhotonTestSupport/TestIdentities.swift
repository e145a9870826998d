import Foundation
import PhotonCore
import PhotonCrypto
import PhotonStore

/// Keys made once per test process. Making an RSA-2048 key takes 50 to 700 ms here; a
/// run that pairs in dozens of fresh homes and starts dozens of emulator processes would
/// spend most of a minute on it.
extension TestEnvironment {
    private static let clientIdentity = Result { try IdentityFactory.makeClientIdentity(commonName: "Photon Remote") }

    /// This process's one client identity, for adapter contexts in tests where which
    /// identity it is does not matter.
    public static var sharedClientIdentity: ClientIdentity { get throws { try clientIdentity.get() } }

    /// A new temporary Photon home that already holds this process's one client
    /// identity, as on a machine where Photon ran before: pairing in it makes no key.
    public static func home(_ label: String = "photon-home") async throws -> URL {
        let url = try temporaryDirectory(label)
        let identity = try clientIdentity.get()
        try await Store(paths: StorePaths(home: url)).update { _, secrets in
            secrets.identity = StoredIdentity(certificatePEM: identity.certificatePEM, privateKeyPEM: identity.privateKeyPEM)
        }
        return url
    }

    /// A private key file for `photon-emulator` (`PHOTON_EMULATOR_KEY_FILE`), made once.
    public static let emulatorKeyFile = Result { () throws -> String in
        let directory = try temporaryDirectory("photon-emulator-key")
        let path = directory.appendingPathComponent("tv-key.pem").path
        try RSAKey.generate().privateKeyPEM().write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o600)
        return path
    }

    /// The environment for an emulator process: this one's, with the shared key.
    public static func emulatorEnvironment() throws -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["PHOTON_EMULATOR_KEY_FILE"] = try emulatorKeyFile.get()
        return environment
    }
}
