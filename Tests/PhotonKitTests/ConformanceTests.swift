import Foundation
import PhotonCore
import PhotonEmulatorSupport
import PhotonTestSupport
import Testing

/// Every registered adapter against its emulated TV: the promises each brand keeps.
/// Parameterised over the registration list, so a new brand gets the whole suite by
/// registering; brand-specific tests hold only codecs and quirks.
@Suite(.serialized) struct ConformanceTests {
    static let brands = ConformanceHarness.brands

    /// Keys whose effect depends on the TV's state (a toggle, or a no-op when already
    /// in that state): checked by brand tests, not here.
    static let stateDependentKeys: Set<RemoteKey> = [.power, .powerOn, .powerOff]

    @Test(arguments: brands) func probeIdentifiesTheTV(_ brand: String) async throws {
        let h = try await ConformanceHarness(brand)
        defer { Task { await h.stop() } }
        let candidate = try #require(try await h.adapter.probe(host: "127.0.0.1", ports: h.tv.ports, context: h.context))
        #expect(candidate.brand == brand)
        #expect(!candidate.name.isEmpty)
    }

    @Test(arguments: brands) func pairingRoundTripsAndTheTVIsRemembered(_ brand: String) async throws {
        let h = try await ConformanceHarness(brand)
        defer { Task { await h.stop() } }
        let paired = try await h.pair()
        #expect(paired.device.brand == brand)
        #expect(paired.device.id.hasPrefix(brand))
        if let fingerprint = h.tv.certificateFingerprint { #expect(paired.secrets.pin == fingerprint) }
        for name in paired.secrets.values.keys { #expect(h.adapter.secretNames.contains(name), "undeclared secret \(name)") }
        // A second connection needs no pairing.
        let session = try await h.openSession(paired)
        await session.close()
    }

    @Test(arguments: brands) func everyKeyReachesTheTVAsItsCode(_ brand: String) async throws {
        let h = try await ConformanceHarness(brand)
        defer { Task { await h.stop() } }
        let session = try await h.openSession(try await h.pair())
        defer { Task { await session.close() } }
        let table = h.adapter.keyTable.filter { !Self.stateDependentKeys.contains($0.key) }
        #expect(!table.isEmpty)
        for mapping in table { try await session.send(.key(.key(mapping.key), .press)) }
        try await h.waitFor("key", count: table.count, within: .seconds(60))
        #expect(h.events("key").map { $0["key"]?.string ?? "" } == table.map(\.code))
    }

    @Test(arguments: brands) func anUnsupportedKeySendsNothing(_ brand: String) async throws {
        let h = try await ConformanceHarness(brand)
        defer { Task { await h.stop() } }
        let session = try await h.openSession(try await h.pair())
        defer { Task { await session.close() } }
        let mapped = Set(h.adapter.keyTable.map(\.key))
        var refused: [KeyInput] = [.raw("NOT A KEY CODE")]
        refused += RemoteKey.allCases.filter { !mapped.contains($0) && !Self.stateDependentKeys.contains($0) }.map { .key($0) }
        for input in refused {
            let error = await #expect(throws: PhotonError.self, "\(input)") { try await session.send(.key(input, .press)) }
            #expect(error?.code == .unsupported || error?.code == .usage, "\(input): \(error?.message ?? "")")
        }
        try await session.send(.key(.key(.home), .press))
        try await h.waitFor("key")
        #expect(h.events("key").count == 1)
    }

    @Test(arguments: brands) func textLaunchAndVolumeWhereTheBrandHasThem(_ brand: String) async throws {
        let h = try await ConformanceHarness(brand)
        defer { Task { await h.stop() } }
        let session = try await h.openSession(try await h.pair())
        defer { Task { await session.close() } }
        let capabilities = session.capabilities
        if capabilities.contains(.text) {
            try await session.send(.text("the expanse"))
            try await h.waitFor("text")
            #expect(h.events("text").last?["text"]?.string == "the expanse")
        } else {
            await #expect(throws: PhotonError.self) { try await session.send(.text("x")) }
        }
        if capabilities.contains(.appLaunch), !h.adapter.exampleApp.isEmpty {
            try await session.send(.launch(h.adapter.exampleApp))
            try await h.waitFor("launch")
            #expect(h.events("launch").last?["app"]?.string == h.adapter.exampleApp)
        }
        let volumeUp = try #require(h.adapter.keyTable.first { $0.key == .volumeUp })
        try await session.send(.volume(.up))
        try await h.waitFor("key")
        #expect(h.events("key").last?["key"]?.string == volumeUp.code)
    }

    @Test(arguments: brands) func aRotatedCertificateIsRefusedAndNothingIsSent(_ brand: String) async throws {
        let h = try await ConformanceHarness(brand)
        defer { Task { await h.stop() } }
        let paired = try await h.pair()
        guard h.tv.certificateFingerprint != nil else { return }  // a brand without TLS pins nothing
        try await h.tv.rotateCertificate()
        let ready = h.events("session_ready").count + h.events("prompt").count
        let error = await #expect(throws: PhotonError.self) { _ = try await h.openSession(paired) }
        #expect(error?.code == .pinMismatch)
        #expect(error?.exitCode == 5)
        // Refused right after the TLS handshake: no application message reached the TV.
        #expect(h.events("session_ready").count + h.events("prompt").count == ready)
        #expect(h.events("key").isEmpty)
    }

    @Test(arguments: brands) func aTVThatForgotUsRefusesWithExitFour(_ brand: String) async throws {
        let h = try await ConformanceHarness(brand)
        defer { Task { await h.stop() } }
        let paired = try await h.pair()
        await h.tv.forgetClients()
        let error = await #expect(throws: PhotonError.self) {
            let session = try await h.openSession(paired)
            try await session.send(.key(.key(.home), .press))
        }
        #expect(error?.exitCode == 4, "\(error?.code.rawValue ?? ""): \(error?.message ?? "")")
        #expect(h.events("key").isEmpty)
    }

    @Test(arguments: brands) func aDroppedTVEndsTheSessionCleanly(_ brand: String) async throws {
        let h = try await ConformanceHarness(brand)
        defer { Task { await h.stop() } }
        let session = try await h.openSession(try await h.pair())
        await h.tv.dropConnections()
        #expect(await ConformanceHarness.disconnection(of: session).ended, "the session did not report the drop")
        await #expect(throws: PhotonError.self) { try await session.send(.key(.key(.home), .press)) }
        await session.close()
    }

    @Test(arguments: brands) func malformedAndOversizeMessagesEndTheSessionWithAnError(_ brand: String) async throws {
        for oversize in [false, true] {
            let h = try await ConformanceHarness(brand)
            defer { Task { await h.stop() } }
            let session = try await h.openSession(try await h.pair())
            try await Task.sleep(for: .milliseconds(100))
            if oversize { await h.tv.sendOversizeMessage() } else { await h.tv.sendMalformedMessage() }
            let ended = await ConformanceHarness.disconnection(of: session)
            let reason = try #require(ended.reason, "no error for a \(oversize ? "oversize" : "malformed") message")
            #expect([.protocolViolation, .messageTooLarge, .connectionClosed].contains(reason.code), "\(reason.code): \(reason.message)")
            await #expect(throws: PhotonError.self) { try await session.send(.key(.key(.home), .press)) }
            await session.close()
        }
    }

    @Test(arguments: brands) func closingIsClean(_ brand: String) async throws {
        let h = try await ConformanceHarness(brand)
        defer { Task { await h.stop() } }
        let session = try await h.openSession(try await h.pair())
        try await session.send(.key(.key(.home), .press))
        await session.close()
        try await h.waitFor("client_disconnected")
        await #expect(throws: PhotonError.self) { try await session.send(.key(.key(.home), .press)) }
        #expect(h.events("key").count == 1)
    }
}
