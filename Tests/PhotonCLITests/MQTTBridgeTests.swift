import Foundation
import PhotonNet
import PhotonCore
import PhotonMQTT
import PhotonStore
import PhotonTestSupport
import Testing

/// `photon serve --mqtt` against a real mosquitto broker on loopback, with paho-mqtt
/// 2.2.0 (Tests/peers/ha_client.py) on the Home Assistant side and emulated TVs.
@Suite(.serialized) struct MQTTBridgeTests {
    /// A mosquitto broker on a free loopback port (local-only mode: no config file).
    final class Broker {
        let port: UInt16
        private(set) var process: TestProcess
        init(port: UInt16? = nil, config: String? = nil) async throws {
            let chosen = try port ?? Self.freePort()
            self.port = chosen
            process = try Self.launch(chosen, config: config)
            try await Self.waitUntilListening(chosen)
        }
        static func launch(_ port: UInt16, config: String?) throws -> TestProcess {
            guard FileManager.default.isExecutableFile(atPath: "/usr/sbin/mosquitto") else {
                throw TestFailure("no /usr/sbin/mosquitto: scripts/setup.sh test installs it")
            }
            if let config { return try TestProcess("/usr/sbin/mosquitto", ["-c", config]) }
            return try TestProcess("/usr/sbin/mosquitto", ["-p", String(port)])
        }
        static func freePort() throws -> UInt16 {
            let result = try TestEnvironment.run("/usr/bin/python3", ["-c", "import socket; s=socket.socket(); s.bind(('127.0.0.1',0)); print(s.getsockname()[1])"])
            guard let port = UInt16(result.output.trimmingCharacters(in: .whitespacesAndNewlines)) else { throw TestFailure("no free port") }
            return port
        }
        static func waitUntilListening(_ port: UInt16) async throws {
            for _ in 0..<100 {
                if try TestEnvironment.run("/usr/bin/python3", ["-c", "import socket; socket.create_connection(('127.0.0.1',\(port)),0.2)"]).status == 0 { return }
                try await Task.sleep(for: .milliseconds(50))
            }
            throw TestFailure("mosquitto did not start on \(port)")
        }
        func restart(config: String? = nil) async throws {
            process.terminate()
            _ = await process.waitForExit()
            process = try Self.launch(port, config: config)
            try await Self.waitUntilListening(port)
        }
        deinit { process.terminate() }
    }

    /// The HA side: paho-mqtt subscribed to the discovery prefix and a site's topics.
    final class HomeAssistant {
        let process: TestProcess
        /// The daemon under test: its (verbose) log goes into a failure's message.
        var daemon: TestProcess?
        init(port: UInt16, site: String, prefix: String = "homeassistant") async throws {
            process = try TestProcess(try TestEnvironment.python, [TestEnvironment.peerScript("ha_client.py"), String(port), prefix, site])
            try await process.waitFor("READY")
        }
        var messages: [(topic: String, payload: String, retain: Bool)] {
            process.standardOutput.split(separator: "\n").compactMap { line in
                guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], let topic = object["topic"] as? String
                else { return nil }
                return (topic, object["payload"] as? String ?? "", object["retain"] as? Bool ?? false)
            }
        }
        func payloads(_ topic: String) -> [String] { messages.filter { $0.topic == topic }.map(\.payload) }
        func publish(_ topic: String, _ payload: String, retain: Bool = false) async throws {
            let before = process.standardOutput.components(separatedBy: "\"published\"").count
            process.writeToStandardInput("pub \(topic) \(payload.isEmpty ? "-" : payload)\(retain ? " retain" : "")\n")
            for _ in 0..<200 where process.standardOutput.components(separatedBy: "\"published\"").count == before {
                try await Task.sleep(for: .milliseconds(10))
            }
        }
        func wait(_ what: String, within limit: Duration = .seconds(15), _ condition: () -> Bool) async throws {
            let end = ContinuousClock.now + limit
            while !condition() {
                guard ContinuousClock.now < end else {
                    let log = daemon.map { "\nthe daemon's log, last lines:\n" + $0.standardError.split(separator: "\n").suffix(40).joined(separator: "\n") }
                    throw TestFailure("never saw \(what); saw \(messages.map(\.topic))\(log ?? "")")
                }
                try await Task.sleep(for: .milliseconds(20))
            }
        }
        deinit { process.terminate() }
    }

    struct Site {
        let emulator: EmulatorProcess
        let home: URL
        let tvID = "lg-1f2e3d4c5b6a"
        var daemon: TestProcess?
    }

    func pairLG(_ emulator: EmulatorProcess) async throws -> URL {
        let home = try TestEnvironment.temporaryDirectory("photon-mqtt")
        let p = try TestProcess(
            try AndroidTVEndToEndTests.binary("photon"),
            ["pair", "127.0.0.1:\(emulator.port)", "--brand", "lg", "--trust", emulator.fingerprint, "--name", "den", "--home", home.path])
        p.closeStandardInput()
        #expect(await p.waitForExit() == 0, "\(p.standardError)")
        return home
    }

    func serve(_ home: URL, broker: Broker, site: String, extra: [String] = []) async throws -> TestProcess {
        let daemon = try TestProcess(
            try AndroidTVEndToEndTests.binary("photon"),
            ["serve", "--verbose", "--home", home.path, "--mqtt", "mqtt://127.0.0.1:\(broker.port)", "--mqtt-site", site, "--wake-broadcast", "127.0.0.1"]
                + extra)
        try await daemon.waitFor("MQTT: connected")
        return daemon
    }

    func keys(_ emulator: EmulatorProcess) -> [String] { emulator.events("key").compactMap { $0["key"] as? String } }

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
        try await ha.wait("the app list in the config") { ha.payloads(topic).last?.contains("\"select\"") == true }
        let first = try #require(ha.payloads(topic).last)
        let config = try #require(try JSONSerialization.jsonObject(with: Data(first.utf8)) as? [String: Any])
        let device = try #require(config["dev"] as? [String: Any])
        #expect((device["ids"] as? [String]) == ["photon_lab_lg-1f2e3d4c5b6a"])
        #expect(device["name"] != nil && device["mf"] != nil)
        let origin = try #require(config["o"] as? [String: Any])
        #expect(origin["name"] as? String == "photon" && origin["sw"] != nil)
        let components = try #require(config["cmps"] as? [String: [String: Any]])
        for (name, component) in components {
            #expect(component["p"] is String, "\(name) has no platform")
            #expect((component["uniq_id"] as? String)?.hasPrefix("photon_lab_lg-1f2e3d4c5b6a_") == true, "\(name)")
        }
        let platforms = Set(components.values.compactMap { $0["p"] as? String })
        #expect(platforms == ["switch", "number", "select", "text", "button", "sensor"])
        #expect((components["source"]?["options"] as? [String])?.contains("Netflix") == true)
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

    @Test func commandsGoThroughTheRouterExactlyOnce() async throws {
        let broker = try await Broker()
        let emulator = try await EmulatorProcess.start(["lg", "--port", "0", "--plain-port", "0"])
        defer { emulator.process.terminate() }
        let home = try await pairLG(emulator)
        var daemon = try await serve(home, broker: broker, site: "lab")
        let ha = try await HomeAssistant(port: broker.port, site: "lab")
        ha.daemon = daemon
        let tv = "photon/lab/lg-1f2e3d4c5b6a"
        try await ha.wait("the TV online") { ha.payloads("\(tv)/availability").last == "online" }
        // A button press from HA: exactly one key.
        try await ha.publish("\(tv)/key/set", "home")
        try await ha.wait("the result") { ha.payloads("\(tv)/result").count == 1 }
        try await Task.sleep(for: .milliseconds(300))
        #expect(keys(emulator) == ["HOME"])
        // Volume from the number entity; the state comes back retained.
        try await ha.publish("\(tv)/volume/set", "27")
        try await ha.wait("the volume state") { ha.payloads("\(tv)/volume").last == "27" }
        // A duplicated commandId (a QoS 1 redelivery) is executed once.
        let id = UUID().uuidString
        let now = Date().timeIntervalSince1970
        let command = #"{"commandId":"\#(id)","issuedAt":\#(now),"expiresAt":\#(now + 8),"key":"up"}"#
        try await ha.publish("\(tv)/command", command)
        try await ha.publish("\(tv)/command", command)
        try await ha.wait("two results") { ha.payloads("\(tv)/result").filter { $0.contains(id.lowercased()) }.count == 2 }
        let results = ha.payloads("\(tv)/result").filter { $0.contains(id.lowercased()) }
        #expect(results.filter { $0.contains("\"ok\":true") }.count == 1)
        #expect(results.contains { $0.contains("duplicate") })
        // An expired command is refused.
        let stale = UUID().uuidString
        try await ha.publish("\(tv)/command", #"{"commandId":"\#(stale)","issuedAt":\#(now - 60),"expiresAt":\#(now - 30),"key":"down"}"#)
        try await ha.wait("the expired result") { ha.payloads("\(tv)/result").contains { $0.contains(stale.lowercased()) } }
        #expect(ha.payloads("\(tv)/result").first { $0.contains(stale.lowercased()) }?.contains("\"ok\":false") == true)
        try await Task.sleep(for: .milliseconds(300))
        #expect(keys(emulator) == ["HOME", "UP"])
        // A retained command waiting on the broker is never executed by a daemon that
        // (re)subscribes, even though it is neither a duplicate nor expired for it.
        daemon.terminate()
        _ = await daemon.waitForExit()
        let retained = UUID().uuidString
        let later = Date().timeIntervalSince1970
        try await ha.publish("\(tv)/command", #"{"commandId":"\#(retained)","issuedAt":\#(later),"expiresAt":\#(later + 9),"key":"left"}"#, retain: true)
        daemon = try await serve(home, broker: broker, site: "lab")
        ha.daemon = daemon
        defer { daemon.terminate() }
        try await daemon.waitFor("ignored a retained command")
        try await Task.sleep(for: .milliseconds(300))
        #expect(keys(emulator) == ["HOME", "UP"])
        try await ha.publish("\(tv)/command", "", retain: true)
    }

    /// "Power on" wakes a TV through the router: an expired message or a repeated one
    /// (a QoS 1 redelivery) sends no Wake-on-LAN packet, a fresh one does.
    @Test func anExpiredOrRepeatedPowerOnSendsNoWakeOnLAN() async throws {
        let broker = try await Broker()
        let emulator = try await EmulatorProcess.start(["lg", "--port", "0", "--plain-port", "0"])
        let home = try await pairLG(emulator)
        // The TV is off: nothing answers at its address.
        emulator.process.terminate()
        _ = await emulator.process.waitForExit()
        let receiver = try UDPReceiver(host: "127.0.0.1", port: 0)
        defer { receiver.close() }
        let daemon = try await serve(home, broker: broker, site: "lab", extra: ["--wake-port", String(receiver.port), "--wake-wait", "1"])
        defer { daemon.terminate() }
        let ha = try await HomeAssistant(port: broker.port, site: "lab")
        ha.daemon = daemon
        let tv = "photon/lab/lg-1f2e3d4c5b6a"
        func packets(within limit: Duration) async -> Int {
            var count = 0
            while let (packet, _) = try? await receiver.receive(timeout: limit) {
                if packet.count == 102 { count += 1 }
            }
            return count
        }
        func result(_ id: String) async throws -> String {
            try await ha.wait("the result of \(id)") { ha.payloads("\(tv)/result").contains { $0.contains(id.lowercased()) } }
            return ha.payloads("\(tv)/result").last { $0.contains(id.lowercased()) } ?? ""
        }
        let now = Date().timeIntervalSince1970
        let stale = UUID().uuidString
        try await ha.publish("\(tv)/command", #"{"commandId":"\#(stale)","issuedAt":\#(now - 60),"expiresAt":\#(now - 30),"power":"on"}"#)
        #expect(try await result(stale).contains("expired"))
        #expect(await packets(within: .milliseconds(500)) == 0, "an expired power-on woke the TV")
        // A fresh one wakes it (each of its MACs, to the one port); the TV stays off, so
        // the wait ends after --wake-wait with a timeout.
        let fresh = UUID().uuidString
        let command = #"{"commandId":"\#(fresh)","issuedAt":\#(now),"expiresAt":\#(now + 9),"power":"on"}"#
        try await ha.publish("\(tv)/command", command)
        #expect(await packets(within: .milliseconds(800)) >= 1, "a fresh power-on sent no Wake-on-LAN")
        #expect(try await result(fresh).contains("\"ok\":false"))
        // Its redelivery is a duplicate: no packet.
        let before = ha.payloads("\(tv)/result").count
        try await ha.publish("\(tv)/command", command)
        try await ha.wait("the duplicate's result") { ha.payloads("\(tv)/result").count > before }
        #expect(ha.payloads("\(tv)/result").last?.contains("duplicate") == true)
        #expect(await packets(within: .milliseconds(500)) == 0, "a repeated power-on woke the TV again")
    }

    @Test func brokerAndTVOutagesAreIndependent() async throws {
        let broker = try await Broker()
        let state = try TestEnvironment.temporaryDirectory("mqtt-tv-state")
        var emulator = try await EmulatorProcess.start(["lg", "--port", "0", "--plain-port", "0", "--state", state.path])
        let home = try await pairLG(emulator)
        let daemon = try await serve(home, broker: broker, site: "lab")
        defer { daemon.terminate() }
        let tv = "photon/lab/lg-1f2e3d4c5b6a"
        var ha = try await HomeAssistant(port: broker.port, site: "lab")
        ha.daemon = daemon
        try await ha.wait("the TV online") { ha.payloads("\(tv)/availability").last == "online" }
        // The broker restarts (without persistence: every retained message is gone); the
        // bridge reconnects and publishes discovery and state again.
        try await broker.restart()
        try await daemon.waitFor("MQTT: lost the broker")
        ha = try await HomeAssistant(port: broker.port, site: "lab")
        ha.daemon = daemon
        try await ha.wait("discovery after the broker restart", within: .seconds(40)) {
            ha.messages.contains { $0.topic == "homeassistant/device/photon_lab_lg-1f2e3d4c5b6a/config" }
        }
        try await ha.wait("state after the broker restart") { ha.payloads("\(tv)/availability").last == "online" }
        // The TV restarts: offline, then online again; the broker connection is untouched.
        let port = String(emulator.port)
        emulator.process.terminate()
        _ = await emulator.process.waitForExit()
        try await ha.wait("the TV offline") { ha.payloads("\(tv)/availability").last == "offline" }
        emulator = try await EmulatorProcess.start(["lg", "--port", port, "--plain-port", "0", "--state", state.path])
        defer { emulator.process.terminate() }
        try await ha.wait("the TV online again", within: .seconds(40)) { ha.payloads("\(tv)/availability").last == "online" }
        try await ha.publish("\(tv)/key/set", "back")
        try await ha.wait("the key after the TV restart") { self.keys(emulator) == ["BACK"] }
    }

    @Test func twoSitesOnOneBrokerDoNotCrossTalkAndForgettingRemovesTheDevice() async throws {
        let broker = try await Broker()
        let emulatorA = try await EmulatorProcess.start(["lg", "--port", "0", "--plain-port", "0"])
        defer { emulatorA.process.terminate() }
        let emulatorB = try await EmulatorProcess.start(["lg", "--port", "0", "--plain-port", "0"])
        defer { emulatorB.process.terminate() }
        let homeA = try await pairLG(emulatorA)
        let homeB = try await pairLG(emulatorB)
        let daemonA = try await serve(homeA, broker: broker, site: "hotel-a")
        defer { daemonA.terminate() }
        let daemonB = try await serve(homeB, broker: broker, site: "hotel-b")
        defer { daemonB.terminate() }
        let haA = try await HomeAssistant(port: broker.port, site: "hotel-a")
        try await haA.wait("site a's TV") { haA.payloads("photon/hotel-a/lg-1f2e3d4c5b6a/availability").last == "online" }
        // The same TV id at both sites (the same emulated model): separate devices.
        #expect(haA.messages.contains { $0.topic == "homeassistant/device/photon_hotel-a_lg-1f2e3d4c5b6a/config" })
        #expect(haA.messages.contains { $0.topic == "homeassistant/device/photon_hotel-b_lg-1f2e3d4c5b6a/config" })
        try await haA.publish("photon/hotel-a/lg-1f2e3d4c5b6a/key/set", "right")
        try await haA.wait("site a's key") { self.keys(emulatorA) == ["RIGHT"] }
        try await Task.sleep(for: .milliseconds(300))
        #expect(keys(emulatorB).isEmpty)
        // Forgetting a TV at site b removes it from HA: an empty retained config.
        let forget = try TestProcess(try AndroidTVEndToEndTests.binary("photon"), ["forget", "den", "--home", homeB.path])
        #expect(await forget.waitForExit() == 0)
        try await haA.wait("the empty config") {
            haA.messages.contains { $0.topic == "homeassistant/device/photon_hotel-b_lg-1f2e3d4c5b6a/config" && $0.payload.isEmpty }
        }
        #expect(!haA.messages.contains { $0.topic == "homeassistant/device/photon_hotel-a_lg-1f2e3d4c5b6a/config" && $0.payload.isEmpty })
    }

    @Test func theBrokerLoginLivesInTheSecretStore() async throws {
        let dir = try TestEnvironment.temporaryDirectory("mqtt-auth")
        let port = try Broker.freePort()
        let passwords = dir.appendingPathComponent("passwd").path
        #expect(try TestEnvironment.run("/usr/bin/mosquitto_passwd", ["-b", "-c", passwords, "photon", "s3cret-pw"]).status == 0)
        let config = dir.appendingPathComponent("mosquitto.conf")
        try "listener \(port) 127.0.0.1\nallow_anonymous false\npassword_file \(passwords)\n".write(to: config, atomically: true, encoding: .utf8)
        let broker = try await Broker(port: port, config: config.path)
        let emulator = try await EmulatorProcess.start(["lg", "--port", "0", "--plain-port", "0"])
        defer { emulator.process.terminate() }
        let home = try await pairLG(emulator)
        // Without a login the broker refuses, and the daemon says so.
        let refused = try TestProcess(
            try AndroidTVEndToEndTests.binary("photon"),
            ["serve", "--home", home.path, "--mqtt", "mqtt://127.0.0.1:\(broker.port)", "--mqtt-site", "lab"])
        try await refused.waitFor("refused the connection")
        refused.terminate()
        _ = await refused.waitForExit()
        let login = try TestProcess(
            try AndroidTVEndToEndTests.binary("photon"), ["mqtt", "login", "mqtt://127.0.0.1:\(broker.port)", "--username", "photon", "--home", home.path])
        login.writeToStandardInput("s3cret-pw\n")
        login.closeStandardInput()
        #expect(await login.waitForExit() == 0, "\(login.standardError)")
        #expect(!login.standardOutput.contains("s3cret-pw") && !login.standardError.contains("s3cret-pw"))
        let secrets = StorePaths(home: home).secretsFile
        var st = stat()
        stat(secrets.path, &st)
        #expect(st.st_mode & 0o777 == 0o600)
        #expect(try String(contentsOf: secrets, encoding: .utf8).contains("s3cret-pw"))
        #expect(try String(contentsOf: StorePaths(home: home).devicesFile, encoding: .utf8).contains("s3cret-pw") == false)
        let daemon = try await serve(home, broker: broker, site: "lab")
        defer { daemon.terminate() }
        #expect(!daemon.standardError.contains("s3cret-pw"))
        // A URL with the password in it is refused: it would show in process lists.
        let url = try TestProcess(try AndroidTVEndToEndTests.binary("photon"), ["serve", "--home", home.path, "--mqtt", "mqtt://photon:pw@127.0.0.1:1"])
        #expect(await url.waitForExit() == 2)
    }

    @Test func mqttsTrustsACAFileOrAPinnedCertificateAndNothingElse() async throws {
        let dir = try TestEnvironment.temporaryDirectory("mqtt-tls")
        let cert = dir.appendingPathComponent("broker.pem").path, key = dir.appendingPathComponent("broker.key").path
        let made = try TestEnvironment.run("/usr/bin/openssl", [
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert, "-days", "2", "-subj", "/CN=127.0.0.1",
            "-addext", "subjectAltName=IP:127.0.0.1",
        ])
        #expect(made.status == 0, "\(made.output)")
        // mosquitto started as root drops to its own user, which must read them.
        chmod(key, 0o644)
        chmod(dir.path, 0o755)
        let port = try Broker.freePort()
        let config = dir.appendingPathComponent("mosquitto.conf")
        try "listener \(port) 127.0.0.1\nallow_anonymous true\ncertfile \(cert)\nkeyfile \(key)\n".write(to: config, atomically: true, encoding: .utf8)
        let broker = try await Broker(port: port, config: config.path)
        let emulator = try await EmulatorProcess.start(["lg", "--port", "0", "--plain-port", "0"])
        defer { emulator.process.terminate() }
        let home = try await pairLG(emulator)
        let der = try TestEnvironment.run("/bin/sh", ["-c", "openssl x509 -in '\(cert)' -outform DER | sha256sum | cut -d' ' -f1"])
        let fingerprint = der.output.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(fingerprint.count == 64)
        func serveTLS(_ extra: [String]) throws -> TestProcess {
            try TestProcess(
                try AndroidTVEndToEndTests.binary("photon"),
                ["serve", "--home", home.path, "--mqtt", "mqtts://127.0.0.1:\(broker.port)", "--mqtt-site", "lab"] + extra)
        }
        for trust in [["--mqtt-ca", cert], ["--mqtt-pin", fingerprint]] {
            let daemon = try serveTLS(trust)
            try await daemon.waitFor("MQTT: connected")
            daemon.terminate()
            _ = await daemon.waitForExit()
        }
        // Another pin: the TLS handshake fails, so the daemon never connects.
        let wrong = try serveTLS(["--mqtt-pin", String(repeating: "ab", count: 32)])
        try await wrong.waitFor("certificate verify failed")
        #expect(!wrong.standardError.contains("MQTT: connected"))
        wrong.terminate()
        _ = await wrong.waitForExit()
        // mqtts without saying whom to trust is a usage error.
        let unsaid = try serveTLS([])
        #expect(await unsaid.waitForExit() == 2)
        #expect(unsaid.standardError.contains("--mqtt-ca"))
    }

    /// A daemon holding thousands of TV sessions reconnects to its broker with a socket
    /// numbered above 1024, which `select`-based loops (libmosquitto's own) refuse.
    @Test func theClientWorksWithDescriptorsAbove1024() async throws {
        let broker = try await Broker()
        var held: [Int32] = []
        defer { for fd in held { close(fd) } }
        while held.count < 1100 {
            let fd = open("/dev/null", O_RDONLY)
            guard fd >= 0 else { break }
            held.append(fd)
        }
        try #require((held.last ?? 0) > 1024, "cannot open enough descriptors here")
        let client = try MQTTClient(MQTTClient.Options(host: "127.0.0.1", port: broker.port, clientID: "high-fd"))
        try client.start()
        defer { client.stop() }
        let connected = try await withTimeout(.seconds(10), "connecting with a high descriptor") { () -> Bool in
            for await event in client.events { if case .connected = event { return true } }
            return false
        }
        #expect(connected)
        try client.subscribe("photon/high-fd/#")
        try await Task.sleep(for: .milliseconds(100))
        #expect(client.publish("photon/high-fd/x", "hello"))
        let echoed = try await withTimeout(.seconds(5), "the message back") { () -> String? in
            for await event in client.events { if case .message(let m) = event { return String(decoding: m.payload, as: UTF8.self) } }
            return nil
        }
        #expect(echoed == "hello")
    }
}
