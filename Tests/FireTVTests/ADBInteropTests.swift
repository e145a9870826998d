import FireTV
import FireTVEmulator
import Foundation
import PhotonCore
import PhotonEmulatorSupport
import PhotonTestSupport
import Testing

/// Two ADB hosts nobody here wrote — Debian's `adb` and adb-shell 0.4.4 from PyPI (what Home
/// Assistant's Fire TV integration uses) — drive the emulated Fire TV: authentication with
/// their own keys through "Allow debugging?", then shell commands, confirmed by the
/// emulator's events.
@Suite(.serialized) struct ADBInteropTests {
    final class Recorder: Sendable {
        let events = Locked<[EmulatorEvent]>([])
        func names(_ name: String) -> [EmulatorEvent] { events.withLock { $0.filter { $0.name == name } } }
    }

    func start() throws -> (EmulatedFireTV, Recorder) {
        let recorder = Recorder()
        var configuration = EmulatedFireTV.Configuration()
        configuration.port = 0  // never 5555: adb treats it specially
        let tv = try EmulatedFireTV.start(configuration) { event in recorder.events.withLock { $0.append(event) } }
        return (tv, recorder)
    }

    @Test func debiansADBConnectsAndSendsAKey() async throws {
        let adb = "/usr/bin/adb"
        try #require(FileManager.default.isExecutableFile(atPath: adb), "Debian's adb is not installed: run make test (scripts/setup.sh test)")
        let (tv, recorder) = try start()
        defer { Task { await tv.stop() } }
        let home = try TestEnvironment.temporaryDirectory("photon-adb-home")
        // Its own server on a port of its own, its own key under this HOME.
        let serverPort = String(Int.random(in: 20000...30000))
        let environment = ["HOME": home.path, "ANDROID_ADB_SERVER_PORT": serverPort, "ANDROID_SDK_HOME": home.path]
        // The adb server it starts would hold our pipes open: its output goes to a file.
        let log = home.appendingPathComponent("adb.log").path
        func run(_ arguments: [String]) async throws -> (status: Int32, output: String) {
            let command = "exec \(adb) " + arguments.map { "'\($0)'" }.joined(separator: " ") + " </dev/null >'\(log)' 2>&1"
            let p = try TestProcess("/bin/sh", ["-c", command], environment: environment)
            p.closeStandardInput()
            let status = await p.waitForExit(timeout: .seconds(20))
            return (status, (try? String(contentsOfFile: log, encoding: .utf8)) ?? "")
        }
        // Its server in the foreground, as a child of the test (a server the client forks
        // for itself outlives the test and holds what it inherited).
        let server = try TestProcess(adb, ["-P", serverPort, "nodaemon", "server"], environment: environment)
        defer { server.terminate() }
        var ready = false
        for _ in 0..<100 where !ready {
            ready = (try? await run(["-P", serverPort, "devices"]))?.status == 0
            if !ready { try await Task.sleep(for: .milliseconds(100)) }
        }
        try #require(ready, "adb's server did not start: \(server.standardError)")
        let target = "127.0.0.1:\(tv.port)"
        let connect = try await run(["connect", target])
        #expect(connect.output.contains("connected to") || connect.output.contains("failed to authenticate"), "\(connect.output)")
        // adb reports "failed to authenticate" while the device shows its prompt; the
        // emulated device allows the key, and the next command goes through.
        var key: (status: Int32, output: String) = (-1, "")
        for _ in 0..<20 {
            key = try await run(["-s", target, "shell", "input", "keyevent", "3"])
            if key.status == 0 { break }
            try await Task.sleep(for: .milliseconds(250))
        }
        #expect(key.status == 0, "\(key.output)")
        let serial = try await run(["-s", target, "shell", "getprop", "ro.serialno"])
        #expect(serial.output.trimmingCharacters(in: .whitespacesAndNewlines) == tv.configuration.serial, "\(serial.output)")
        #expect(recorder.names("allow_prompt").count == 1)
        #expect(recorder.names("key").compactMap { $0["key"]?.string } == ["KEYCODE_HOME"])
    }

    @Test func adbShellConnectsTypesAndReads() async throws {
        let (tv, recorder) = try start()
        defer { Task { await tv.stop() } }
        let keys = try TestEnvironment.temporaryDirectory("photon-adb-shell")
        let client = try TestProcess(
            try TestEnvironment.python,
            [
                TestEnvironment.peerScript("adb_shell_client.py"), "127.0.0.1", String(tv.port), keys.path, "input keyevent KEYCODE_DPAD_DOWN",
                "getprop ro.product.model", "input text 'it'\\''s%s50%'",
            ])
        client.closeStandardInput()
        let status = await client.waitForExit(timeout: .seconds(30))
        #expect(status == 0, "\(client.standardOutput) \(client.standardError)")
        let lines = client.standardOutput.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        #expect(lines.count == 3, "\(client.standardOutput)")
        #expect((lines.dropFirst().first?["output"] as? String)?.hasPrefix(tv.configuration.model) == true)
        #expect(recorder.names("key").compactMap { $0["key"]?.string } == ["KEYCODE_DPAD_DOWN"])
        #expect(recorder.names("text").compactMap { $0["text"]?.string } == ["it's 50%"])
        #expect(recorder.names("injection").isEmpty)
    }
}
