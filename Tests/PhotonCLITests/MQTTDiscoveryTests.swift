import Foundation
import PhotonTestSupport
import Testing

extension MQTTBridgeTests {
    @Test func discoveryHasWhatHomeAssistantRequiresAndStableIds() async throws {
        let broker = try await Broker()
        let emulator = try await EmulatorProcess.start(["lg", "--port", "0", "--plain-port", "0"])
        defer { emulator.process.terminate() }
        let home = try await pairLG(emulator)
        var daemon = try await serve(home, broker: broker, site: "lab")
        let ha = try await HomeAssistant(port: broker.port, site: "lab")
        ha.daemon = daemon
        let topic = "homeassistant/device/photon_lab_lg-1f2e3d4c5b6a/config"
        // Retained: a subscriber that joins later gets it from the broker.
        try await ha.wait("the retained discovery config") { ha.messages.contains { $0.topic == topic && $0.retain } }
        try await ha.wait("the app list in the config") { ha.payloads(topic).last?.contains("Netflix") == true }
        let first = try #require(ha.payloads(topic).last)
        let config = try #require(try JSONSerialization.jsonObject(with: Data(first.utf8)) as? [String: Any])
        let device = try #require(config["dev"] as? [String: Any])
        #expect((device["ids"] as? [String]) == ["photon_lab_lg-1f2e3d4c5b6a"])
        // The nickname the user gave, the brand (not its protocol) as the maker (newcomer #29).
        #expect(device["name"] as? String == "den" && device["mf"] as? String == "LG webOS", "\(device)")
        #expect((device["mdl"] as? String)?.contains("OLED65C25LB") == true, "\(device)")
        let origin = try #require(config["o"] as? [String: Any])
        #expect(origin["name"] as? String == "photon" && origin["sw"] != nil)
        let components = try #require(config["cmps"] as? [String: [String: Any]])
        for (name, component) in components {
            #expect(component["p"] is String, "\(name) has no platform")
            #expect((component["uniq_id"] as? String)?.hasPrefix("photon_lab_lg-1f2e3d4c5b6a_") == true, "\(name)")
        }
        let platforms = Set(components.values.compactMap { $0["p"] as? String })
        #expect(platforms == ["switch", "number", "select", "text", "button", "sensor", "notify"])
        #expect(components["screen"]?["cmd_t"] as? String == "photon/lab/lg-1f2e3d4c5b6a/screen/set")
        #expect((components["source"]?["options"] as? [String])?.contains("Netflix") == true)
        // The Input select offers the TV's own labels (the user renamed HDMI 2).
        #expect((components["input"]?["options"] as? [String]) == ["HDMI 1", "PlayStation", "HDMI 3", "AV"], "\(components["input"] ?? [:])")
        // The sound output select, derived from the catalog entry: its standard names, its state.
        #expect((components["sound"]?["options"] as? [String]) == ["speaker", "arc", "optical", "bluetooth", "headphone", "lineout"])
        #expect(components["sound"]?["stat_t"] as? String == "photon/lab/lg-1f2e3d4c5b6a/sound")
        #expect(components["sound"]?["cmd_t"] as? String == "photon/lab/lg-1f2e3d4c5b6a/sound/set")
        #expect((config["avty"] as? [[String: Any]])?.contains { $0["t"] as? String == "photon/lab/availability" } == true)
        // The same ids after a restart of the daemon.
        daemon.terminate()
        _ = await daemon.waitForExit()
        try await ha.wait("offline after the daemon stopped") { ha.payloads("photon/lab/availability").last == "offline" }
        let count = ha.payloads(topic).count
        daemon = try await serve(home, broker: broker, site: "lab")
        ha.daemon = daemon
        defer { daemon.terminate() }
        try await ha.wait("the config again") { ha.payloads(topic).count > count }
        // The first config after the restart already has every entity (the app list is
        // waited for), so Home Assistant never drops and re-adds the Source select.
        let again = try #require(try JSONSerialization.jsonObject(with: Data(ha.payloads(topic)[count].utf8)) as? [String: Any])
        let ids = { (c: [String: Any]) in ((c["cmps"] as? [String: [String: Any]]) ?? [:]).values.compactMap { $0["uniq_id"] as? String }.sorted() }
        #expect(ids(again) == ids(config))
        // HA's birth message makes the bridge publish everything again.
        let before = ha.payloads(topic).count
        try await ha.publish("homeassistant/status", "online")
        try await ha.wait("a republish on HA's birth") { ha.payloads(topic).count > before }
    }
}
