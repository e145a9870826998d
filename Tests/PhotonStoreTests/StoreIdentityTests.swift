import Foundation
import Glibc
import PhotonCore
import PhotonTestSupport
import Testing

@testable import PhotonStore

/// A TV controls part of the id it is stored under: another device that reports a paired
/// TV's id must never take its place silently, and names stay unambiguous.
extension StoreTests {
    @Test func anotherDeviceWithAPairedTVsIdIsNotSwappedIn() async throws {
        let store = try makeStore()
        var original = device(1)
        original.device.nickname = "living-room"
        try await store.save(original)

        // Re-pairing the same TV (same pin, same address) replaces quietly, keeping the data.
        try await store.save(original)

        // Same id, another certificate: refused without consent, nothing changes.
        var impostor = device(2)
        impostor.device.id = original.device.id
        impostor.device.nickname = "impostor"
        impostor.device.host = original.device.host
        let error = await #expect(throws: PhotonError.self) { try await store.save(impostor) }
        #expect(error?.code == .untrustedCertificate)
        #expect(error?.hint?.contains("--replace") == true)
        #expect(try await store.secrets(for: original.device.id).pin == original.secrets.pin)
        #expect(try await store.device(named: "living-room").host == original.device.host)

        // Same id and pin at another address: refused as well.
        var moved = original
        moved.device.host = "127.0.0.99"
        await #expect(throws: PhotonError.self) { try await store.save(moved) }

        // With consent it replaces.
        try await store.save(impostor, replacing: true)
        #expect(try await store.secrets(for: original.device.id).pin == impostor.secrets.pin)
        #expect(try await store.devices().devices.count == 1)
    }

    @Test func aNicknameCannotBeAnotherTVsIdOrAddress() async throws {
        let store = try makeStore()
        try await store.save(device(1))
        var second = device(2)
        for taken in ["tv-1", "androidtv-1", device(1).device.host] {
            second.device.nickname = taken
            let error = await #expect(throws: PhotonError.self, "\(taken)") { try await store.save(second) }
            #expect(error?.code == .usage)
        }
        second.device.nickname = "tv-2"
        try await store.save(second)
        for taken in ["tv-1", "androidtv-1", device(1).device.host] {
            await #expect(throws: PhotonError.self, "\(taken)") { _ = try await store.rename("tv-2", to: taken) }
        }
    }

    @Test func addressIdsDoNotCollide() {
        #expect(DeviceRecord.idPart(fromHost: "192.168.1.23") == "192-168-1-23")
        #expect(DeviceRecord.idPart(fromHost: "192.168.1.23") != DeviceRecord.idPart(fromHost: "192.168.12.3"))
        #expect(DeviceRecord.idPart(fromHost: "fe80::1") == "fe80--1")
    }
}

extension StoreTests {
    /// A store directory that is a symbolic link is refused, even to a private directory
    /// of ours: the link could be swapped to point elsewhere.
    @Test func aSymlinkedStoreDirectoryIsRefused() async throws {
        let home = try TestEnvironment.temporaryDirectory("photon-link")
        let elsewhere = try TestEnvironment.temporaryDirectory("photon-elsewhere")
        chmod(elsewhere.path, 0o700)
        let paths = StorePaths(home: home)
        try FileManager.default.createDirectory(at: paths.configDirectory.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(at: paths.configDirectory, withDestinationURL: elsewhere)
        let store = Store(paths: paths, lockTimeout: .seconds(10))
        let error = await #expect(throws: PhotonError.self) { try await store.save(device(1)) }
        #expect(error?.code == .storePermissions)
        #expect(error?.message.contains("symbolic link") == true)
    }
}
