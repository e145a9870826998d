import AppleTVEmulator
import Foundation
import PhotonCore
import PhotonEmulatorSupport
import PhotonNet
import PhotonTestSupport
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

    /// Round 4, M6: a plaintext event put before pair-verify's answer (a relay's "asleep")
    /// is never read: before encryption only pairing frames are, after it only the events
    /// the session uses.
    @Test func aPlaintextEventBeforeVerifyIsNeverRead() async throws {
        let (tv, events) = try start { $0.misbehaviour = .plaintextEvent }
        defer { Task { await tv.stop() } }
        let credentials = try await pair(tv, events)
        let connection = try await connect(tv)
        let received = Task {
            var names: [String] = []
            for await event in connection.events { names.append(event.name) }
            return names
        }
        try await CompanionPairing.verify(on: connection, credentials: credentials, timeout: .seconds(5))
        _ = try await connection.request("_systemInfo", timeout: .seconds(5))
        await connection.close()
        #expect(events.withLock { $0.contains { $0.name == "plaintext_event" } }, "the emulator sent no plaintext event")
        #expect(!(await received.value).contains("SystemStatus"))
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

    /// Frames reach the wire in the order they were sealed (the nonce is a counter) even
    /// when a write is slow to start: the stream here holds every third write back a
    /// moment, as a busy machine's scheduler may, while other tasks send.
    @Test func concurrentSendersKeepTheNonceOrder() async throws {
        let (tv, events) = try start()
        defer { Task { await tv.stop() } }
        let credentials = try await pair(tv, events)
        let slow = SlowStartStream(try await SocketStream.connect(host: "127.0.0.1", port: tv.port, timeout: .seconds(3)))
        let connection = CompanionConnection(stream: slow)
        await connection.start()
        defer { Task { await connection.close() } }
        try await CompanionPairing.verify(on: connection, credentials: credentials, timeout: .seconds(5))
        slow.delaying.withLock { $0 = true }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for n in 0..<24 {
                group.addTask {
                    if n % 4 == 0 {
                        try await connection.event("_interest", .object([("_regEvents", .array([.string("SystemStatus")]))]))
                    } else {
                        _ = try await connection.request("FetchAttentionState", timeout: .seconds(10))
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(!events.withLock { $0.contains { $0.name == "client_error" } }, "\(events.withLock { $0.filter { $0.name == "client_error" } })")
    }

    /// An open remote session on a verified connection, as the adapter makes it.
    func session(_ tv: EmulatedAppleTV, _ events: Locked<[EmulatorEvent]>) async throws -> AppleTVSession {
        let credentials = try await pair(tv, events)
        let connection = try await connect(tv)
        try await CompanionPairing.verify(on: connection, credentials: credentials, timeout: .seconds(5))
        let context = AdapterContext(connector: NetConnector(), clientIdentity: try TestEnvironment.sharedClientIdentity, timeout: .seconds(5))
        return try await AppleTVSession.open(connection, context: context)
    }

    /// Text goes through the text-input session: typed text is inserted into the open
    /// field (appended, as typing does), and with no field open nothing is sent.
    @Test func textIsTypedIntoTheOpenFieldThroughTheTextInputSession() async throws {
        let (tv, events) = try start()
        defer { Task { await tv.stop() } }
        let session = try await session(tv, events)
        defer { Task { await session.close() } }
        try await session.send(.text("the "))
        try await session.send(.text("expanse"))
        try await waitFor(events) { $0.filter { $0.name == "text" }.count == 2 }
        #expect(events.withLock { $0.last { $0.name == "text" }?["field"]?.string } == "the expanse")
        #expect(!events.withLock { $0.contains { $0.name == "text_refused" } })
        #expect(!session.confirms(.text("x")))

        let (closed, closedEvents) = try start { $0.keyboard = false }
        defer { Task { await closed.stop() } }
        let noField = try await self.session(closed, closedEvents)
        defer { Task { await noField.close() } }
        let error = await #expect(throws: PhotonError.self) { try await noField.send(.text("x")) }
        #expect(error?.code == .notFound)
        #expect(error?.hint?.contains("text field") == true)
        #expect(!closedEvents.withLock { $0.contains { $0.name == "text" || $0.name == "text_refused" } })
    }

    /// A volume level is a media control, reported back once the Apple TV confirms it;
    /// one that controls no volume refuses with the reason, nothing sent.
    @Test func aVolumeLevelIsSetAndReportedOrRefusedWithTheReason() async throws {
        let (tv, events) = try start()
        defer { Task { await tv.stop() } }
        let session = try await session(tv, events)
        defer { Task { await session.close() } }
        let seen = Locked<[TVEvent]>([])
        let watcher = Task { for await event in session.events { seen.withLock { $0.append(event) } } }
        defer { watcher.cancel() }
        // The flags that come with registering show the level it has (50).
        try await waitFor(seen) { $0.contains(.volume(VolumeState(level: 50, maximum: 100, muted: false))) }
        try await session.send(.setVolume(35))
        try await waitFor(seen) { $0.contains(.volume(VolumeState(level: 35, maximum: 100, muted: false))) }
        #expect(events.withLock { $0.last { $0.name == "volume" }?["level"] } == .int(35))

        let (mute, muteEvents) = try start { $0.volumeControl = false }
        defer { Task { await mute.stop() } }
        let noVolume = try await self.session(mute, muteEvents)
        defer { Task { await noVolume.close() } }
        // Refused whether its media controls arrived first (nothing sent) or not (the
        // Apple TV refuses the request).
        let error = await #expect(throws: PhotonError.self) { try await noVolume.send(.setVolume(10)) }
        #expect(error?.code == .unsupported)
        #expect(!muteEvents.withLock { $0.contains { $0.name == "volume" } })
    }

    /// The power key is Sleep or Wake by the attention state: a session does not wait for
    /// that state to open (no other command needs it), so a power key sent at once must
    /// wait for it, and an asleep Apple TV is woken, an awake one put to sleep.
    @Test(arguments: [(Int64(1), "awake"), (Int64(3), "asleep")])
    func thePowerKeyRightAfterOpeningFollowsTheAttentionState(attention: Int64, becomes: String) async throws {
        let (tv, events) = try start()
        defer { Task { await tv.stop() } }
        tv.setAttention(attention)
        let session = try await session(tv, events)
        defer { Task { await session.close() } }
        try await session.send(.key(.key(.power), .press))
        try await waitFor(events) { $0.contains { $0.name == "power" } }
        #expect(events.withLock { $0.filter { $0.name == "power" }.map { $0["state"]?.string } } == [becomes])
    }

    func waitFor<T: Sendable>(_ list: Locked<[T]>, _ found: @escaping ([T]) -> Bool) async throws {
        for _ in 0..<500 where !found(list.withLock { $0 }) { try await Task.sleep(for: .milliseconds(10)) }
        if !found(list.withLock { $0 }) { throw TestFailure("not seen in 5 s: \(list.withLock { $0 })") }
    }
}

/// A byte stream whose every third write waits 20 ms before it starts (once `delaying`).
final class SlowStartStream: ByteStream {
    let inner: any ByteStream
    let delaying = Locked(false)
    private let writes = Locked(0)
    init(_ inner: any ByteStream) { self.inner = inner }
    var peerCertificate: CertificateInfo? { nil }
    var localCertificate: CertificateInfo? { nil }
    func read(maxLength: Int, timeout: Duration?) async throws -> [UInt8] { try await inner.read(maxLength: maxLength, timeout: timeout) }
    func write(_ bytes: [UInt8], timeout: Duration?) async throws {
        let n = writes.withLock { w -> Int in
            w += 1
            return w
        }
        if delaying.withLock({ $0 }), n % 3 == 0 { try await Task.sleep(for: .milliseconds(20)) }
        try await inner.write(bytes, timeout: timeout)
    }
    func close() async { await inner.close() }
}
