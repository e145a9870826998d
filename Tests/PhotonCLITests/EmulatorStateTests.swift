import Foundation
import PhotonEmulatorSupport
import PhotonTestSupport
import Testing

/// What an emulated TV keeps in its state directory so that it stays paired across
/// restarts: its certificate and the secrets it issued, owner-only.
@Suite struct EmulatorStateTests {
    func mode(_ url: URL) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }

    @Test func theIdentityIsMadeOnceAndKeptOwnerOnly() throws {
        let directory = try TestEnvironment.temporaryDirectory("emulator-state")
        defer { try? FileManager.default.removeItem(at: directory) }
        let made = try EmulatorIdentity.loadOrMake(in: directory) { try EmulatorIdentity.selfSigned(subject: [("CN", "test TV")]) }
        let again = try EmulatorIdentity.loadOrMake(in: directory) { throw TestFailure("a kept identity was made again") }
        #expect(again.certificatePEM == made.certificatePEM)
        #expect(try mode(directory.appendingPathComponent("tv-key.pem")) == 0o600)
        #expect(made.certificatePEM.hasPrefix("-----BEGIN CERTIFICATE-----"))
    }

    @Test func issuedSecretsRoundTripOwnerOnlyWithNoTemporaryLeft() throws {
        let directory = try TestEnvironment.temporaryDirectory("emulator-state")
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(EmulatorIssuedSecrets.load("tokens.txt", in: directory).isEmpty)
        try EmulatorIssuedSecrets.save(["b-token", "a-token"], as: "tokens.txt", in: directory)
        try EmulatorIssuedSecrets.save(["b-token", "a-token", "c-token"], as: "tokens.txt", in: directory)
        #expect(EmulatorIssuedSecrets.load("tokens.txt", in: directory) == ["a-token", "b-token", "c-token"])
        let file = directory.appendingPathComponent("tokens.txt")
        #expect(try String(contentsOf: file, encoding: .utf8) == "a-token\nb-token\nc-token\n")
        #expect(try mode(file) == 0o600)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["tokens.txt"])
        // Without a state directory nothing is kept, and nothing fails.
        try EmulatorIssuedSecrets.save(["x"], as: "tokens.txt", in: nil)
        #expect(EmulatorIssuedSecrets.load("tokens.txt", in: nil).isEmpty)
    }

    @Test func aMissingDirectoryIsAClearError() throws {
        let missing = URL(fileURLWithPath: "/nonexistent-photon-\(UUID().uuidString)")
        #expect(throws: (any Error).self) { try EmulatorIssuedSecrets.save(["x"], as: "tokens.txt", in: missing) }
    }
}
