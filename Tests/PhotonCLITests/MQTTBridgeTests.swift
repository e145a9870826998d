import Foundation
import PhotonCore
import PhotonMQTT
import PhotonNet
import PhotonStore
import PhotonTestSupport
import Testing

/// `photon serve --mqtt` against a real mosquitto broker on loopback, with paho-mqtt
/// 2.2.0 (Tests/peers/ha_client.py) on the Home Assistant side and emulated TVs.
@Suite(.serialized) struct MQTTBridgeTests {
    struct Site {
        let emulator: EmulatorProcess
        let home: URL
        let tvID = "lg-1f2e3d4c5b6a"
        var daemon: TestProcess?
    }

    func pairLG(_ emulator: EmulatorProcess) async throws -> URL {
        let home = try await TestEnvironment.home("photon-mqtt")
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
            [
                "serve", "--verbose", "--home", home.path, "--mqtt", "mqtt://127.0.0.1:\(broker.port)", "--mqtt-site", site, "--wake-broadcast",
                "127.0.0.1",
            ]
                + extra)
        try await daemon.waitFor("MQTT: connected")
        return daemon
    }

    func keys(_ emulator: EmulatorProcess) -> [String] { emulator.events("key").compactMap { $0["key"] as? String } }

    /// A broker, a paired emulated LG TV, a daemon for site `lab` bridged to the broker, and
    /// Home Assistant's side, the TV seen online.
    final class LabSite {
        let broker: Broker
        let emulator: EmulatorProcess
        let home: URL
        var daemon: TestProcess
        let ha: HomeAssistant
        let tv = "photon/lab/lg-1f2e3d4c5b6a"
        init(broker: Broker, emulator: EmulatorProcess, home: URL, daemon: TestProcess, ha: HomeAssistant) {
            (self.broker, self.emulator, self.home, self.daemon, self.ha) = (broker, emulator, home, daemon, ha)
        }
        deinit {
            daemon.terminate()
            emulator.process.terminate()
        }
    }

    func labSite() async throws -> LabSite {
        let broker = try await Broker()
        let emulator = try await EmulatorProcess.start(["lg", "--port", "0", "--plain-port", "0"])
        let home = try await pairLG(emulator)
        let daemon = try await serve(home, broker: broker, site: "lab")
        let ha = try await HomeAssistant(port: broker.port, site: "lab")
        ha.daemon = daemon
        let site = LabSite(broker: broker, emulator: emulator, home: home, daemon: daemon, ha: ha)
        try await ha.wait("the TV online") { ha.payloads("\(site.tv)/availability").last == "online" }
        return site
    }

    @Test func commandsGoThroughTheRouterExactlyOnce() async throws {
        let site = try await labSite()
        let (broker, emulator, home, ha, tv) = (site.broker, site.emulator, site.home, site.ha, site.tv)
        // A button press from HA: exactly one key.
        try await ha.publish("\(tv)/key/set", "home")
        try await ha.wait("the result") { ha.payloads("\(tv)/result").count == 1 }
        try await Task.sleep(for: .milliseconds(300))
        #expect(keys(emulator) == ["HOME"])
        // The Input select: the TV's label, through the router to tv/switchInput.
        try await ha.publish("\(tv)/input/set", "PlayStation")
        try await ha.wait("the input result") { ha.payloads("\(tv)/result").count == 2 }
        #expect(emulator.events("input").compactMap { $0["id"] as? String } == ["HDMI_2"])
        // A toast from the notify entity, and the picture off from the screen switch.
        try await ha.publish("\(tv)/notify/set", "Dinner is ready")
        try await ha.publish("\(tv)/screen/set", "OFF")
        try await ha.wait("the toast and screen results") { ha.payloads("\(tv)/result").count == 4 }
        #expect(emulator.events("toast").compactMap { $0["message"] as? String } == ["Dinner is ready"])
        #expect(emulator.events("screen").compactMap { $0["on"] as? Bool } == [false])
        // The power state sensor follows: screen-off, with LG's words as the reason.
        try await ha.wait("the screen-off power state") { ha.payloads("\(tv)/power_state").last == "screen-off" }
        #expect(ha.payloads("\(tv)/power_attributes").last == #"{"reason":"Screen Off"}"#)
        #expect(ha.payloads("\(tv)/power").last == "ON")
        // The sound output select: a standard name through the catalog's grammar; the
        // state comes back retained from the TV's report.
        try await ha.publish("\(tv)/sound/set", "optical")
        try await ha.wait("the sound output state") { ha.payloads("\(tv)/sound").last == "optical" }
        #expect(emulator.events("sound_output").compactMap { $0["output"] as? String } == ["external_optical"])
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
        site.daemon.terminate()
        _ = await site.daemon.waitForExit()
        let retained = UUID().uuidString
        let later = Date().timeIntervalSince1970
        try await ha.publish(
            "\(tv)/command", #"{"commandId":"\#(retained)","issuedAt":\#(later),"expiresAt":\#(later + 9),"key":"left"}"#, retain: true)
        site.daemon = try await serve(home, broker: broker, site: "lab")
        ha.daemon = site.daemon
        try await site.daemon.waitFor("ignored a retained command")
        try await Task.sleep(for: .milliseconds(300))
        #expect(keys(emulator) == ["HOME", "UP"])
        // And cleared it: a newcomer to the broker is handed no stored command.
        let newcomer = try await HomeAssistant(port: broker.port, site: "lab")
        try await Task.sleep(for: .milliseconds(200))
        #expect(!newcomer.messages.contains { $0.topic == "\(tv)/command" && $0.retain && !$0.payload.isEmpty }, "\(newcomer.messages)")

        // A payload over 8 KiB is dropped before it is copied, with a result saying so.
        try await ha.publish("\(tv)/key/set", String(repeating: "x", count: 9000))
        try await ha.wait("the oversize result") { ha.payloads("\(tv)/result").contains { $0.contains("over the 8 KiB limit") } }
        #expect(keys(emulator) == ["HOME", "UP"])
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
            try AndroidTVEndToEndTests.binary("photon"),
            ["mqtt", "login", "mqtt://127.0.0.1:\(broker.port)", "--username", "photon", "--home", home.path])
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
        let url = try TestProcess(
            try AndroidTVEndToEndTests.binary("photon"), ["serve", "--home", home.path, "--mqtt", "mqtt://photon:pw@127.0.0.1:1"])
        #expect(await url.waitForExit() == 2)
        // A stored login is not sent in clear to another machine: refused before anything
        // is sent. The address (192.0.2.0/24, a documentation network) is only data: the
        // daemon runs in a network namespace of its own with no route anywhere, so even a
        // regression could not reach it.
        let remote = try TestProcess(
            try AndroidTVEndToEndTests.binary("photon"), ["mqtt", "login", "mqtt://192.0.2.10:1883", "--username", "photon", "--home", home.path])
        remote.writeToStandardInput("s3cret-pw\n")
        remote.closeStandardInput()
        #expect(await remote.waitForExit() == 0, "\(remote.standardError)")
        try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare") && geteuid() == 0, "unshare -n needs root (CI runs as root)")
        let clear = try TestProcess(
            "/usr/bin/unshare", ["-n", try AndroidTVEndToEndTests.binary("photon"), "serve", "--home", home.path, "--mqtt", "mqtt://192.0.2.10:1883"])
        #expect(await clear.waitForExit() == 2)
        #expect(clear.standardError.contains("in clear") && clear.standardError.contains("mqtts://"), "\(clear.standardError)")
    }

    @Test func mqttsTrustsACAFileOrAPinnedCertificateAndNothingElse() async throws {
        let dir = try TestEnvironment.temporaryDirectory("mqtt-tls")
        let cert = dir.appendingPathComponent("broker.pem").path
        let key = dir.appendingPathComponent("broker.key").path
        let made = try TestEnvironment.run(
            "/usr/bin/openssl",
            [
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert, "-days", "2", "-subj", "/CN=127.0.0.1",
                "-addext", "subjectAltName=IP:127.0.0.1",
            ])
        #expect(made.status == 0, "\(made.output)")
        // mosquitto started as root drops to its own user, which must read them.
        chmod(key, 0o644)
        chmod(dir.path, 0o755)
        let port = try Broker.freePort()
        let config = dir.appendingPathComponent("mosquitto.conf")
        try "listener \(port) 127.0.0.1\nallow_anonymous true\ncertfile \(cert)\nkeyfile \(key)\n".write(
            to: config, atomically: true, encoding: .utf8)
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
