import Foundation
import PhotonCore
import PhotonEmulatorSupport
import PhotonTestSupport
import SonyEmulator
import Testing

/// pybravia (Home Assistant's braviatv library) drives the emulated Bravia, by PIN and by
/// pre-shared key: what a real client reads and sends is what the emulator serves.
@Suite(.serialized) struct SonyInteropTests {
    func run(_ mode: String, secret: String) async throws -> (String, [EmulatorEvent]) {
        let events = Locked<[EmulatorEvent]>([])
        var configuration = EmulatedSony.Configuration()
        configuration.port = 0
        configuration.pin = "4826"
        configuration.psk = "sony-psk-1"
        let tv = try EmulatedSony.start(configuration) { event in events.withLock { $0.append(event) } }
        defer { Task { await tv.stop() } }
        let client = try TestProcess(
            try TestEnvironment.python, [TestEnvironment.peerScript("sony_client.py"), String(tv.port), mode, secret])
        defer { client.terminate() }
        do {
            try await client.waitFor("DONE", timeout: .seconds(30))
        } catch {
            throw TestFailure("pybravia did not finish: \(client.standardOutput)\n\(client.standardError.suffix(3000))")
        }
        #expect(await client.waitForExit() == 0, "\(client.standardError)")
        return (client.standardOutput, events.withLock { $0 })
    }

    func check(_ output: String, _ events: [EmulatorEvent]) {
        #expect(output.contains(#""model": "KD-55X85J", "serial": "7000123", "power": "active", "volume": 18"#), "\(output)")
        #expect(output.contains(#""inputs": ["HDMI 1", "HDMI 2", "HDMI 3", "HDMI 4/ARC", "AV"]"#), "\(output)")
        #expect(output.contains(#""YouTube""#) && output.contains(#""has_home": true"#), "\(output)")
        #expect(output.contains(#"{"power_after_off": "standby"}"#) && output.contains(#"{"power_after_on": "active"}"#), "\(output)")
        // Its wake-up IRCC (an empty code) then Home; its power on is setPowerStatus and WakeUp.
        #expect(events.filter { $0.name == "key" }.map { $0["key"]?.string } == ["Home", "WakeUp"], "\(events.map(\.name))")
        #expect(events.filter { $0.name == "input" }.map { $0["input"]?.string } == ["hdmi2"])
        #expect(events.filter { $0.name == "launch" }.count == 1)
        #expect(events.filter { $0.name == "volume" }.map { $0["level"]?.int } == [25])
        #expect(events.filter { $0.name == "mute" }.map { $0["muted"] } == [.bool(true)])
        #expect(events.filter { $0.name == "power" }.map { $0["power"]?.string } == ["standby", "on"])
    }

    @Test func pybraviaPairsByPINAndDrivesTheTV() async throws {
        let (output, events) = try await run("pin", secret: "4826")
        check(output, events)
        #expect(events.filter { $0.name == "pin" }.count == 1 && events.filter { $0.name == "registered" }.count == 1)
    }

    @Test func pybraviaConnectsWithAPreSharedKeyAndDrivesTheTV() async throws {
        let (output, events) = try await run("psk", secret: "sony-psk-1")
        check(output, events)
        #expect(events.filter { $0.name == "pin" }.isEmpty)
    }
}
