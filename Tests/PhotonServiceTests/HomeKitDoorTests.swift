import Foundation
import PhotonCore
import PhotonDiscovery
import PhotonEmulatorSupport
import PhotonHAP
import PhotonKit
import PhotonNet
import PhotonPlugins
import PhotonStore
import PhotonTestSupport
import Roku
import RokuEmulator
import Testing

@testable import PhotonService

/// The HomeKit door of a daemon in this process in front of an emulated Roku, driven by
/// aiohomekit 4.0.1's IP controller by direct connect: pairing with the code `photon
/// homekit show` gives, RemoteKey writes arriving as keys, Active switching power once,
/// ActiveIdentifier launching the app, volume steps and mute, and `revoke`/`reset` from
/// the store cutting the controller off.
@Suite(.serialized) struct HomeKitDoorTests {
    final class Fixture: Sendable {
        let server: ServiceServer
        let door: HomeKitDoor
        let roku: EmulatedRoku
        let events: Locked<[EmulatorEvent]>
        let store: Store
        let deviceID: String
        let setupPort: UInt16
        let accessoryID: String
        private let started = Locked<HomeKitController?>(nil)
        /// aiohomekit's controller, started at the first command.
        var peer: HomeKitController {
            get throws {
                try started.withLock { started in
                    if let started { return started }
                    let controller = try HomeKitController(port: setupPort, accessoryID: accessoryID)
                    started = controller
                    return controller
                }
            }
        }

        init(announces: Bool = false, configure: (inout HomeKitDoorSettings) -> Void = { _ in }) async throws {
            let events = Locked<[EmulatorEvent]>([])
            var configuration = EmulatedRoku.Configuration()
            configuration.port = 0
            roku = try EmulatedRoku.start(configuration) { event in events.withLock { $0.append(event) } }
            self.events = events
            let paths = StorePaths(home: try await TestEnvironment.home("photon-homekit"))
            store = Store(paths: paths)
            let context = AdapterContext(connector: NetConnector(), clientIdentity: try TestEnvironment.sharedClientIdentity, timeout: .seconds(3))
            var paired = try await RokuAdapter().pairing(
                with: Endpoint(host: "127.0.0.1", port: roku.port), options: AdapterOptionValues(), context: context
            ).run(responder: HTTPDoorTests.NoQuestions())
            paired.device.nickname = "tv"
            try await store.save(paired)
            deviceID = paired.device.id
            let photon = try Photon(
                adapters: BuiltInPlugins.adapters, paths: paths, timeout: .seconds(5), policy: .keepWarm(ReconnectBackoff()), cachesStore: true)
            server = ServiceServer(photon: photon, log: ServiceLog(notice: { _ in }, debug: .silent))
            var settings = HomeKitDoorSettings()
            settings.address = "127.0.0.1"
            settings.storeCheck = .milliseconds(100)
            settings.announces = announces
            configure(&settings)
            door = try await server.startHomeKit(settings)
            let port = try #require(door.ports[paired.device.id])
            let record = try await store.homeKitAccessory(for: paired.device.id)
            #expect(record.port == port, "the port is kept for the next start")
            setupPort = port
            accessoryID = record.identity.deviceID
        }

        func keys() -> [String] { events.withLock { $0.filter { $0.name == "key" }.compactMap { $0["key"]?.string } } }
        func launches() -> [String] { events.withLock { $0.filter { $0.name == "launch" }.compactMap { $0["app"]?.string } } }

        /// Sends one command to aiohomekit and waits for its JSON line.
        func ask(_ command: String) async throws -> [String: Any] { try await peer.ask(command) }

        /// Waits until `condition` holds (the emulator saw what the door sent).
        func until(_ what: String, _ condition: () -> Bool) async throws {
            let end = ContinuousClock.now + .seconds(10)
            while !condition() {
                guard ContinuousClock.now < end else { throw TestFailure("timed out waiting for \(what)") }
                try await Task.sleep(for: .milliseconds(10))
            }
        }

        func stop() async {
            if let peer = started.withLock({ $0 }) { await peer.stop() }
            await server.stop()
            await roku.stop()
        }
    }

    @Test func aiohomekitDrivesTheEmulatedRokuThroughTheDoor() async throws {
        let tv = try await Fixture()
        let code = try await tv.store.homeKitAccessory(for: tv.deviceID).identity.setupCode.formatted
        #expect(try await tv.ask("pair \(code)")["paired"] as? Bool == true)
        #expect(try await tv.store.homeKitAccessory(for: tv.deviceID).identity.isPaired, "the pairing is stored")

        // The TV's apps and inputs are its InputSources.
        let inputs = try #require(try await tv.ask("inputs")["inputs"] as? [[String: Any]])
        let netflix = try #require(inputs.first { $0["name"] as? String == "Netflix" }?["identifier"] as? Int)

        // Keys from the iPhone's remote arrive as the Roku's keys.
        for (value, key) in [(4, "Up"), (8, "Select"), (11, "Play")] {
            #expect(try await tv.ask("put 1.15=\(value)").isEmpty)
            try await tv.until("\(key)") { tv.keys().last == key }
        }
        // An input picked in the Home app launches the app.
        #expect(try await tv.ask("put 1.12=\(netflix)").isEmpty)
        try await tv.until("the launch") { tv.launches() == ["12"] }
        // Volume steps and mute.
        #expect(try await tv.ask("put 1.34=0").isEmpty)
        try await tv.until("VolumeUp") { tv.keys().last == "VolumeUp" }
        #expect(try await tv.ask("put 1.31=true").isEmpty)
        try await tv.until("VolumeMute") { tv.keys().last == "VolumeMute" }
        // Power: off, then on twice — the second "on" sends nothing.
        #expect(try await tv.ask("put 1.11=0").isEmpty)
        try await tv.until("PowerOff") { tv.keys().last == "PowerOff" }
        #expect(try await tv.ask("put 1.11=1").isEmpty)
        try await tv.until("PowerOn") { tv.keys().last == "PowerOn" }
        #expect(try await tv.ask("put 1.11=1").isEmpty)
        #expect(try await tv.ask("put 1.15=5").isEmpty)
        try await tv.until("Down") { tv.keys().last == "Down" }
        #expect(tv.keys().filter { $0 == "PowerOn" }.count == 1)
        // A remap from the store (`photon homekit remap`): information sends Home.
        try await tv.store.updateHomeKitAccessory(for: tv.deviceID) { $0.keyRemap = ["information": "home"] }
        try await tv.until("the remap") { tv.door.hosts.withLock { $0[tv.deviceID]?.bridge.keys.withLock { $0[15] } } == .home }
        #expect(try await tv.ask("put 1.15=15").isEmpty)
        try await tv.until("Home") { tv.keys().last == "Home" }
        // Pause from the Home app: the Roku has one play/pause key, so it gets that; "View TV
        // Settings" needs a settings key the Roku lacks: refused with HAP's code.
        let playPauses = tv.keys().filter { $0 == "Play" }.count
        #expect(try await tv.ask("put 1.17=1").isEmpty)
        try await tv.until("Play") { tv.keys().filter { $0 == "Play" }.count == playPauses + 1 }
        let settingsMenu = try await tv.ask("put 1.18=0")
        #expect((settingsMenu["1.18"] as? [String: Any])?["status"] as? Int == -70410)
        // A key HomeKit does not define is refused with HAP's code, nothing sent.
        let unknownKey = try await tv.ask("put 1.15=12")
        #expect((unknownKey["1.15"] as? [String: Any])?["status"] as? Int == -70410)

        // A name and a hidden input set in the Home app are kept.
        let place = try #require(inputs.firstIndex { $0["name"] as? String == "Netflix" })
        let base = 100 + 10 * place
        #expect(try await tv.ask("put 1.\(base + 1)=\"Films\" 1.\(base + 5)=1").isEmpty)
        let remembered = try await tv.store.homeKitAccessory(for: tv.deviceID)
        #expect(remembered.names?[String(netflix)] == "Films")
        #expect(remembered.hidden == [netflix])

        // `photon homekit revoke` (the store) cuts the controller off within the check.
        let me = try #require(try await tv.ask("whoami")["id"] as? String)
        #expect(try await tv.store.revokeHomeKitController(me, for: tv.deviceID))
        let end = ContinuousClock.now + .seconds(5)
        var refused = false
        while !refused, ContinuousClock.now < end {
            refused = !(try await tv.ask("get 1.11")["error"] as? String ?? "").isEmpty
            if !refused { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(refused, "a revoked controller is refused")

        // After a restart: the same port, the names and hidden inputs as the Home app left them.
        let port = try #require(tv.door.ports[tv.deviceID])
        await tv.door.stop()
        var settings = HomeKitDoorSettings()
        settings.address = "127.0.0.1"
        settings.announces = false
        let again = HomeKitDoor(photon: tv.server.photon, settings: settings, log: ServiceLog(notice: { _ in }, debug: .silent))
        try await again.start()
        #expect(again.ports[tv.deviceID] == port)
        let accessory = try #require(again.hosts.withLock { $0[tv.deviceID]?.server.accessory })
        let films = try #require(accessory.services.first { $0.iid == base })
        #expect(films.characteristics.first { $0.type == "E3" }?.value == .string("Films"))
        #expect(films.characteristics.first { $0.type == "135" }?.value == .int(1))
        await again.stop()
        await tv.stop()
    }

    @Test func aCrowdIsHeldToTheCapsAndAConnectionThatDoesNotVerifyEnds() async throws {
        let tv = try await Fixture {
            $0.maximumConnectionsPerPeer = 2
            $0.verifyWithin = .milliseconds(300)
        }
        let port = try #require(tv.door.ports[tv.deviceID])
        func connect() async throws -> SocketStream { try await SocketStream.connect(host: "127.0.0.1", port: port, timeout: .seconds(3)) }
        /// What the accessory answers to an unverified request, or "" once it closed.
        func answer(_ stream: SocketStream) async -> String {
            try? await stream.write(Array("GET /accessories HTTP/1.1\r\nHost: tv\r\n\r\n".utf8), timeout: .seconds(3))
            let bytes = (try? await stream.read(maxLength: 4096, timeout: .seconds(3))) ?? []
            return String(decoding: bytes, as: UTF8.self)
        }
        let first = try await connect()
        let second = try await connect()
        #expect(await answer(first).hasPrefix("HTTP/1.1 470"))
        #expect(await answer(second).hasPrefix("HTTP/1.1 470"))
        // A third from the same address is closed at once.
        let third = try await connect()
        #expect(await answer(third) == "")

        // The two that never verified are closed after their time; then there is room again.
        let closed = (try? await first.read(maxLength: 4096, timeout: .seconds(5))) ?? []

        #expect(closed.isEmpty)
        _ = try? await second.read(maxLength: 4096, timeout: .seconds(5))
        // (The door counts a connection out as it closes it: try again a moment.)
        var admitted = false
        let end = ContinuousClock.now + .seconds(3)
        while !admitted, ContinuousClock.now < end {
            let fourth = try await connect()
            admitted = await answer(fourth).hasPrefix("HTTP/1.1 470")
            await fourth.close()
            if !admitted { try await Task.sleep(for: .milliseconds(20)) }
        }
        #expect(admitted)
        for stream in [first, second, third] { await stream.close() }
        await tv.stop()
    }

    @Test func aReloadOpensAnAccessoryForATVPairedSinceAndClosesAForgottenOnes() async throws {
        let tv = try await Fixture()
        var configuration = EmulatedRoku.Configuration()
        configuration.port = 0
        configuration.serial = "YN00PHOTON02"
        configuration.mac = "02:00:00:52:4F:4C"
        let second = try EmulatedRoku.start(configuration) { _ in }
        let context = AdapterContext(connector: NetConnector(), clientIdentity: try TestEnvironment.sharedClientIdentity, timeout: .seconds(3))
        var paired = try await RokuAdapter().pairing(
            with: Endpoint(host: "127.0.0.1", port: second.port), options: AdapterOptionValues(), context: context
        ).run(responder: HTTPDoorTests.NoQuestions())
        paired.device.nickname = "bedroom"
        try await tv.store.save(paired)
        await tv.server.reload()
        #expect(tv.door.ports.count == 2)
        let port = try #require(tv.door.ports[paired.device.id])
        #expect(try await tv.store.homeKitAccessory(for: paired.device.id).port == port)
        _ = try await tv.store.forget("bedroom")
        await tv.server.reload()
        #expect(tv.door.ports.keys.sorted() == [tv.deviceID])
        await second.stop()
        await tv.stop()
    }

    @Test func theAccessoryIsAnnouncedWithHAPsTXTRecord() async throws {
        // Through the loopback-only avahi-daemon `make test` runs.
        let tv = try await Fixture(announces: true)
        let identity = try await tv.store.homeKitAccessory(for: tv.deviceID).identity
        let port = try #require(tv.door.ports[tv.deviceID])
        let browser = try AvahiBrowser(types: ["_hap._tcp"])
        let stopper = Task {
            try? await Task.sleep(for: .seconds(10))
            browser.stop()
        }
        var announced: DiscoveredService?
        for await event in browser.events {
            if case .found(let service) = event, service.port == port {
                announced = service
                break
            }
        }
        stopper.cancel()
        browser.stop()
        let service = try #require(announced, "the accessory was not announced")
        #expect(service.name == "tv")
        #expect(service.txt["id"] == identity.deviceID)
        #expect(service.txt["ci"] == "31")
        #expect(service.txt["sf"] == "1", "unpaired")
        #expect(service.txt["pv"] == "1.1")
        #expect(service.txt["ff"] == "0")
        #expect(service.txt["c#"] == String(identity.configurationNumber))
        #expect(service.txt["sh"] == HAPSetupPayload.setupHash(setupID: identity.setupID, deviceID: identity.deviceID))
        await tv.stop()
    }
}
