import Foundation
import PhotonConformance
import PhotonCore
import PhotonEmulatorPlugins
import PhotonEmulatorSupport
import PhotonKit
import PhotonPlugins
import PhotonStore
import PhotonTestSupport
import Testing

@testable import PhotonService

/// Every brand's emulated TV behind `photon serve --homekit`'s door, driven by aiohomekit
/// 4.0.1: it pairs and verifies, lists the Television, reads Active, its RemoteKey "select"
/// reaches the TV as the brand's select code, and — where the brand reports its power — a
/// power change made elsewhere reaches the subscribed controller as an event. The brands
/// share nothing (each its emulator, home, door and controller, on ports of their own), so
/// three run at a time.
@Suite(.serialized) struct HomeKitBrandsTests {
    @Test func aiohomekitDrivesEveryBrandThroughTheDoor() async throws {
        let brands = BuiltInEmulators.all.map(\.adapter.id)
        try await withThrowingTaskGroup(of: Void.self) { group in
            var next = 0
            for _ in 0..<min(3, brands.count) {
                let brand = brands[next]
                next += 1
                group.addTask { try await Self.drive(brand) }
            }
            while try await group.next() != nil, next < brands.count {
                let brand = brands[next]
                next += 1
                group.addTask { try await Self.drive(brand) }
            }
            try await group.waitForAll()
        }
    }

    static func drive(_ brand: String) async throws {
        let plugin = try #require(BuiltInEmulators.all.first { $0.adapter.id == brand })
        let harness = try await ConformanceHarness(plugin, check: "homekit")
        var paired = try await harness.pair()
        paired.device.nickname = "tv"
        let paths = StorePaths(home: try await TestEnvironment.home("photon-homekit-\(brand)"))
        let store = Store(paths: paths)
        try await store.save(paired)
        // The identity the TV was paired with (Android TV knows its client by certificate).
        let identity = harness.context.clientIdentity
        try await store.update { _, secrets in
            secrets.identity = StoredIdentity(certificatePEM: identity.certificatePEM, privateKeyPEM: identity.privateKeyPEM)
        }
        let photon = try Photon(
            adapters: BuiltInPlugins.adapters, paths: paths, timeout: .seconds(5), policy: .keepWarm(ReconnectBackoff()), cachesStore: true)
        let server = ServiceServer(photon: photon, log: ServiceLog(notice: { _ in }, debug: .silent))
        var settings = HomeKitDoorSettings()
        settings.address = "127.0.0.1"
        settings.announces = false
        let door = try await server.startHomeKit(settings)
        let accessory = try await store.homeKitAccessory(for: paired.device.id).identity
        let port = try #require(door.ports[paired.device.id])
        let peer = try HomeKitController(port: port, accessoryID: accessory.deviceID)
        func ask(_ command: String) async throws -> [String: Any] { try await peer.ask(command) }

        #expect(try await ask("pair \(accessory.setupCode.formatted)")["paired"] as? Bool == true, "\(brand)")
        let services = try await ask("accessories")["services"] as? [String] ?? []
        #expect(services.contains("000000D8-0000-1000-8000-0026BB765291"), "\(brand)")
        #expect((try await ask("get 1.11")["1.11"] as? [String: Any])?["value"] is Int, "\(brand)")
        let select = try #require(plugin.adapter.keyTable.first { $0.key == .select }?.code)
        let before = harness.events("key").count
        #expect(try await ask("put 1.15=8").isEmpty, "\(brand)")
        try await harness.waitFor("key", count: before + 1)
        #expect(harness.events("key").last?["key"]?.string == select, "\(brand)")

        if plugin.adapter.descriptor.capabilities.contains(.powerState) {
            #expect(try await ask("subscribe 1.11")["subscribed"] as? Bool == true)
            let active = (try await ask("get 1.11")["1.11"] as? [String: Any])?["value"] as? Int ?? 1
            // The other way from elsewhere (the CLI's source), so the event is the TV's.
            _ = try await photon.submitOneShot(
                .key(.key(active == 1 ? .powerOff : .powerOn), .press), to: "tv", Submission(now: Date(), lifetime: .seconds(10), source: .cli))
            let events = try await ask("events 1 10")["events"] as? [[String: Int]] ?? []
            #expect(events.contains(["1.11": active == 1 ? 0 : 1]), "\(brand): \(events)")
        }
        await peer.stop()
        await server.stop()
        await harness.stop()
    }
}
