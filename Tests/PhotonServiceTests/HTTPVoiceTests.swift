import Foundation
import PhotonCore
import PhotonNet
import PhotonTestSupport
import Testing

@testable import PhotonService

/// The web remote's microphone socket (`/api/v1/tvs/{tv}/voice`) in front of the emulated
/// Roku, with espeak-ng as the speaker and PocketSphinx recognising in the daemon: a sure
/// request is sent, a guess waits for the page's yes, and every bound ends that stream only.
extension HTTPDoorTests {
    /// A voice stream of a paired script (bearer token).
    /// Bounded at 10 s like the fixture's other answers: CI once saw a fresh door's first
    /// upgrade take over 3 s with four shards and the voice decoder sharing two cores.
    func voiceStream(_ tv: Fixture, token: String, query: String = "") async throws -> WebSocketConnection {
        let stream = try await SocketStream.connect(host: "127.0.0.1", port: tv.port, timeout: .seconds(10))
        return try await WebSocketClient.connect(
            over: stream, host: "127.0.0.1:\(tv.port)", target: "/api/v1/tvs/tv/voice?protocol=1\(query)",
            headers: ["Authorization": "Bearer \(token)"], maxMessageSize: 1 << 16, timeout: .seconds(10))
    }

    /// The stream's JSON events until it closes (at most `limit`).
    func voiceEvents(_ connection: WebSocketConnection, limit: Duration = .seconds(20)) async -> [JSONValue] {
        var events: [JSONValue] = []
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            do {
                guard case .text(let text)? = try await connection.receive(timeout: deadline - ContinuousClock.now) else { break }
                events.append((try? JSONValue.parse(Array(text.utf8), maximumDepth: 8)) ?? .null)
            } catch {
                break
            }
        }
        return events
    }

    /// Reads events until one named `name` (or the stream ends).
    func voiceEvent(_ name: String, on connection: WebSocketConnection) async throws -> JSONValue? {
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline {
            guard case .text(let text)? = try await connection.receive(timeout: deadline - ContinuousClock.now) else { return nil }
            let event = try JSONValue.parse(Array(text.utf8), maximumDepth: 8)
            if event["event"]?.stringValue == name { return event }
        }
        return nil
    }

    /// Spoken `text` as 16 kHz PCM frames of 8 KiB, as the page sends them.
    func spokenFrames(_ text: String) async throws -> [[UInt8]] {
        let directory = try await TestEnvironment.home("photon-http-voice")
        let wav = try WAVFile.parse([UInt8](try Data(contentsOf: try await Speaker.say(text, in: directory))))
        let pcm = wav.pcm16Mono(at: 16000)
        return stride(from: 0, to: pcm.count, by: 8192).map { Array(pcm[$0..<min(pcm.count, $0 + 8192)]) }
    }

    @Test func spokenWordsReachTheRokuAndAGuessWaitsForYes() async throws {
        let tv = try await Fixture()
        defer { Task { await tv.stop() } }
        let token = try await tv.pairClient()

        let sure = try await voiceStream(tv, token: token)
        #expect(try await voiceEvent("listening", on: sure)?["mode"]?.stringValue == "words")
        for frame in try await spokenFrames("open netflix") { try await sure.send(.binary(frame)) }
        try await sure.send(.text(#"{"end":true}"#))
        let heard = try #require(try await voiceEvent("heard", on: sure))
        #expect(heard["heard"]?.stringValue == "open netflix", "\(heard)")
        #expect(heard["confident"]?.boolValue == true, "\(heard)")
        let sent = try #require(try await voiceEvent("sent", on: sure))
        // Named by the TV's own app name as well as its id (newcomer #16).
        #expect(sent["commands"]?.arrayValue?.first?.stringValue == "launch Netflix (12)", "\(sent)")
        let launches = { tv.events.withLock { $0.filter { $0.name == "launch" }.compactMap { $0["app"]?.string } } }
        #expect(launches() == ["12"])

        // Free words the grammar does not hold are a guess: nothing is searched until the page says yes.
        let guess = try await voiceStream(tv, token: token)
        for frame in try await spokenFrames("the weather tomorrow") { try await guess.send(.binary(frame)) }
        try await guess.send(.text(#"{"end":true}"#))
        let guessed = try #require(try await voiceEvent("heard", on: guess))
        #expect(guessed["confident"]?.boolValue == false, "\(guessed)")
        let searches = { tv.events.withLock { $0.filter { $0.name == "search" } }.count }
        #expect(searches() == 0)
        try await guess.send(.text(#"{"send":true}"#))
        #expect(try await voiceEvent("sent", on: guess) != nil)
        #expect(searches() == 1)

        // A guess declined sends nothing.
        let declined = try await voiceStream(tv, token: token)
        for frame in try await spokenFrames("the weather tomorrow") { try await declined.send(.binary(frame)) }
        try await declined.send(.text(#"{"end":true}"#))
        #expect(try await voiceEvent("heard", on: declined)?["confident"]?.boolValue == false)
        try await declined.send(.text(#"{"cancel":true}"#))
        #expect(try await voiceEvent("cancelled", on: declined) != nil)
        #expect(searches() == 1)
    }

    @Test func overBoundsAudioEndsThatStreamOnly() async throws {
        let tv = try await Fixture {
            $0.voice.maximum = .seconds(1)
            $0.voice.slack = .seconds(1.5)
        }
        defer { Task { await tv.stop() } }
        let token = try await tv.pairClient()
        let second = [UInt8](repeating: 0, count: 32000)  // 1 s of silence at 16 kHz

        // Over a second of audio in all: ended as too long.
        let long = try await voiceStream(tv, token: token)
        for _ in 0..<5 { try await long.send(.binary(Array(second[0..<8000]))) }
        let tooLong = await voiceEvents(long).first { $0["event"]?.stringValue == "error" }
        #expect(tooLong?["code"]?.stringValue == "voice-too-long", "\(String(describing: tooLong))")

        // 1.2 s of audio at once with 0.5 s to spare (the budget's own rule is tested in PhotonUnitTests).
        let tv2 = try await Fixture {
            $0.voice.slack = .milliseconds(500)
        }
        defer { Task { await tv2.stop() } }
        let token2 = try await tv2.pairClient()
        let fast = try await voiceStream(tv2, token: token2)
        for _ in 0..<5 { try await fast.send(.binary(Array(second[0..<8000]))) }
        let tooFast = await voiceEvents(fast).first { $0["event"]?.stringValue == "error" }
        #expect(tooFast?["code"]?.stringValue == "voice-too-fast", "\(String(describing: tooFast))")

        // A frame over 16 KiB, and one of an odd length: that stream is closed.
        let oversize = try await voiceStream(tv, token: token)
        try await oversize.send(.binary([UInt8](repeating: 0, count: 20000)))
        #expect(await ended(oversize), "an oversize frame left the stream open")
        let odd = try await voiceStream(tv, token: token)
        try await odd.send(.binary([0, 0, 0]))
        #expect(await voiceEvents(odd).contains { $0["code"]?.stringValue == "bad-audio" })

        // One request at a time per client.
        let first = try await voiceStream(tv, token: token)
        _ = try await voiceEvent("listening", on: first)
        await #expect(throws: PhotonError.self) { _ = try await voiceStream(tv, token: token) }
        try await first.send(.text(#"{"cancel":true}"#))
        #expect(try await voiceEvent("cancelled", on: first) != nil)

        // The door, the TV and this client are fine: a key still goes through.
        let key = try await tv.request("POST", "/api/v1/tvs/tv/commands", json: #"{"key":"home"}"#, token: token)
        #expect(key.status == 200, "\(key.body)")
        #expect(tv.keys() == ["Home"])
        #expect(tv.events.withLock { $0.filter { $0.name == "launch" || $0.name == "search" } }.isEmpty)
    }

    @Test func aRevokedClientsMicrophoneIsCutAndRefused() async throws {
        let tv = try await Fixture()
        defer { Task { await tv.stop() } }
        let token = try await tv.pairClient()
        let open = try await voiceStream(tv, token: token)
        _ = try await voiceEvent("listening", on: open)
        try await open.send(.binary([UInt8](repeating: 0, count: 8000)))
        #expect(try await tv.store.revokeWebClient(named: "phone"))
        #expect(await ended(open), "the revoked client's microphone stayed open")
        #expect(await open.closeCode == 1008)
        await #expect(throws: PhotonError.self) { _ = try await voiceStream(tv, token: token) }
        #expect(tv.events.withLock { $0.filter { $0.name == "launch" || $0.name == "search" } }.isEmpty)
    }
}
