import PhotonCore
import Testing

@testable import PhotonCLI

/// What `photon status` prints for the power state: the TV's own word where it adds one,
/// never the state twice (newcomer finding #22).
@Suite struct StatusTextTests {
    @Test func aReasonThatRepeatsTheStateIsLeftOut() {
        #expect(StatusCommand.describe(.powerState(.standby, reason: "standby"))?.1 == "power state: standby")
        #expect(StatusCommand.describe(.powerState(.on, reason: "On"))?.1 == "power state: on")
        #expect(StatusCommand.describe(.powerState(.screenOff, reason: "DisplayOff"))?.1 == "power state: screen-off (DisplayOff)")
        #expect(StatusCommand.describe(.powerState(.art, reason: "art mode"))?.1 == "power state: art (art mode)")
        // The JSON keeps the TV's word as it was.
        #expect(StatusCommand.describe(.powerState(.standby, reason: "standby"))?.0["power_reason"]?.stringValue == "standby")
    }
}

/// One wording of "unsupported" on every brand, with the reason in words rather than a
/// dump of capability ids (newcomer #20).
@Suite struct UnsupportedWordingTests {
    final class KeysOnly: KeySending, @unchecked Sendable {
        let capabilities = Capabilities(.keys)
        let events = AsyncStream<TVEvent> { $0.finish() }
        func close() async {}
        func sendKey(_ input: KeyInput, _ action: KeyAction) async throws {}
    }

    @Test func aMissingCapabilityIsSaidInWords() async {
        let session = KeysOnly()
        for (command, words) in [
            (RemoteCommand.setVolume(20), "this TV cannot set a volume level"), (.text("hi"), "this TV cannot type text"),
            (.notify("hello"), "this TV cannot show a message on the screen"), (.art(.mode(on: true)), "this TV cannot show art"),
        ] {
            let refused = await #expect(throws: PhotonError.self) { try await command.perform(on: session) }
            #expect(refused?.code == .unsupported && refused?.message.hasPrefix(words) == true, "\(String(describing: refused))")
            #expect(refused?.hint?.contains("keys") == false, "no dump of capability ids: \(String(describing: refused?.hint))")
        }
        #expect(Capability.allCases.allSatisfy { !$0.action.isEmpty })
    }
}

/// The pairing prompts say what happened (newcomer #26): a code the TV did not accept is
/// not "no code given", and the example in the hint is of the code the TV shows.
@Suite struct PairingPromptTests {
    @Test func aRefusedCodeAndTheExampleAreSaidAsTheyAre() async throws {
        let terminal = CapturingTerminal(input: ["ZZZZZZ"])
        let responder = TerminalPairingResponder(terminal: terminal, trusted: nil, json: false)
        guard case .code("ZZZZZZ") = try await responder.answer(.enterCode(length: 6, alphabet: .hexadecimal)) else {
            throw PhotonError(.internal, "the first code was not read")
        }
        let second = await #expect(throws: PhotonError.self) { _ = try await responder.answer(.enterCode(length: 6, alphabet: .hexadecimal)) }
        #expect(second?.message == "the TV did not accept the code given, and no other came")
        #expect(second?.hint?.contains("echo 3FA9C1") == true && terminal.errors.contains("The TV did not accept that code"))
        let pin = TerminalPairingResponder(terminal: CapturingTerminal(), trusted: nil, json: false)
        let none = await #expect(throws: PhotonError.self) { _ = try await pin.answer(.enterCode(length: 4, alphabet: .decimal)) }
        #expect(none?.message == "no pairing code was given" && none?.hint?.contains("echo 1234 |") == true, "\(String(describing: none?.hint))")
    }
}

/// The app in front has one shape on every brand (newcomer #5): `app` is the id `photon
/// launch` takes, `app_name` its name — whether the brand reports `netflix`,
/// `Netflix (12)` or `Netflix (3:1)`.
@Suite struct ReportedAppTests {
    @Test func theIdAndTheNameAreReadFromEitherReport() {
        #expect(ReportedApp("Netflix (12)") == ReportedApp(id: "12", name: "Netflix"))
        #expect(ReportedApp("Watch TV (org.droidtv.playtv)") == ReportedApp(id: "org.droidtv.playtv", name: "Watch TV"))
        #expect(ReportedApp("netflix", catalog: ["netflix": ["netflix"]]) == ReportedApp(id: "netflix", name: "Netflix"))
        #expect(ReportedApp("https://www.youtube.com") == ReportedApp(id: "https://www.youtube.com", name: nil))
        #expect(ReportedApp("odd (") == ReportedApp(id: "odd (", name: nil) && ReportedApp("(x)").name == nil)
        let (json, text) = StatusCommand.describe(.currentApp("Netflix (12)"))!
        #expect(json["app"]?.stringValue == "12" && json["app_name"]?.stringValue == "Netflix" && text == "app: Netflix (12)")
        #expect(StatusCommand.describe(.currentApp("https://www.youtube.com"))?.0["app"]?.stringValue == "https://www.youtube.com")
    }
}

/// A long press waits for the hold only where the brand's hold lasts that long (newcomer
/// #31: Fire TV's one fixed-length long press waited a second for nothing).
@Suite struct LongPressHoldTests {
    final class Holder: KeySending, @unchecked Sendable {
        let capabilities = Capabilities(.keys, .longPress)
        let events = AsyncStream<TVEvent> { $0.finish() }
        let timed: Bool
        let actions = Locked<[KeyAction]>([])
        init(timed: Bool) { self.timed = timed }
        var holdsForTheTimeAsked: Bool { timed }
        func close() async {}
        func sendKey(_ input: KeyInput, _ action: KeyAction) async throws { actions.withLock { $0.append(action) } }
    }

    @Test(arguments: [true, false]) func theHoldIsWaitedForOnlyWhereItLasts(timed: Bool) async throws {
        let session = Holder(timed: timed)
        let waits = Locked<[Duration]>([])
        try await RemoteCommand.longPress(.key(.select), milliseconds: 1000).perform(on: session) { wait in waits.withLock { $0.append(wait) } }
        #expect(waits.withLock { $0 } == (timed ? [.milliseconds(1000)] : []))
        #expect(session.actions.withLock { $0 } == [.holdStart, .holdEnd])
    }
}
