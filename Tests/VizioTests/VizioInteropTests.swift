import Foundation
import PhotonCore
import PhotonEmulatorSupport
import PhotonTestSupport
import Testing
import VizioEmulator

/// pyvizio (Home Assistant's vizio library) pairs with the emulated TV and drives it: what a
/// real client reads and sends is what the emulator serves.
@Suite(.serialized) struct VizioInteropTests {
    @Test func pyvizioPairsReadsAndDrivesTheTV() async throws {
        let events = Locked<[EmulatorEvent]>([])
        var configuration = EmulatedVizio.Configuration()
        configuration.port = 0
        configuration.pin = "4826"
        let tv = try EmulatedVizio.start(configuration) { event in events.withLock { $0.append(event) } }
        defer { Task { await tv.stop() } }
        let client = try TestProcess(try TestEnvironment.python, [TestEnvironment.peerScript("vizio_client.py"), String(tv.port), "4826"])
        defer { client.terminate() }
        do {
            try await client.waitFor("DONE", timeout: .seconds(30))
        } catch {
            throw TestFailure("pyvizio did not finish: \(client.standardOutput)\n\(client.standardError.suffix(3000))")
        }
        #expect(await client.waitForExit() == 0, "\(client.standardError)")
        let output = client.standardOutput
        #expect(output.contains(#""power": true, "volume": 20, "muted": false"#), "\(output)")
        #expect(output.contains(#""inputs": ["HDMI-1", "HDMI-2", "HDMI-3", "HDMI-4", "COMP", "TV", "CAST"]"#), "\(output)")
        #expect(output.contains(#""PlayStation""#) && output.contains(#""input": "HDMI-1""#), "\(output)")
        #expect(output.contains(#""model": "P65Q9-J01", "serial": "LWZQPHOTON01""#), "\(output)")
        #expect(output.contains(#"{"input_after": "HDMI-2", "app_after": [3, "1"]}"#), "\(output)")
        let seen = events.withLock { $0 }
        #expect(seen.filter { $0.name == "paired" }.count == 1)
        #expect(seen.filter { $0.name == "input" }.map { $0["input"]?.string } == ["hdmi2"])
        #expect(seen.filter { $0.name == "key" }.map { $0["key"]?.string } == ["3:8"])
        #expect(seen.filter { $0.name == "launch" }.map { $0["app"]?.string } == ["3:1"])
        #expect(seen.filter { $0.name == "volume" }.map { $0["level"]?.int } == [25])
        #expect(seen.filter { $0.name == "picture" }.map { $0["mode"]?.string } == ["Game"])
    }
}
