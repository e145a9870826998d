import AndroidTVEmulator
import Foundation
import PhotonCore
import PhotonCrypto
import PhotonNet
import PhotonTestSupport
import Testing

@testable import AndroidTV

/// Collects an emulator's events so tests can wait for them.
final class EventLog: Sendable {
    private let events = Locked<[EmulatorEvent]>([])
    var handler: @Sendable (EmulatorEvent) -> Void { { [events] e in events.withLock { $0.append(e) } } }
    var all: [EmulatorEvent] { events.withLock { $0 } }
    func named(_ name: String) -> [EmulatorEvent] { all.filter { $0.name == name } }

    func wait(for name: String, count: Int = 1, timeout: Duration = .seconds(10)) async throws -> EmulatorEvent {
        let end = ContinuousClock.now + timeout
        while ContinuousClock.now < end {
            let found = named(name)
            if found.count >= count { return found[count - 1] }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw TestFailure("no '\(name)' event; saw: \(all.map(\.name))")
    }
}

/// Answers challenges from the emulator's own events (the code it "shows").
struct EmulatorResponder: PairingResponder {
    let log: EventLog
    var trust = true
    var codeOverride: String?

    func answer(_ challenge: PairingChallenge) async throws -> PairingAnswer {
        switch challenge {
        case .trustCertificate: return .trust(trust)
        case .enterCode:
            if let codeOverride { return .code(codeOverride) }
            let count = log.named("pairing_code").count
            let event = try await log.wait(for: "pairing_code", count: max(count, 1))
            return .code(event["code"]!.string!)
        case .confirmOnTV: return .wait
        }
    }
}

func startTV(_ configure: (inout EmulatedAndroidTV.Configuration) -> Void = { _ in }) async throws -> (EmulatedAndroidTV, EventLog) {
    let log = EventLog()
    var configuration = EmulatedAndroidTV.Configuration()
    configuration.remotePort = 0
    configuration.pingInterval = .milliseconds(200)
    configure(&configuration)
    let tv = try await EmulatedAndroidTV.start(configuration, onEvent: log.handler)
    return (tv, log)
}

let sharedIdentity = Result { try IdentityFactory.makeClientIdentity(commonName: "Photon test client") }

func context(identity: ClientIdentity? = nil) throws -> AdapterContext {
    AdapterContext(connector: NetConnector(), clientIdentity: try identity ?? sharedIdentity.get(), clientName: "Photon tests", timeout: .seconds(5))
}

@Suite struct EmulatorFlowTests {
    func pair(_ tv: EmulatedAndroidTV, _ log: EventLog, context: AdapterContext) async throws -> PairedTV {
        let flow = AndroidTVAdapter().pairing(
            with: Endpoint(host: "127.0.0.1", port: tv.remotePort), options: ["pairing-port": String(tv.pairingPort)], context: context)
        return try await flow.run(responder: EmulatorResponder(log: log))
    }

    @Test func pairsAndControls() async throws {
        let (tv, log) = try await startTV()
        defer { Task { await tv.stop() } }
        let ctx = try context()
        let paired = try await pair(tv, log, context: ctx)
        #expect(paired.secrets.pin == tv.fingerprint)
        #expect(paired.device.mac == "02:00:00:AA:BB:CC")
        #expect(paired.device.name == "Photon Emulated TV")
        #expect(paired.device.id == "androidtv-020000aabbcc")
        _ = try await log.wait(for: "paired")

        let session = try await AndroidTVAdapter().openSession(device: paired.device, secrets: paired.secrets, context: ctx)
        try await session.send(.key(.key(.home), .press))
        try await session.send(.key(.raw("KEYCODE_TV_INPUT"), .press))
        try await session.send(.longPress(.key(.select), milliseconds: 50))
        try await session.send(.text("hello"))
        try await session.send(.launch("https://www.youtube.com"))
        try await session.send(.voice(pcm: [UInt8](repeating: 1, count: 30000), sampleRate: 8000))
        _ = try await log.wait(for: "voice")
        let keys = log.named("key").map { "\($0["key"]!.string!)/\($0["direction"]!.string!)" }
        #expect(Array(keys.prefix(4)) == ["KEYCODE_HOME/SHORT", "KEYCODE_TV_INPUT/SHORT", "KEYCODE_DPAD_CENTER/START_LONG", "KEYCODE_DPAD_CENTER/END_LONG"])
        #expect(log.named("text").first?["text"]?.string == "hello")
        #expect(log.named("launch").first?["app"]?.string == "https://www.youtube.com")
        // 30000 bytes → 20480 + 9520 (the last at least 8192).
        #expect(log.named("voice").first?["bytes"]?.int == 30000)
        await session.close()
    }
}
