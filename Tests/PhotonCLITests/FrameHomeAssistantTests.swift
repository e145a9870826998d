import Foundation
import PhotonTestSupport
import Testing

/// A Frame through `photon serve --mqtt`, as Home Assistant sees it: the power state sensor
/// says `art` (and the power switch off) while it shows art, the Art mode switch exists and
/// drives it, and the state follows.
@Suite(.serialized) struct FrameHomeAssistantTests {
    let mqtt = MQTTBridgeTests()
    let e2e = AndroidTVEndToEndTests()

    @Test func artModeReachesHomeAssistantAsAPowerStateAndASwitch() async throws {
        let broker = try await MQTTBridgeTests.Broker()
        let tv = try await EmulatorProcess.samsung(["--frame", "--art-mode"])
        defer { tv.process.terminate() }
        let home = try await TestEnvironment.home("photon-frame-mqtt")
        let paired = try await e2e.finished(
            home,
            ["pair", "127.0.0.1:\(tv.port)", "--brand", "samsung", "--rest-port", String(tv.restPort), "--trust", tv.fingerprint, "--name", "frame"],
            input: nil)
        #expect(paired.process.terminationStatus == 0, "\(paired.standardError)")
        let daemon = try await mqtt.serve(home, broker: broker, site: "lab")
        defer { daemon.terminate() }
        let ha = try await MQTTBridgeTests.HomeAssistant(port: broker.port, site: "lab")
        ha.daemon = daemon
        let topic = "photon/lab/samsung-0200005a4d53"
        // The power state and the power switch are two topics, published one after the other.
        try await ha.wait("the art power state and the switch off") {
            ha.payloads("\(topic)/power_state").last == "art" && ha.payloads("\(topic)/power").last == "OFF"
        }
        let config = ha.messages.last { $0.topic == "homeassistant/device/photon_lab_samsung-0200005a4d53/config" }?.payload ?? ""
        #expect(config.contains("\(topic)/art/set") && config.contains("\"art\""), "\(config)")
        try await ha.publish("\(topic)/art/set", "OFF")
        try await ha.wait("the on power state and the switch on") {
            ha.payloads("\(topic)/power_state").last == "on" && ha.payloads("\(topic)/power").last == "ON"
        }
        #expect(tv.events("art_mode").compactMap { $0["value"] as? String } == ["off"])
    }
}
