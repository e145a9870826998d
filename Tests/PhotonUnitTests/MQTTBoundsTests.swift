import Foundation
import PhotonCore
import Testing

@testable import PhotonService

/// What a publisher on the broker can make the daemon hold, and what a command must carry.
@Suite struct MQTTBoundsTests {
    /// Without both times a copy replayed after its id was forgotten would look new.
    @Test func aJSONCommandWithoutItsTimesIsRefused() throws {
        let id = UUID().uuidString
        for payload in [
            #"{"commandId":"\#(id)","key":"home"}"#, #"{"commandId":"\#(id)","issuedAt":1800000000,"key":"home"}"#,
            #"{"commandId":"\#(id)","expiresAt":1800000005,"key":"home"}"#,
        ] {
            #expect(throws: PhotonError.self, "\(payload)") {
                try MQTTCommand.parse(name: "command", payload: payload, apps: [], now: Date(timeIntervalSince1970: 1_800_000_000))
            }
        }
        let ok = try MQTTCommand.parse(
            name: "command", payload: #"{"commandId":"\#(id)","issuedAt":1800000000,"expiresAt":1800000005,"key":"home"}"#, apps: [],
            now: Date(timeIntervalSince1970: 1_800_000_001))
        #expect(ok.expiresAt == Date(timeIntervalSince1970: 1_800_000_005))
        // A bare value lives 5 s from the time it is parsed with: its arrival.
        let arrived = Date(timeIntervalSince1970: 1_800_000_000)
        let bare = try MQTTCommand.parse(name: "key", payload: "home", apps: [], now: arrived)
        #expect(bare.issuedAt == arrived && bare.expiresAt == arrived.addingTimeInterval(5))
    }

    /// At most `limit` commands wait per TV; a chain is forgotten once it drains, so the
    /// bridge holds nothing for TVs without commands.
    @Test func commandChainsAreBoundedAndForgotten() async throws {
        let gate = Promise<Void>()
        let ran = Locked<[Int]>([])
        let chains = Locked(MQTTCommandChains(limit: 3))
        var admitted: [Bool] = []
        for n in 0..<5 {
            admitted.append(
                chains.withLock { c in
                    c.enqueue("tv") {
                        if n == 0 { try? await gate.value() }
                        ran.withLock { $0.append(n) }
                        chains.withLock { $0.finished("tv") }
                    }
                })
        }
        #expect(admitted == [true, true, true, false, false])
        #expect(chains.withLock { $0.waiting(for: "tv") } == 3)
        gate.succeed(())
        for _ in 0..<2000 where chains.withLock({ $0.count }) > 0 { try await Task.sleep(for: .milliseconds(1)) }
        #expect(ran.withLock { $0 } == [0, 1, 2])
        #expect(chains.withLock { $0.count } == 0)
        // Room again once drained.
        #expect(chains.withLock { $0.enqueue("tv") { chains.withLock { $0.finished("tv") } } })
    }
}

/// A refused JSON command is answered with the id it was sent with (newcomer report: the
/// refusal said `"commandId": null`, so a client could not tell which command failed).
@Suite struct MQTTRefusalIDTests {
    @Test func theSentIdIsEchoedEvenWhenTheRestDoesNotParse() {
        let id = "3F2504E0-4F89-11D3-9A0C-0305E82C3301"
        #expect(MQTTCommand.sentID(in: #"{"commandId":"\#(id)","key":"home"}"#) == id.lowercased())
        // Missing times, an unknown command, an id that is no UUID: still named.
        #expect(MQTTCommand.sentID(in: #"{"commandId":"my-command-7","key":"nope"}"#) == "my-command-7")
        #expect(throws: PhotonError.self) {
            _ = try MQTTCommand.parse(name: "command", payload: #"{"commandId":"\#(id)","key":"home"}"#, apps: [], now: Date())
        }
        // Nothing usable to echo: none.
        for payload in [
            "", "not json", #"{"key":"home"}"#, #"{"commandId":7}"#, #"{"commandId":"\#(String(repeating: "a", count: 65))"}"#,
            "{\"commandId\":\"a\\u0007b\"}",
        ] {
            #expect(MQTTCommand.sentID(in: payload) == nil, "\(payload)")
        }
    }
}
