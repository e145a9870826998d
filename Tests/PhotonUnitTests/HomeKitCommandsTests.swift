import Foundation
import PhotonCLI
import PhotonCore
import PhotonHAP
import PhotonJSON
import PhotonStore
import Testing

/// `photon homekit show|remap|revoke|reset` run in this process against a private home:
/// what they print and what they change in `homekit.json` (0600).
@Suite struct HomeKitCommandsTests {
    func home() async throws -> (String, Store, String) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("photon-homekit-cli-\(UUID().uuidString)").path
        let store = Store(paths: StorePaths(home: URL(fileURLWithPath: directory)))
        let device = DeviceRecord(id: "roku-1", nickname: "den", brand: "roku", host: "127.0.0.1", port: 8060, ports: [:], capabilities: ["keys"])
        try await store.save(PairedTV(device: device, secrets: DeviceSecrets()))
        return (directory, store, device.id)
    }

    func run(_ home: String, _ arguments: [String]) async -> (status: Int32, json: JSONValue?, errors: String) {
        let terminal = CapturingTerminal()
        let status = await PhotonCommandLine.run(["--home", home, "--json"] + arguments, terminal: terminal, environment: ["PHOTON_NO_DAEMON": "1"])
        return (status, try? JSONValue.parse(terminal.output), terminal.errors)
    }

    @Test func showRemapRevokeAndResetEditTheAccessory() async throws {
        let (directory, store, id) = try await home()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let shown = await run(directory, ["homekit", "show", "den"])
        #expect(shown.status == 0, "\(shown.errors)")
        let json = try #require(shown.json)
        let record = try await store.homeKitAccessory(for: id)
        #expect(json["setupCode"]?.stringValue == record.identity.setupCode.formatted)
        #expect(json["setupURI"]?.stringValue == record.identity.setupURI)
        #expect(json["deviceID"]?.stringValue == record.identity.deviceID)
        #expect(json["paired"]?.boolValue == false)
        var mode = stat()
        stat(store.paths.homeKitFile.path, &mode)
        #expect(mode.st_mode & 0o777 == 0o600)

        // A remap, refused for a key HomeKit may not send, cleared again.
        #expect(await run(directory, ["homekit", "remap", "den", "information", "home"]).status == 0)
        #expect(try await store.homeKitAccessory(for: id).keyRemap == ["information": "home"])
        #expect(await run(directory, ["homekit", "remap", "den", "information", "record"]).status == 2)
        #expect(await run(directory, ["homekit", "remap", "den", "teleport", "home"]).status == 2)
        #expect(await run(directory, ["homekit", "remap", "den", "information"]).status == 0)
        #expect(try await store.homeKitAccessory(for: id).keyRemap == nil)

        // Revoke: the last admin takes every pairing with it; an unknown controller is exit 6.
        try await store.updateHomeKitAccessory(for: id) { record in
            record.identity.pairings = [
                HAPPairing(id: "ADMIN-1", publicKey: [UInt8](repeating: 1, count: 32), isAdmin: true),
                HAPPairing(id: "USER-2", publicKey: [UInt8](repeating: 2, count: 32), isAdmin: false),
            ]
        }
        #expect(await run(directory, ["homekit", "revoke", "den", "NOBODY"]).status != 0)
        #expect(await run(directory, ["homekit", "revoke", "den", "USER-2"]).status == 0)
        #expect(try await store.homeKitAccessory(for: id).identity.pairings.map(\.id) == ["ADMIN-1"])
        #expect(await run(directory, ["homekit", "revoke", "den", "ADMIN-1"]).status == 0)
        #expect(try await store.homeKitAccessory(for: id).identity.isPaired == false)

        // Reset: a new accessory, its configuration number moved on.
        let before = try await store.homeKitAccessory(for: id).identity
        let reset = await run(directory, ["homekit", "reset", "den"])
        #expect(reset.status == 0)
        let after = try await store.homeKitAccessory(for: id).identity
        #expect(after.deviceID != before.deviceID && after.signingKey != before.signingKey)
        #expect(after.configurationNumber == before.configurationNumber + 1)
        #expect(reset.json?["setupCode"]?.stringValue == after.setupCode.formatted)
    }
}
