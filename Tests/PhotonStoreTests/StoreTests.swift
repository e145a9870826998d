import Foundation
import Glibc
import PhotonCore
import PhotonTestSupport
import PhotonWire
import Testing

@testable import PhotonStore

@Suite struct StoreTests {
    func makeStore() throws -> Store {
        Store(paths: StorePaths(home: try TestEnvironment.temporaryDirectory("photon-store")), lockTimeout: .seconds(10))
    }

    func mode(_ url: URL) -> mode_t {
        var st = stat()
        stat(url.path, &st)
        return st.st_mode & 0o777
    }

    func device(_ n: Int, brand: String = "androidtv") -> PairedTV {
        PairedTV(
            device: DeviceRecord(
                id: "\(brand)-\(n)", nickname: "tv-\(n)", brand: brand, host: "127.0.0.\(n % 200 + 1)", port: 6466,
                ports: ["pairing": 6467], name: "TV \(n)", mac: "AA:BB:CC:DD:EE:\(String(format: "%02X", n % 256))",
                capabilities: ["keys"]),
            secrets: DeviceSecrets(
                pin: try! CertificateFingerprint(bytes: [UInt8](repeating: UInt8(n % 256), count: 32)), values: ["token": "tok-\(n)"]))
    }

    @Test func filesAndDirectoriesArePrivate() async throws {
        let store = try makeStore()
        try await store.save(device(1))
        #expect(mode(store.paths.configDirectory) == 0o700)
        #expect(mode(store.paths.dataDirectory) == 0o700)
        #expect(mode(store.paths.devicesFile) == 0o600)
        #expect(mode(store.paths.secretsFile) == 0o600)
        // Secrets never land in the metadata file.
        let metadata = try String(contentsOf: store.paths.devicesFile, encoding: .utf8)
        #expect(!metadata.contains("tok-1"))
        #expect(metadata.contains("\"schemaVersion\" : 1"))
        let secrets = try String(contentsOf: store.paths.secretsFile, encoding: .utf8)
        #expect(secrets.contains("tok-1"))
        // No temporary files are left behind.
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: store.paths.dataDirectory.path)
            .filter { $0.hasSuffix(".tmp") }
        #expect(leftovers.isEmpty)
    }

    @Test func saveFindRenameForget() async throws {
        let store = try makeStore()
        try await store.save(device(1))
        try await store.save(device(2))
        #expect(try await store.device(named: "tv-1").id == "androidtv-1")
        #expect(try await store.device(named: "androidtv-2").nickname == "tv-2")
        #expect(try await store.secrets(for: "androidtv-2")["token"] == "tok-2")
        // A nickname used by another TV is refused.
        var clash = device(3)
        clash.device.nickname = "tv-1"
        await #expect(throws: PhotonError.self) { try await store.save(clash) }
        _ = try await store.rename("tv-1", to: "living-room")
        #expect(try await store.device(named: "living-room").id == "androidtv-1")
        await #expect(throws: PhotonError.self) { try await store.rename("tv-2", to: "living-room") }
        await #expect(throws: PhotonError.self) { try await store.rename("tv-2", to: "bad\u{1B}name") }
        let removed = try await store.forget("living-room")
        #expect(removed.id == "androidtv-1")
        #expect(try await store.secrets(for: "androidtv-1") == DeviceSecrets())
        do {
            _ = try await store.device(named: "living-room")
            Issue.record("a forgotten TV was found")
        } catch let error as PhotonError {
            #expect(error.code == .notFound)
            #expect(error.hint?.contains("tv-2") == true)
        }
        // Re-pairing the same id replaces, not duplicates.
        try await store.save(device(2))
        #expect(try await store.devices().devices.count == 1)
    }

    @Test func identityIsMadeOnceAndReused() async throws {
        let store = try makeStore()
        #expect(try await store.existingIdentity() == nil)
        let first = try await store.clientIdentity()
        let again = try await Store(paths: store.paths).clientIdentity()
        // Compared as Bools so a failure never prints a private key.
        let reused = first == again
        #expect(reused)
        let fresh = try await store.regenerateIdentity()
        let replaced = fresh.privateKeyPEM != first.privateKeyPEM && fresh.certificatePEM != first.certificatePEM
        #expect(replaced)
        let current = try await store.clientIdentity()
        let kept = current == fresh
        #expect(kept)
        // The private key is in the secret file only.
        #expect(!(try String(contentsOf: store.paths.secretsFile, encoding: .utf8)).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: store.paths.devicesFile.path))
    }

    @Test func truncatedFileIsReportedAndKeptAside() async throws {
        let store = try makeStore()
        try await store.save(device(1))
        let original = try Data(contentsOf: store.paths.devicesFile)
        let truncated = original.prefix(original.count / 2)
        try SecureFiles.writeAtomically(Data(truncated), to: store.paths.devicesFile)
        do {
            _ = try await store.devices()
            Issue.record("a truncated file was read")
        } catch let error as PhotonError {
            #expect(error.code == .storeCorrupt)
            #expect(error.message.contains("devices.json"))
            #expect(error.hint?.contains(".corrupt-") == true)
        }
        let kept = try FileManager.default.contentsOfDirectory(atPath: store.paths.configDirectory.path)
            .filter { $0.hasPrefix("devices.json.corrupt-") }
        #expect(kept.count == 1)
        let keptData = try Data(contentsOf: store.paths.configDirectory.appendingPathComponent(kept[0]))
        #expect(keptData == Data(truncated))
        // The store starts fresh afterwards; the kept file stays.
        #expect(try await store.devices().devices.isEmpty)
        try await store.save(device(5))
        #expect(FileManager.default.fileExists(atPath: store.paths.configDirectory.appendingPathComponent(kept[0]).path))
    }

    @Test func garbageAndNewerSchemas() async throws {
        let store = try makeStore()
        try await store.save(device(1))
        // Valid JSON from a newer Photon: refused, left in place.
        let newer = Data(#"{"schemaVersion": 99, "devices": []}"#.utf8)
        try SecureFiles.writeAtomically(newer, to: store.paths.devicesFile)
        let refused = await #expect(throws: PhotonError.self) { try await store.devices() }
        #expect(refused?.message.contains("newer Photon (schema 99") == true, "\(String(describing: refused))")
        #expect(try Data(contentsOf: store.paths.devicesFile) == newer)
        // A newer layout this Photon cannot decode at all is still a newer file, not damage.
        let reshaped = Data(#"{"schemaVersion": 2, "devices": {"tv": {}}}"#.utf8)
        try SecureFiles.writeAtomically(reshaped, to: store.paths.devicesFile)
        let newerLayout = await #expect(throws: PhotonError.self) { try await store.devices() }
        #expect(newerLayout?.message.contains("newer Photon (schema 2") == true, "\(String(describing: newerLayout))")
        #expect(try Data(contentsOf: store.paths.devicesFile) == reshaped)
        // Binary garbage in the secret file.
        try SecureFiles.writeAtomically(Data([0xFF, 0x00, 0x13, 0x37]), to: store.paths.secretsFile)
        do {
            _ = try await store.secrets(for: "x")
            Issue.record("garbage secrets were read")
        } catch let error as PhotonError {
            #expect(error.code == .storeCorrupt)
        }
    }

    @Test func filesOthersCanReadAreRefused() async throws {
        let store = try makeStore()
        try await store.save(device(1))
        chmod(store.paths.secretsFile.path, 0o644)
        do {
            _ = try await store.secrets(for: "androidtv-1")
            Issue.record("a world-readable secret file was used")
        } catch let error as PhotonError {
            #expect(error.code == .storePermissions)
            #expect(error.hint?.contains("chmod 600") == true)
        }
        chmod(store.paths.secretsFile.path, 0o600)
        chmod(store.paths.dataDirectory.path, 0o755)
        do {
            _ = try await store.secrets(for: "androidtv-1")
            Issue.record("an open secret directory was used")
        } catch let error as PhotonError {
            #expect(error.code == .storePermissions)
            #expect(error.hint?.contains("chmod 700") == true)
        }
        chmod(store.paths.dataDirectory.path, 0o700)
        #expect(try await store.secrets(for: "androidtv-1")["token"] == "tok-1")
    }

    @Test func symlinkedSecretFileIsRefused() async throws {
        let store = try makeStore()
        try await store.save(device(1))
        let elsewhere = try TestEnvironment.temporaryDirectory().appendingPathComponent("stolen.json")
        try FileManager.default.moveItem(at: store.paths.secretsFile, to: elsewhere)
        try FileManager.default.createSymbolicLink(at: store.paths.secretsFile, withDestinationURL: elsewhere)
        await #expect(throws: PhotonError.self) { try await store.secrets(for: "androidtv-1") }
    }

    @Test func concurrentWritersLoseNothing() async throws {
        let paths = try makeStore().paths
        try await withThrowingTaskGroup(of: Void.self) { group in
            for n in 0..<24 {
                group.addTask {
                    // Separate Store values open the lock file separately, like processes.
                    try await Store(paths: paths).save(device(n))
                }
            }
            try await group.waitForAll()
        }
        let file = try await Store(paths: paths).devices()
        #expect(file.devices.count == 24)
        #expect(Set(file.devices.map(\.id)).count == 24)
        for n in 0..<24 { #expect(try await Store(paths: paths).secrets(for: "androidtv-\(n)")["token"] == "tok-\(n)") }
    }

    @Test func aHeldLockTimesOutWithAClearError() async throws {
        let store = try makeStore()
        _ = try await store.devices()
        let held = try await StoreLock.acquire(store.paths.lockFile, timeout: .seconds(1))
        let impatient = Store(paths: store.paths, lockTimeout: .milliseconds(100))
        do {
            _ = try await impatient.devices()
            Issue.record("the lock was not exclusive")
        } catch let error as PhotonError {
            #expect(error.code == .storeIO)
            #expect(error.message.contains("locked"))
        }
        withExtendedLifetime(held) {}
    }

    @Test func pathsFollowXDGAndHome() throws {
        let env = ["HOME": "/home/u", "XDG_CONFIG_HOME": "/cfg", "XDG_RUNTIME_DIR": "/run/user/1000"]
        let xdg = try StorePaths.resolve(home: nil, environment: EnvironmentVariables(env))
        #expect(xdg.configDirectory.path == "/cfg/photon")
        #expect(xdg.dataDirectory.path == "/home/u/.local/share/photon")
        #expect(xdg.runtimeDirectory.path == "/run/user/1000/photon")
        let viaEnv = try StorePaths.resolve(home: nil, environment: EnvironmentVariables(env.merging(["PHOTON_HOME": "/p"]) { $1 }))
        #expect(viaEnv.secretsFile.path == "/p/data/secrets.json")
        let explicit = try StorePaths.resolve(home: "/h", environment: ["PHOTON_HOME": "/p"])
        #expect(explicit.devicesFile.path == "/h/config/devices.json")
        #expect(throws: PhotonError.self) { try StorePaths.resolve(home: nil, environment: [:]) }
    }

    /// The store reads and writes through plain paths; the URLs say the same.
    @Test func pathsAreAbsoluteWithoutTrailingSlashesAndTheURLsAgree() throws {
        let current = FileManager.default.currentDirectoryPath
        let relative = try StorePaths.resolve(home: "relative/home/", environment: [:])
        #expect(relative.configPath == current + "/relative/home/config")
        #expect(relative.devicesPath == current + "/relative/home/config/devices.json")
        let slashed = StorePaths(home: URL(fileURLWithPath: "/tmp/x/", isDirectory: true))
        #expect(slashed.secretsPath == "/tmp/x/data/secrets.json")
        #expect(slashed.lockPath == "/tmp/x/data/.lock")
        #expect(slashed.tlsSessionsPath == "/tmp/x/data/tls-sessions")
        #expect(slashed.socketPath == "/tmp/x/run/" + DaemonWire.socketName)
        for (url, path) in [
            (slashed.devicesFile, slashed.devicesPath), (slashed.secretsFile, slashed.secretsPath), (slashed.lockFile, slashed.lockPath),
            (slashed.tlsSessionsDirectory, slashed.tlsSessionsPath), (slashed.socketFile, slashed.socketPath),
            (slashed.serviceLockFile, slashed.serviceLockPath), (slashed.configDirectory, slashed.configPath),
        ] {
            #expect(url.path == path)
            #expect(url.isFileURL)
        }
        #expect(slashed.tlsSessionsDirectory.hasDirectoryPath && !slashed.devicesFile.hasDirectoryPath)
        var moved = slashed
        moved.dataDirectory = URL(fileURLWithPath: "/elsewhere/data/", isDirectory: true)
        #expect(moved.secretsPath == "/elsewhere/data/secrets.json")
        #expect(moved == StorePaths(configPath: "/tmp/x/config", dataPath: "/elsewhere/data", runtimePath: "/tmp/x/run/"))
        #expect(StorePaths(homePath: "/").configPath == "/config")
    }

    @Test func nicknames() throws {
        try DeviceNaming.validateNickname("living-room")
        try DeviceNaming.validateNickname("Küche TV")
        for bad in ["", " x", "x ", "a:b", "[x", String(repeating: "a", count: 65), "tab\there"] {
            #expect(throws: PhotonError.self, "\(bad)") { try DeviceNaming.validateNickname(bad) }
        }
        #expect(DeviceNaming.suggestedNickname(from: "[TV] Samsung Q80 Series (55)") == "tv-samsung-q80-series-55")
        #expect(DeviceNaming.suggestedNickname(from: "!!!") == "tv")
    }
}
