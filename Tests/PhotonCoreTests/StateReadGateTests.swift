import PhotonCore
import Testing

/// A session's own state reads wait for the command it was opened for, and go after it
/// whether it succeeded or failed; a session opened for nothing never holds them.
@Suite struct StateReadGateTests {
    @Test func heldReadsGoWhenReleasedAndLaterOnesAtOnce() async throws {
        let gate = StateReadGate(holding: true)
        let passed = Locked(0)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    try await gate.wait()
                    passed.withLock { $0 += 1 }
                }
            }
            await Task.yield()
            #expect(passed.withLock { $0 } == 0)
            #expect(gate.isHolding)
            gate.release()
            try await group.waitForAll()
        }
        #expect(passed.withLock { $0 } == 4)
        try await gate.wait()  // released: at once
        gate.release()  // a second release does nothing
        #expect(!gate.isHolding)
    }

    @Test func aGateOpenedForNothingHoldsNothing() async throws {
        let context = AdapterContext(connector: NoConnector(), clientIdentity: ClientIdentity(certificatePEM: "", privateKeyPEM: ""))
        #expect(!StateReadGate(for: context).isHolding)
        var forAKey = context
        forAKey.expectedCommand = .key(.key(.home), .press)
        #expect(StateReadGate(for: forAKey).isHolding)
        try await StateReadGate(holding: false).wait()
    }

    @Test func aClosedSessionsWaitEndsWithCancellation() async {
        let gate = StateReadGate(holding: true)
        let waiting = Task { try await gate.wait() }
        waiting.cancel()
        await #expect(throws: CancellationError.self) { try await waiting.value }
        #expect(gate.isHolding)
    }

    /// `perform` opens the gate after the command, also when the command fails.
    @Test func performingAnyCommandLetsTheReadsGo() async throws {
        for command in [RemoteCommand.key(.key(.home), .press), .launch("netflix")] {
            let session = KeysOnly()
            _ = try? await command.perform(on: session)
            #expect(!session.stateReads.isHolding, "\(command)")
        }
    }

    /// A session that takes keys and holds its reads (launching is not among its protocols).
    final class KeysOnly: KeySending, HoldsStateReads {
        let capabilities = Capabilities(.keys, .appLaunch)
        let stateReads = StateReadGate(holding: true)
        var events: AsyncStream<TVEvent> { AsyncStream { $0.finish() } }
        func sendKey(_ input: KeyInput, _ action: KeyAction) async throws {}
        func close() async {}
    }

    struct NoConnector: Connector {
        func openByteStream(to endpoint: Endpoint, security: TransportSecurity, timeout: Duration) async throws -> any ByteStream {
            throw PhotonError(.unsupported, "no network in this test")
        }
        func openMessageStream(_ request: MessageStreamRequest, timeout: Duration) async throws -> any MessageStream {
            throw PhotonError(.unsupported, "no network in this test")
        }
        func upgradeToMessageStream(_ stream: any ByteStream, request: MessageStreamRequest, timeout: Duration) async throws
            -> any MessageStream
        {
            throw PhotonError(.unsupported, "no network in this test")
        }
    }
}
