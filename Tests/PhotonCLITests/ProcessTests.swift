import Foundation
import PhotonCore
import PhotonStore
import PhotonTestSupport
import Testing

/// The built `photon` binary, run as separate processes.
@Suite struct ProcessTests {
    var binary: String {
        get throws {
            let path = TestEnvironment.repositoryRoot.appendingPathComponent(".build/debug/photon").path
            guard FileManager.default.isExecutableFile(atPath: path) else {
                throw TestFailure("no \(path): run `make test` (it builds before testing)")
            }
            return path
        }
    }

    @Test func versionAndExitCodes() throws {
        let version = try TestEnvironment.run(try binary, ["--version"])
        #expect(version.status == 0)
        #expect(version.output.hasPrefix("photon "))
        #expect(try TestEnvironment.run(try binary, ["lsit"]).status == 2)
        // No terminal: `remote` is a usage error.
        #expect(try TestEnvironment.run(try binary, ["remote", "tv"]).status == 2)
    }

    @Test func concurrentProcessesNeverCorruptTheStore() async throws {
        let home = try TestEnvironment.temporaryDirectory("photon-race")
        let store = Store(paths: StorePaths(home: home))
        let count = 16
        for n in 0..<count {
            try await store.save(
                PairedTV(
                    device: DeviceRecord(id: "dev-\(n)", nickname: "old-\(n)", brand: "samsung", host: "127.0.0.1", port: 8002),
                    secrets: DeviceSecrets(values: ["token": "t\(n)"])))
        }
        // Every process rewrites both files under the lock at the same moment.
        let processes = try (0..<count).map { n in
            try TestProcess(try binary, ["rename", "old-\(n)", "new-\(n)", "--home", home.path])
        }
        for process in processes { #expect(await process.waitForExit(timeout: .seconds(60)) == 0, "\(process.standardError)") }
        let file = try await store.devices()
        #expect(file.devices.count == count)
        #expect(Set(file.devices.map(\.nickname)) == Set((0..<count).map { "new-\($0)" }))
        for n in 0..<count { #expect(try await store.secrets(for: "dev-\(n)")["token"] == "t\(n)") }
    }
}
