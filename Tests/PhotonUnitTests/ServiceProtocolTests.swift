import PhotonCore
import PhotonKit
import Testing

@testable import PhotonService

/// The daemon's wire forms: commands, events and errors, both ways, and the bounded
/// outbox that protects it from slow clients.
@Suite struct ServiceProtocolTests {
    @Test func commandsRoundTrip() throws {
        let commands: [RemoteCommand] = [
            .key(.key(.home), .press), .key(.key(.select), .holdStart), .key(.raw("KEYCODE_TV_INPUT"), .press),
            .longPress(.key(.select), milliseconds: 1500), .text("the \"expanse\"\n"), .launch("https://www.youtube.com"), .search("the expanse"),
            .volume(.mute), .input(.hdmi(2)), .input(.label("PlayStation")), .input(.tuner),
            .notify("Dinner is ready\nnow"), .screen(on: false), .screen(on: true), .channel(ChannelNumber(major: 7, minor: 1)),
            .spoken("open netflix", to: .search), .spoken("cat videos", to: .text),
        ]
        for command in commands {
            let json = try ServiceProtocol.json(command)
            #expect(try ServiceProtocol.command(from: try JSONValue.parse(json.encoded)) == command, "\(json.encoded)")
        }
        #expect(try ServiceProtocol.json(.key(.key(.home), .press)).encoded == #"{"key":"home"}"#)
        #expect(try ServiceProtocol.command(from: JSONValue.parse(#"{"key":"VOLUME_UP"}"#)) == .key(.key(.volumeUp), .press))
    }

    @Test func badCommandsAreUsageErrorsOrUnsupported() throws {
        let bad = [
            #"{"key":"warp-drive"}"#, #"{"key":"home","action":"tap"}"#, #"{"key":"home","hold":0}"#, #"{"key":"home","hold":"1"}"#,
            #"{"raw":""}"#, #"{"launch":""}"#, #"{"search":""}"#, #"{"input":""}"#, #"{"input":"a\nb"}"#, #"{"notify":""}"#, #"{"notify":"\u0007"}"#,
            #"{"screen":"dim"}"#, #"{"channel":"seven"}"#, #"{"volume":"louder"}"#, #"{}"#, #""key""#, #"{"text":1}"#,
            #"{"voice":{"text":""}}"#, #"{"voice":{"text":"cat videos","to":"speaker"}}"#,
        ]
        for text in bad {
            do {
                _ = try ServiceProtocol.command(from: try JSONValue.parse(text))
                Issue.record("accepted \(text)")
            } catch let error as PhotonError {
                #expect(error.code == .usage, "\(text): \(error)")
            }
        }
        let long = JSONValue.object([("text", .string(String(repeating: "x", count: 5000)))])
        #expect(throws: PhotonError.self) { try ServiceProtocol.command(from: long) }
        do {
            _ = try ServiceProtocol.command(from: try JSONValue.parse(#"{"voice":"AAAA"}"#))
        } catch let error as PhotonError {
            #expect(error.code == .unsupported)
            #expect(error.message.contains("recognised words"))
        }
        #expect(throws: PhotonError.self) { try ServiceProtocol.json(.voice(pcm: [0, 0], sampleRate: 8000)) }
    }

    @Test func eventsAndErrorsRoundTrip() throws {
        let events: [TVEvent] = [
            .power(isOn: false), .volume(VolumeState(level: 7, maximum: 100, muted: true)), .currentApp("com.netflix.ninja"),
            .deviceInfo(model: "Shield", vendor: "NVIDIA", version: "5.2"), .powerState(.standby, reason: "Active Standby"),
            .powerState(.screenOff, reason: nil),
        ]
        for event in events {
            let json = JSONValue.object(ServiceProtocol.fields(event))
            #expect(ServiceProtocol.event(from: try JSONValue.parse(json.encoded)) == event)
        }
        let error = PhotonError(.pinMismatch, "token=abc123456789 leaked?", hint: "pair again")
        let decoded = ServiceProtocol.error(from: try JSONValue.parse(ServiceProtocol.json(error).encoded))
        #expect(decoded.code == .pinMismatch)
        #expect(decoded.hint == "pair again")
        #expect(ServiceProtocol.error(from: nil).code == .internal)
        #expect(ServiceProtocol.error(from: .object([("code", "no-such-code")])).code == .internal)
    }

    @Test func outboxDrainsInOrderAndClosesWhenItOverflows() async {
        let outbox = Outbox(maximumLines: 3, maximumBytes: 1000)
        #expect(outbox.push("a"))
        #expect(outbox.push("b"))
        #expect(await outbox.next() == ["a", "b"])
        let waiting = Task { await outbox.next() }
        try? await Task.sleep(for: .milliseconds(20))
        #expect(outbox.push("c"))
        #expect(await waiting.value == ["c"])
        #expect(outbox.push("1") && outbox.push("2") && outbox.push("3"))
        #expect(!outbox.push("4"))
        #expect(outbox.overflowed)
        // An overflowed client gets nothing more: it is disconnected.
        #expect(await outbox.next() == nil)
        #expect(!outbox.push("5"))

        let bytes = Outbox(maximumLines: 100, maximumBytes: 10)
        #expect(bytes.push("12345678"))
        #expect(!bytes.push("x"))

        // A normal close hands out what was queued, then ends.
        let closing = Outbox(maximumLines: 10, maximumBytes: 1000)
        closing.push("last")
        closing.close()
        #expect(await closing.next() == ["last"])
        #expect(await closing.next() == nil)
    }

    @Test func backoffGrowsAndIsCapped() {
        let backoff = ReconnectBackoff()
        #expect(backoff.delay(afterFailures: 1) <= .milliseconds(275))
        #expect(backoff.delay(afterFailures: 3) >= .milliseconds(900))
        #expect(backoff.delay(afterFailures: 50) <= .seconds(33))
        #expect(backoff.delay(afterFailures: 50) >= .seconds(27))
    }
}
