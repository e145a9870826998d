import Foundation
import PhotonCore
import PhotonStore
import PhotonTestSupport
import Testing

@testable import PhotonKit
@testable import PhotonService

/// A token a TV rotates mid-session is stored only over the pairing that session was
/// opened with: never after `forget`, never over a newer pairing.
@Suite struct SecretRotationTests {
    func setUp() async throws -> (Store, SessionFactory, PairedTV) {
        let store = Store(paths: StorePaths(home: try TestEnvironment.temporaryDirectory("photon-rotation")), lockTimeout: .seconds(10))
        let paired = PairedTV(
            device: DeviceRecord(id: "samsung-1", nickname: "tv", brand: "samsung", host: "127.0.0.1", port: 8002),
            secrets: DeviceSecrets(pin: try CertificateFingerprint(bytes: [UInt8](repeating: 1, count: 32)), values: ["token": "old"]))
        try await store.save(paired)
        let factory = SessionFactory(store: store, registry: AdapterRegistry([]), timeout: .seconds(5), log: .silent)
        return (store, factory, paired)
    }

    @Test func aRotationUpdatesTheCurrentPairing() async throws {
        let (store, factory, paired) = try await setUp()
        let context = try await factory.adapterContext(deviceID: paired.device.id)
        var rotated = paired.secrets
        rotated["token"] = "new"
        try await context.secretsChanged(paired.secrets, rotated)
        #expect(try await store.secrets(for: paired.device.id)["token"] == "new")
    }

    @Test func aRotationAfterForgetDoesNotBringTheTVBack() async throws {
        let (store, factory, paired) = try await setUp()
        let context = try await factory.adapterContext(deviceID: paired.device.id)
        _ = try await store.forget("tv")
        var rotated = paired.secrets
        rotated["token"] = "new"
        try await context.secretsChanged(paired.secrets, rotated)
        let snapshot = try await store.snapshot()
        #expect(snapshot.secrets.devices[paired.device.id] == nil)
        #expect(snapshot.devices.devices.isEmpty)
    }

    @Test func aRotationFromAnOldSessionDoesNotOverwriteARepair() async throws {
        let (store, factory, paired) = try await setUp()
        let context = try await factory.adapterContext(deviceID: paired.device.id)
        var repaired = paired
        repaired.secrets = DeviceSecrets(pin: try CertificateFingerprint(bytes: [UInt8](repeating: 2, count: 32)), values: ["token": "fresh"])
        try await store.save(repaired, replacing: true)
        var rotated = paired.secrets
        rotated["token"] = "from-the-old-session"
        try await context.secretsChanged(paired.secrets, rotated)
        #expect(try await store.secrets(for: paired.device.id) == repaired.secrets)
    }
}
