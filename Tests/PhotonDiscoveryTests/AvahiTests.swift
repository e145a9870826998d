import Foundation
import PhotonCore
import PhotonDiscovery
import PhotonStore
import PhotonTestSupport
import Testing

/// Against the real avahi-daemon that `make test` starts on loopback only, with services
/// announced by `avahi-publish`.
@Suite(.serialized) struct AvahiTests {
    func publish(_ name: String, _ type: String, _ port: Int, _ txt: [String] = []) throws -> TestProcess {
        try TestProcess("/usr/bin/avahi-publish", ["-s", name, type, String(port)] + txt)
    }

    /// Collects events until `done` says so or the time is up.
    func collect(_ browser: AvahiBrowser, for seconds: Double, until done: @escaping ([DiscoveryEvent]) -> Bool) async -> [DiscoveryEvent] {
        let stopper = Task {
            try? await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
            browser.stop()
        }
        var seen: [DiscoveryEvent] = []
        for await event in browser.events {
            seen.append(event)
            if done(seen) { break }
        }
        stopper.cancel()
        return seen
    }

    @Test func findsAnnouncedServicesWithTXTAndDropsThemWhenGone() async throws {
        let type = "_androidtvremote2._tcp"
        let first = try publish("Photon Test Living Room", type, 16466, ["bt=AA:BB:CC:DD:EE:01"])
        defer { first.terminate() }
        let second = try publish("Wohnzimmer Fernseher ✓", type, 16468, ["bt=AA:BB:CC:DD:EE:02", "extra=1"])
        defer { second.terminate() }
        let browser = try AvahiBrowser(types: [type])
        defer { browser.stop() }
        let found = await collect(browser, for: 8) { events in
            Set(
                events.compactMap {
                    if case .found(let s) = $0, s.name.hasPrefix("Photon Test") || s.name.hasPrefix("Wohnzimmer") {
                        return s.name
                    } else {
                        return nil
                    }
                }
            ).count == 2
        }
        let services = found.compactMap { event -> DiscoveredService? in if case .found(let s) = event { return s } else { return nil } }
        let living = try #require(services.first { $0.name == "Photon Test Living Room" })
        #expect(living.port == 16466)
        #expect(living.type == type)
        #expect(living.txt["bt"] == "AA:BB:CC:DD:EE:01")
        #expect(living.addresses.contains { $0 == "127.0.0.1" || $0 == "::1" })
        let unicode = try #require(services.first { $0.name.hasPrefix("Wohnzimmer") })
        #expect(unicode.name == "Wohnzimmer Fernseher ✓")
        #expect(unicode.txt["extra"] == "1")

        // When the announcement goes away, the browser says so.
        let browser2 = try AvahiBrowser(types: [type])
        defer { browser2.stop() }
        let gone = Task { await collect(browser2, for: 10) { events in events.contains(.removed(name: "Photon Test Living Room", type: type)) } }
        try await Task.sleep(for: .milliseconds(1500))
        first.terminate()
        let afterward = await gone.value
        #expect(afterward.contains(.removed(name: "Photon Test Living Room", type: type)))
    }

    static var photon: String { TestEnvironment.repositoryRoot.appendingPathComponent(".build/debug/photon").path }

    @Test func noDaemonIsAClearErrorNotAHang() async throws {
        // A system bus where nothing answers (a fresh process, so libdbus reads the address).
        let start = ContinuousClock.now
        let p = try TestProcess(
            Self.photon, ["discover", "--timeout", "2", "--no-ssdp", "--home", try TestEnvironment.temporaryDirectory().path],
            environment: ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=/nonexistent/photon-test-bus"])
        #expect(await p.waitForExit(timeout: .seconds(10)) == 3)
        #expect(p.standardError.contains("avahi-daemon"))
        #expect(p.standardError.contains("photon probe"))
        #expect(ContinuousClock.now - start < .seconds(5))
    }

    @Test func discoverFindsPublishedEmulatorsOncePerTV() async throws {
        let emulator = TestEnvironment.repositoryRoot.appendingPathComponent(".build/debug/photon-emulator").path
        let suffix = String(UInt32.random(in: 0...UInt32.max), radix: 16)
        let android = try TestProcess(
            emulator, ["androidtv", "--port", "0", "--publish", "--name", "Photon Discover Test \(suffix)", "--mac", "02:00:00:D1:5C:01"])
        defer { android.terminate() }
        let samsung = try TestProcess(
            emulator, ["samsung", "--port", "0", "--rest-port", "0", "--publish", "--name", "[TV] Photon Discover Samsung \(suffix)"])
        defer { samsung.terminate() }
        try await android.waitFor("published")
        try await samsung.waitFor("published")
        // The Samsung is paired already (by the id it announces): discover marks it.
        let home = try TestEnvironment.temporaryDirectory()
        try await Store(paths: StorePaths(home: home)).save(
            PairedTV(
                device: DeviceRecord(id: "uuid:0b7a3c1e-photon-emulated", nickname: "bedroom", brand: "samsung", host: "127.0.0.9", port: 8002),
                secrets: DeviceSecrets(values: ["token": "T"])))
        let p = try TestProcess(Self.photon, ["discover", "--timeout", "4", "--json", "--no-ssdp", "--home", home.path])
        #expect(await p.waitForExit(timeout: .seconds(15)) == 0, "\(p.standardError)")
        let lines = p.standardOutput.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        let ours = lines.filter {
            ($0["name"] as? String)?.hasPrefix("Photon Discover") == true || ($0["name"] as? String)?.contains("Photon Discover Samsung") == true
        }
        let atv = ours.filter { $0["brand"] as? String == "androidtv" }
        #expect(atv.count == 1, "\(p.standardOutput)")
        #expect(atv.first?["mac"] as? String == "02:00:00:D1:5C:01")
        #expect((atv.first?["txt"] as? [String: String])?["bt"] == "02:00:00:D1:5C:01")
        let tv = ours.filter { $0["brand"] as? String == "samsung" }
        #expect(tv.count == 1, "\(p.standardOutput)")
        #expect(tv.first?["service"] as? String == "_samsungmsf._tcp")
        #expect(tv.first?["paired"] as? String == "bedroom" && (atv.first?["paired"] as? String) == nil, "\(ours)")
    }
}
