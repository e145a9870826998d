import Foundation
import PhotonCore
import PhotonMQTT
import PhotonTestSupport
import Testing

/// The broker as a less trusted source: what a publisher may make the daemon do, one
/// daemon per site, and nothing published during an outage arriving stale.
extension MQTTBridgeTests {
    /// Whoever can publish on the broker sends as the `mqtt` source: no raw key codes and
    /// no links (an `intent:` on Android TV, a page in the LG browser) unless the site
    /// allows them with `--mqtt-allow`; keys and app ids go as before.
    @Test func aBrokerIsNotAFullyTrustedController() async throws {
        let site = try await labSite()
        let (broker, emulator, home, ha, tv) = (site.broker, site.emulator, site.home, site.ha, site.tv)
        func command(_ body: String) async throws -> String {
            let id = UUID().uuidString
            let now = Date().timeIntervalSince1970
            try await ha.publish("\(tv)/command", #"{"commandId":"\#(id)","issuedAt":\#(now),"expiresAt":\#(now + 8),\#(body)}"#)
            try await ha.wait("the result of \(body)") { ha.payloads("\(tv)/result").contains { $0.contains(id.lowercased()) } }
            return ha.payloads("\(tv)/result").first { $0.contains(id.lowercased()) } ?? ""
        }
        let raw = try await command(#""raw":"MENU""#)
        #expect(raw.contains("\"ok\":false") && raw.contains("raw key codes") && raw.contains("--mqtt-allow raw"), "\(raw)")
        let link = try await command(#""launch":"https://example.com/phish""#)
        #expect(link.contains("\"ok\":false") && link.contains("links"), "\(link)")
        // LG's pointer keys are not answered: the result says so.
        let key = try await command(#""key":"home""#)
        #expect(key.contains("\"ok\":true") && key.contains("\"acknowledged\":false"), "\(key)")
        // A topic is untrusted text: a right-to-left override passes the broker but not
        // into the daemon's log.
        try await ha.publish("photon/lab/\u{202E}gnp.exe/command", "{}")
        try await site.daemon.waitFor("names no TV of this site")
        #expect(!site.daemon.standardError.contains("\u{202E}"))
        try await Task.sleep(for: .milliseconds(200))
        #expect(keys(emulator) == ["HOME"])
        #expect(emulator.events("launch").isEmpty)

        // A site that trusts its broker allows raw codes. The first daemon's retained
        // "online" is still there: wait for the new daemon's own, which it publishes only
        // after it claimed the site and subscribed to commands.
        site.daemon.terminate()
        _ = await site.daemon.waitForExit()
        let announced = ha.payloads("\(tv)/availability").count
        site.daemon = try await serve(home, broker: broker, site: "lab", extra: ["--mqtt-allow", "raw"])
        ha.daemon = site.daemon
        try await ha.wait("the TV online again") {
            let availability = ha.payloads("\(tv)/availability")
            return availability.count > announced && availability.last == "online"
        }
        #expect(try await command(#""raw":"MENU""#).contains("\"ok\":true"))
        try await ha.wait("the raw key") { keys(emulator) == ["HOME", "MENU"] }
    }

    /// Two daemons with the same site name (the default is the host name: two boxes both
    /// called `raspberrypi`) would share availability and last will: the second turns its
    /// bridge off, with the fix, and goes on serving its socket (round 4, L10: retained
    /// messages anyone can publish must not stop a daemon). The same daemon restarted after
    /// a crash finds itself the owner.
    @Test func aSecondDaemonForTheSameSiteTurnsItsBridgeOffAndGoesOn() async throws {
        let broker = try await Broker()
        let firstHome = try await TestEnvironment.home("photon-mqtt-a")
        let first = try await serve(firstHome, broker: broker, site: "raspberrypi")
        defer { first.terminate() }
        try await first.waitFor("MQTT: connected")
        let ha = try await HomeAssistant(port: broker.port, site: "raspberrypi")
        try await ha.wait("the first daemon online") { ha.payloads("photon/raspberrypi/availability").last == "online" }
        let secondHome = try await TestEnvironment.home("photon-mqtt-b")
        let second = try TestProcess(
            try AndroidTVEndToEndTests.binary("photon"),
            ["serve", "--home", secondHome.path, "--mqtt", "mqtt://127.0.0.1:\(broker.port)", "--mqtt-site", "raspberrypi"])
        defer { second.terminate() }
        try await second.waitFor("the MQTT bridge is off", timeout: .seconds(15))
        #expect(
            second.standardError.contains("already serves MQTT site 'raspberrypi'") && second.standardError.contains("--mqtt-site"),
            "\(second.standardError)")
        #expect(ha.payloads("photon/raspberrypi/availability").last == "online")
        // The daemon goes on: its socket answers.
        let list = try TestEnvironment.run(try AndroidTVEndToEndTests.binary("photon"), ["list", "--json", "--home", secondHome.path])
        #expect(list.status == 0, "\(list.output)")
        #expect(second.process.isRunning)

        // The first one, killed without a goodbye and started again at once (its will not
        // sent yet), is the owner it finds: it goes on.
        kill(first.process.processIdentifier, SIGKILL)
        _ = await first.waitForExit()
        let again = try await serve(firstHome, broker: broker, site: "raspberrypi")
        defer { again.terminate() }
        #expect(!again.standardError.contains("already serves"))
    }

    /// A daemon holding thousands of TV sessions reconnects to its broker with a socket
    /// numbered above 1024, which `select`-based loops (libmosquitto's own) refuse.
    /// What is published while the broker is away is dropped, not queued and flushed
    /// stale after the reconnect (libmosquitto would).
    @Test func nothingPublishedDuringAnOutageArrivesLater() async throws {
        let broker = try await Broker()
        var options = MQTTClient.Options(host: "127.0.0.1", port: broker.port, clientID: "photon-outage-\(UUID().uuidString.prefix(8))")
        options.keepAlive = 5
        let client = try MQTTClient(options)
        try client.start()
        defer { client.stop() }
        let seen = Locked<[String]>([])
        let reader = Task {
            for await event in client.events {
                switch event {
                case .connected: seen.withLock { $0.append("connected") }
                case .disconnected: seen.withLock { $0.append("disconnected") }
                default: continue
                }
            }
        }
        defer { reader.cancel() }
        func next(_ wanted: String, count: Int = 1) async throws {
            let end = ContinuousClock.now + .seconds(15)
            while seen.withLock({ $0.filter { $0 == wanted }.count }) < count {
                guard ContinuousClock.now < end else { throw TestFailure("the MQTT client never reported \(wanted)") }
                try await Task.sleep(for: .milliseconds(20))
            }
        }
        try await next("connected")
        try await broker.restart {
            // The broker is down (the client has seen it go): this must not come out
            // after the reconnect.
            try await next("disconnected")
            #expect(!client.publish("photon/outage/result", "stale", qos: 1))
        }
        let watcher = try await HomeAssistant(port: broker.port, site: "outage")
        try await next("connected", count: 2)
        #expect(client.publish("photon/outage/result", "fresh", qos: 1))
        try await watcher.wait("the fresh message") { watcher.payloads("photon/outage/result").contains("fresh") }
        #expect(!watcher.payloads("photon/outage/result").contains("stale"))
    }
}
