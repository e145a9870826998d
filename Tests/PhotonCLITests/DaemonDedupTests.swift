import Foundation
import PhotonCore
import PhotonJSON
import PhotonKit
import PhotonService
import PhotonTestSupport
import Testing

/// One-shot sends open a router session each; the same commandId sent twice, by two
/// clients even, reaches the TV once.
extension DaemonTests {
    @Test func oneShotSendsAreDeduplicatedByCommandId() async throws {
        let setup = try await setUp()
        defer { setup.stop() }
        let commandID = UUID().uuidString
        let now = Date().timeIntervalSince1970
        var answers: [String] = []
        // The same command twice, then a marker with an id of its own: the TV takes one
        // TV's commands in order, so once the marker arrived a duplicate would have too.
        for id in [commandID, commandID, UUID().uuidString] {
            let client = try await DaemonClient.connect(path: setup.socket, timeout: .seconds(5))
            do {
                _ = try await client.request(
                    "send",
                    [
                        ("tv", "tv"), ("commandId", .string(id)), ("issuedAt", .double(now)), ("expiresAt", .double(now + 8)),
                        ("command", .object([("key", id == commandID ? "home" : "back")])),
                    ])
                answers.append("ok")
            } catch let error as PhotonError {
                answers.append(error.message)
            }
            await client.close()
        }
        #expect(answers.first == "ok")
        #expect(answers[1].contains("duplicate") == true, "\(answers)")
        #expect(answers.last == "ok")
        let arrived = ContinuousClock.now + .seconds(10)
        while setup.emulator.events("key").count < 2, ContinuousClock.now < arrived { try await Task.sleep(for: .milliseconds(10)) }
        #expect(setup.emulator.events("key").count == 2, "the command once, then the marker")
    }
}

extension DaemonTests {
    /// Voice is too large for the daemon's request lines: it goes direct (through the
    /// CLI's own router) while the daemon runs, instead of failing.
    @Test func voiceWorksWhileTheDaemonRuns() async throws {
        let setup = try await setUp()
        defer { setup.stop() }
        let wav = setup.home.appendingPathComponent("query.wav")
        try e2e.makeWAV(seconds: 0.5, rate: 8000, channels: 1).write(to: wav)
        let p = try await run(setup.home, ["voice", "tv", wav.path])
        #expect(p.process.terminationStatus == 0, "\(p.standardError)")
        try await eventually { !setup.emulator.events("voice").isEmpty }
        #expect(!setup.emulator.events("voice").isEmpty)
    }
}
