import PhotonCore
import Testing

/// What every command asks of a session (its state-read gate, whether the TV confirms,
/// its key sender) comes from the protocols the session conforms to, through
/// requirements rather than casts, however the conformances are declared.
@Suite struct SessionRequirementsTests {
    /// Conformances declared in extensions, apart from the type.
    final class FullSession: RemoteSession {
        let capabilities = Capabilities(.keys)
        let events = AsyncStream<TVEvent> { $0.finish() }
        let stateReads = StateReadGate(holding: true)
        let sent = Locked<[KeyInput]>([])
        func close() async {}
    }

    /// A session that does none of it.
    final class BareSession: RemoteSession {
        let capabilities = Capabilities(.keys)
        let events = AsyncStream<TVEvent> { $0.finish() }
        func close() async {}
    }

    @Test func eachAnswerComesFromTheProtocolTheSessionConformsTo() async throws {
        let full: any RemoteSession = FullSession()
        #expect(full.stateReadGate === (full as? FullSession)?.stateReads)
        #expect(full.confirms(.key(.key(.home), .press)))
        #expect(!full.confirms(.text("x")))
        #expect(full.keySending != nil)
        // The same answers a cast gives.
        #expect((full as? any HoldsStateReads) != nil && (full as? any AcknowledgesCommands) != nil && (full as? any KeySending) != nil)

        let bare: any RemoteSession = BareSession()
        #expect(bare.stateReadGate == nil)
        #expect(!bare.confirms(.key(.key(.home), .press)))
        #expect(bare.keySending == nil)
    }

    @Test func aKeyReachesTheKeySenderAndOpensTheGateAndOneWithoutASenderIsRefused() async throws {
        let full = FullSession()
        try await full.send(.key(.key(.home), .press))
        #expect(full.sent.withLock { $0 } == [.key(.home)])
        #expect(!full.stateReads.isHolding)

        let refused = await #expect(throws: PhotonError.self) { try await BareSession().send(.key(.key(.home), .press)) }
        #expect(refused?.code == .unsupported)
        #expect(refused?.message.contains("does not implement it") == true)
    }
}

extension SessionRequirementsTests.FullSession: HoldsStateReads {}

extension SessionRequirementsTests.FullSession: AcknowledgesCommands {
    func acknowledges(_ command: RemoteCommand) -> Bool {
        if case .key = command { return true }
        return false
    }
}

extension SessionRequirementsTests.FullSession: KeySending {
    func sendKey(_ input: KeyInput, _ action: KeyAction) async throws { sent.withLock { $0.append(input) } }
    var holdsForTheTimeAsked: Bool { true }
}
