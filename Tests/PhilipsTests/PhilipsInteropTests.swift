import Foundation
import PhilipsEmulator
import PhotonCore
import PhotonEmulatorSupport
import PhotonTestSupport
import Testing

/// ha-philipsjs (Home Assistant's philips_js library) pairs with the emulated TV and drives
/// it: what a real client reads and sends is what the emulator serves.
@Suite(.serialized) struct PhilipsInteropTests {
    @Test func haPhilipsjsPairsUpdatesDrivesAndHearsAChange() async throws {
        let events = Locked<[EmulatorEvent]>([])
        var configuration = EmulatedPhilips.Configuration()
        configuration.httpsPort = 0
        configuration.httpPort = 0
        configuration.pin = "4826"
        let tv = try EmulatedPhilips.start(configuration) { event in events.withLock { $0.append(event) } }
        defer { Task { await tv.stop() } }
        let client = try TestProcess(
            try TestEnvironment.python, [TestEnvironment.peerScript("philips_client.py"), String(tv.httpsPort), String(tv.httpPort), "4826"])
        defer { client.terminate() }
        do {
            try await client.waitFor("DONE", timeout: .seconds(40))
        } catch {
            throw TestFailure("ha-philipsjs did not finish: \(client.standardOutput)\n\(client.standardError.suffix(3000))")
        }
        #expect(await client.waitForExit() == 0, "\(client.standardError)")
        let output = client.standardOutput
        #expect(output.contains(#""serial": "FZ1A2345678901", "model": "65OLED855/12", "secured": true, "power": "On""#), "\(output)")
        #expect(output.contains(#""volume": {"muted": false, "current": 18, "min": 0, "max": 60}"#), "\(output)")
        #expect(output.contains(#""sources": ["Watch TV", "HDMI 1", "HDMI 2", "HDMI 3", "HDMI 4"], "channels": 40, "channel": "1648""#), "\(output)")
        #expect(output.contains(#""ambilight": "On""#) && output.contains(#""notify": "http""#), "\(output)")
        #expect(
            output.contains(#"{"notify_changed": true, "volume_before": 30, "volume_after": 31, "power_after": "On", "ambilight_after": "Off"}"#),
            "\(output)")
        let seen = events.withLock { $0 }
        #expect(seen.filter { $0.name == "paired" }.count == 1)
        #expect(seen.filter { $0.name == "key" }.map { $0["key"]?.string } == ["CursorUp", "VolumeUp"])
        #expect(seen.filter { $0.name == "launch" }.map { $0["app"]?.string } == ["com.netflix.ninja"])
        #expect(seen.filter { $0.name == "input" }.map { $0["input"]?.string } == ["hdmi2"])
        #expect(seen.filter { $0.name == "volume" }.map { $0["level"]?.int } == [30])
        #expect(seen.filter { $0.name == "power" }.map { $0["state"]?.string } == ["standby", "on"])
        #expect(seen.filter { $0.name == "refused" }.isEmpty)
    }
}
