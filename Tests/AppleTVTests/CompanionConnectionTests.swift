import AppleTVEmulator
import Foundation
import PhotonCore
import PhotonEmulatorSupport
import PhotonNet
import Testing

@testable import AppleTV

/// Photon's Companion client against the emulated Apple TV over loopback: pairing with the
/// PIN it shows, verification on every connection, encrypted requests and events, and each
/// misbehaviour ending in its error with nothing sent.
@Suite(.serialized) struct CompanionConnectionTests {
    func start(_ configure: (inout EmulatedAppleTV.Configuration) -> Void = { _ in }) throws -> (EmulatedAppleTV, Locked<[EmulatorEvent]>) {
        let events = Locked<[EmulatorEvent]>([])
        var configuration = EmulatedAppleTV.Configuration()
        configuration.port = 0
        configure(&configuration)
        return (try EmulatedAppleTV.start(configuration) { event in events.withLock { $0.append(event) } }, events)
    }

    func connect(_ tv: EmulatedAppleTV) async throws -> CompanionConnection {
        let connection = CompanionConnection(stream: try await SocketStream.connect(host: "127.0.0.1", port: tv.port, timeout: .seconds(3)))
        await connection.start()
        return connection
    }

    /// Pairs, reading the PIN from the emulator's `pairing_code` event.
    func pair(_ tv: EmulatedAppleTV, _ events: Locked<[EmulatorEvent]>, pin: String? = nil) async throws -> HAPCredentials {
        let connection = try await connect(tv)
        defer { Task { await connection.close() } }
        return try await CompanionPairing.setup(on: connection, name: "Photon", timeout: .seconds(5)) {
            if let pin { return pin }
            return events.withLock { $0.last { $0.name == "pairing_code" }?["code"]?.string } ?? ""
        }
    }

    @Test func pairsVerifiesAndSendsEncryptedRequests() async throws {
        let (tv, events) = try start()
        defer { Task { await tv.stop() } }
        let credentials = try await pair(tv, events)
        #expect(credentials.tvPublicKey == tv.longTermPublicKey)
        #expect(events.withLock { $0.contains { $0.name == "paired" } })

        let connection = try await connect(tv)
        defer { Task { await connection.close() } }
        try await CompanionPairing.verify(on: connection, credentials: credentials, timeout: .seconds(5))
        let info = try await connection.request("_systemInfo", .object([("_i", .string("photon"))]), timeout: .seconds(3))
        #expect(info["_mdl"]?.stringValue == "AppleTV14,1")
        try await connection.request("_hidC", .object([("_hBtS", .int(1)), ("_hidC", .int(7))]), timeout: .seconds(3))
        try await connection.request("_hidC", .object([("_hBtS", .int(2)), ("_hidC", .int(7))]), timeout: .seconds(3))
        #expect(
            events.withLock { $0.filter { $0.name.hasPrefix("key") }.map { "\($0.name) \($0["key"]?.string ?? "")" } } == [
                "key_down Home", "key Home",
            ])
        let apps = try await connection.request("FetchLaunchableApplicationsEvent", timeout: .seconds(3))
        #expect(apps["com.netflix.Netflix"]?.stringValue == "Netflix")
        try await connection.request("_launchApp", .object([("_bundleID", .string("com.netflix.Netflix"))]), timeout: .seconds(3))
        let refused = await #expect(throws: PhotonError.self) {
            try await connection.request("_launchApp", .object([("_bundleID", .string("com.example.none"))]), timeout: .seconds(3))
        }
        #expect(refused?.message.contains("no such app") == true)
        #expect(try await connection.request("FetchAttentionState", timeout: .seconds(3))["state"]?.intValue == 3)
    }

    @Test func aWrongPINIsRefusedAndNothingIsStored() async throws {
        let (tv, events) = try start { $0.pin = "1234" }
        defer { Task { await tv.stop() } }
        let error = await #expect(throws: PhotonError.self) { _ = try await pair(tv, events, pin: "9999") }
        #expect(error?.code == .authenticationRefused)
        #expect(!events.withLock { $0.contains { $0.name == "paired" } })
    }

    @Test(arguments: [EmulatedAppleTV.Misbehaviour.wrongProof, .wrongSignature])
    func aTVThatCannotProveItselfIsNotPaired(_ misbehaviour: EmulatedAppleTV.Misbehaviour) async throws {
        let (tv, events) = try start { $0.misbehaviour = misbehaviour }
        defer { Task { await tv.stop() } }
        let error = await #expect(throws: PhotonError.self) { _ = try await pair(tv, events) }
        #expect(error?.code == .authenticationRefused, "\(misbehaviour)")
    }

    @Test func anotherKeyAtTheAddressFailsClosedBeforeAnythingIsSent() async throws {
        let (tv, events) = try start()
        let credentials = try await pair(tv, events)
        await tv.stop()
        // Another Apple TV (another long-term key) on the same port.
        let (impostor, seen) = try start {
            $0.port = tv.port
            $0.misbehaviour = .newKey
        }
        defer { Task { await impostor.stop() } }
        let connection = try await connect(impostor)
        defer { Task { await connection.close() } }
        let error = await #expect(throws: PhotonError.self) {
            try await CompanionPairing.verify(on: connection, credentials: credentials, timeout: .seconds(5))
        }
        #expect(error?.code == .pinMismatch)
        #expect(!seen.withLock { $0.contains { $0.name == "verified" || $0.name == "key" } })
    }

    @Test func aForgottenClientIsRefusedWithPairAgain() async throws {
        let (tv, events) = try start()
        defer { Task { await tv.stop() } }
        let credentials = try await pair(tv, events)
        tv.forgetControllers()
        let connection = try await connect(tv)
        defer { Task { await connection.close() } }
        let error = await #expect(throws: PhotonError.self) {
            try await CompanionPairing.verify(on: connection, credentials: credentials, timeout: .seconds(5))
        }
        #expect(error?.code == .authenticationRefused)
        #expect(error?.hint?.contains("pair") == true)
    }

    @Test(arguments: [EmulatedAppleTV.Misbehaviour.garbage, .oversize, .silent])
    func aMisbehavingTVEndsInAClearErrorWithinTheTimeout(_ misbehaviour: EmulatedAppleTV.Misbehaviour) async throws {
        // The misbehaviour starts once the connection is verified.
        let (tv, events) = try start { $0.misbehaviour = misbehaviour }
        defer { Task { await tv.stop() } }
        let credentials = try await pair(tv, events)
        let connection = try await connect(tv)
        defer { Task { await connection.close() } }
        try await CompanionPairing.verify(on: connection, credentials: credentials, timeout: .seconds(5))
        let started = ContinuousClock.now
        await #expect(throws: PhotonError.self) { try await connection.request("_systemInfo", timeout: .seconds(1)) }
        #expect(ContinuousClock.now - started < .seconds(5))
        if misbehaviour != .silent { #expect(await connection.endReason != nil, "the connection stayed open after \(misbehaviour)") }
    }
}
