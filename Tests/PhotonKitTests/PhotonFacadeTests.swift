import Foundation
import PhotonConformance
import PhotonCore
import PhotonEmulatorPlugins
import PhotonEmulatorSupport
import PhotonKit
import PhotonNet
import PhotonPlugins
import PhotonStore
import PhotonTestSupport
import Testing

/// The library façade: the direct path goes through its router (the same commandId twice
/// reaches the TV once), and a TV that does not answer is woken before the send.
@Suite(.serialized) struct PhotonFacadeTests {
    /// A paired TV of `brand` in a fresh store, and a façade over that store.
    func setUp(_ brand: String, stateDirectory: URL? = nil) async throws -> (ConformanceHarness, Photon) {
        let plugin = try #require(BuiltInEmulators.all.first { $0.adapter.id == brand })
        let h = try await ConformanceHarness(plugin, stateDirectory: stateDirectory)
        var paired = try await h.pair()
        paired.device.nickname = "tv"
        let paths = StorePaths(home: try TestEnvironment.temporaryDirectory("photon-kit"))
        let store = Store(paths: paths)
        try await store.save(paired)
        // The façade must present the identity the TV paired with.
        try await store.update { _, secrets in
            secrets.identity = StoredIdentity(
                certificatePEM: h.context.clientIdentity.certificatePEM, privateKeyPEM: h.context.clientIdentity.privateKeyPEM)
        }
        return (h, try Photon(adapters: BuiltInPlugins.adapters, paths: paths, timeout: .seconds(5)))
    }

    @Test(arguments: BuiltInEmulators.all.filter { $0.emulator != nil }.map(\.adapter.id)) func theSameCommandIdTwiceIsDeliveredOnce(_ brand: String)
        async throws
    {
        let (h, photon) = try await setUp(brand)
        defer { Task { await h.stop() } }
        let tv = try await photon.connect("tv")
        let id = UUID()
        try await tv.send(.key(.key(.home), .press), id: id)
        let error = await #expect(throws: PhotonError.self) { try await tv.send(.key(.key(.home), .press), id: id) }
        #expect(error?.message.contains("duplicate") == true)
        // Another remote of the same process shares the router: still a duplicate.
        let other = try await photon.connect("tv")
        await #expect(throws: PhotonError.self) { try await other.send(.key(.key(.home), .press), id: id) }
        await other.close()
        await tv.close()
        try await Task.sleep(for: .milliseconds(300))
        #expect(h.events("key").count == 1)
    }

    /// A one-shot connection opened for a command tells the adapter which (an LG session
    /// opened for a button connects its pointer socket while it registers): the second
    /// connection appears with nothing sent; opened for nothing, there is none.
    @Test func aOneShotConnectionTellsTheAdapterWhatItIsOpenedFor() async throws {
        let (h, photon) = try await setUp("lg")
        defer { Task { await h.stop() } }
        let before = h.events("connection_accepted").count
        let plain = try await photon.connect("tv")
        try await plain.send(.launch("netflix"))
        #expect(h.events("connection_accepted").count == before + 1)
        await plain.close()
        let forAButton = try await photon.connect("tv", expecting: .key(.key(.home), .press))
        try await h.waitFor("connection_accepted", count: before + 3)
        #expect(h.events("pointer_connected").isEmpty)
        await forAButton.close()
    }

    /// A result says whether the TV confirmed the command: Roku answers every request,
    /// LG its SSAP requests but not pointer keys, Android TV and Samsung nothing.
    @Test func resultsSayWhetherTheTVAcknowledged() async throws {
        for (brand, command, acknowledged) in [
            ("roku", RemoteCommand.key(.key(.home), .press), true), ("roku", .text("x"), true), ("lg", .key(.key(.home), .press), false),
            ("lg", .text("x"), true), ("androidtv", .key(.key(.home), .press), false), ("samsung", .key(.key(.home), .press), false),
        ] {
            let (h, photon) = try await setUp(brand)
            let tv = try await photon.connect("tv")
            let outcome = try await tv.send(command)
            #expect(outcome == (acknowledged ? .acknowledged : .sent), "\(brand) \(command)")
            await tv.close()
            await h.stop()
        }
    }

    /// Commands to one TV run one at a time in arrival order: two texts sent at once to a
    /// Roku (one request per character) arrive whole, one after the other.
    @Test func concurrentTextsToOneTVDoNotInterleave() async throws {
        let (h, photon) = try await setUp("roku")
        defer { Task { await h.stop() } }
        let first = try await photon.connect("tv")
        let second = try await photon.connect("tv")
        async let a: Void = { _ = try await first.send(.text("aaaaaaaaaa")) }()
        async let b: Void = { _ = try await second.send(.text("bbbbbbbbbb")) }()
        _ = try await (a, b)
        await first.close()
        await second.close()
        try await h.waitFor("text", count: 20)
        // The emulated Roku reports its text field after each character.
        let typed = h.events("text").last?["text"]?.string ?? ""
        #expect(typed == "aaaaaaaaaabbbbbbbbbb" || typed == "bbbbbbbbbbaaaaaaaaaa", "\(typed)")
    }

    /// The conformance of every brand through the façade: each kind of command the TV
    /// declares goes through the router, the session service and the one capability
    /// check to the emulated TV; each kind it does not declare is refused unsent (exit 6).
    @Test(arguments: BuiltInEmulators.all.filter { $0.emulator != nil }.map(\.adapter.id))
    func everyDeclaredCommandGoesThroughTheFaçade(_ brand: String) async throws {
        let (h, photon) = try await setUp(brand)
        defer { Task { await h.stop() } }
        let adapter = try photon.registry.adapter(id: brand)
        let tv = try await photon.connect("tv")
        let declared = try #require(await tv.capabilities)
        let candidates: [RemoteCommand] = [
            .key(.key(.home), .press), .volume(.up), .longPress(.key(.select), milliseconds: 50), .text("photon"),
            .launch(adapter.descriptor.help.exampleApp.isEmpty ? "app" : adapter.descriptor.help.exampleApp), .setVolume(12), .search("photon"),
            .input(.hdmi(2)), .notify("photon"), .screen(on: false), .screen(on: true),
        ]
        for command in candidates {
            if declared.contains(command.requiredCapability) {
                try await tv.send(command)
            } else {
                let error = await #expect(throws: PhotonError.self, "\(command)") { try await tv.send(command) }
                #expect(error?.exitCode == 6, "\(command): \(error?.message ?? "")")
            }
        }
        await tv.close()
        try await h.waitFor("key")
    }

    @Test func aTVThatDoesNotAnswerIsWokenBeforeTheSend() async throws {
        guard let brand = BuiltInEmulators.all.first(where: { $0.emulator != nil && $0.adapter.descriptor.wakeMethod == .wakeOnLAN })?.adapter.id
        else {
            Issue.record("no registered brand wakes over Wake-on-LAN")
            return
        }
        let state = try TestEnvironment.temporaryDirectory("photon-wake-state")
        let (h, photon) = try await setUp(brand, stateDirectory: state)
        let ports = h.tv.ports
        await h.tv.stop()
        // The "TV" wakes when its magic packet arrives on loopback: a new emulated TV on the
        // same ports, remembering the same pairing.
        let receiver = try UDPReceiver(host: "127.0.0.1", port: 0)
        defer { receiver.close() }
        let woken = Locked<(any RunningEmulator)?>(nil)
        let emulator = h.emulator
        let waking = Task {
            guard let (packet, _) = try? await receiver.receive(timeout: .seconds(20)), packet.count == 102 else { return }
            var settings = EmulatorSettings(name: "Conformance TV", stateDirectory: state)
            for (option, name) in emulator.portOptions { settings.values[option] = ports[name].map(String.init) }
            if let tv = try? await emulator.start(settings, onEvent: { event in h.log.withLock { $0.append(event) } }) {
                woken.withLock { $0 = tv }
            }
        }
        defer {
            waking.cancel()
            Task { await woken.withLock { $0 }?.stop() }
        }
        let remote = try await photon.connect(
            "tv", wake: WakeRequest(destinations: ["127.0.0.1"], ports: [receiver.port], patience: .seconds(20)))
        #expect(remote.wasWoken)
        try await remote.send(.key(.key(.home), .press))
        await remote.close()
        try await h.waitFor("key")
        await woken.withLock { $0 }?.stop()
    }

    /// `photon apps`: brands that can list apps do; the others say unsupported (exit 6).
    @Test(arguments: BuiltInEmulators.all.filter { $0.emulator != nil }.map(\.adapter.id))
    func installedAppsWhereTheBrandCanListThem(_ brand: String) async throws {
        let (h, photon) = try await setUp(brand)
        defer { Task { await h.stop() } }
        let tv = try await photon.connect("tv")
        defer { Task { await tv.close() } }
        if await tv.capabilities?.contains(.appList) == true {
            let apps = try await tv.installedApps()
            #expect(!apps.isEmpty)
            #expect(apps.allSatisfy { !$0.id.isEmpty && !$0.name.isEmpty })
        } else {
            let error = await #expect(throws: PhotonError.self) { _ = try await tv.installedApps() }
            #expect(error?.exitCode == 6)
        }
    }
}
