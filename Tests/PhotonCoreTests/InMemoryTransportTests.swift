import PhotonTesting
import Testing

@testable import PhotonCore

@Suite struct InMemoryTransportTests {
    @Test func bytesFlowBothWaysAndPartialReadsKeepTheRest() async throws {
        let (client, server) = InMemoryByteStream.pair()
        try await client.write([1, 2, 3, 4, 5])
        #expect(try await server.read(maxLength: 2) == [1, 2])
        #expect(try await server.read(maxLength: 10) == [3, 4, 5])
        try await server.write([9])
        #expect(try await client.read(maxLength: 10) == [9])
        await client.close()
        #expect(try await server.read(maxLength: 10) == [])
        await #expect(throws: PhotonError.self) { try await server.write([1]) }
    }

    @Test func readTimesOut() async throws {
        let (client, _) = InMemoryByteStream.pair()
        await #expect(throws: PhotonError.self) { try await client.read(maxLength: 1, timeout: .milliseconds(30)) }
    }

    @Test func cancellationEndsAWaitingRead() async throws {
        let (client, _) = InMemoryByteStream.pair()
        let task = Task { try await client.read(maxLength: 1) }
        try await Task.sleep(for: .milliseconds(20))
        task.cancel()
        let result = await task.result
        #expect(throws: CancellationError.self) { try result.get() }
    }

    @Test func messageStreamsCarryMessagesAndCloseCodes() async throws {
        let (client, server) = InMemoryMessageStream.pair()
        try await client.send(.text("hello"))
        #expect(try await server.receive(timeout: .seconds(30)) == .text("hello"))
        await server.close(code: 4001, reason: "bye")
        #expect(try await client.receive(timeout: .seconds(30)) == nil)
        #expect(await client.closeCode == 4001)
    }

    @Test func connectorHandsOutTheTestsStreams() async throws {
        let (client, server) = InMemoryByteStream.pair()
        let connector = InMemoryConnector(byteStreams: { endpoint, security in
            #expect(endpoint.port == 6466)
            #expect(security.isTLS)
            return client
        })
        let stream = try await connector.openByteStream(
            to: Endpoint(host: "tv", port: 6466), security: .tls(TLSClientOptions(trust: .captureForFirstUse)),
            timeout: .seconds(1))
        try await stream.write([7])
        #expect(try await server.read(maxLength: 1) == [7])
        await #expect(throws: PhotonError.self) {
            _ = try await connector.openMessageStream(
                MessageStreamRequest(endpoint: Endpoint(host: "tv", port: 8002), target: "/", security: .plain),
                timeout: .seconds(1))
        }
    }
}

@Suite struct ConcurrencyHelperTests {
    @Test func gateRunsOneAtATime() async throws {
        let gate = AsyncGate()
        let active = Locked((now: 0, peak: 0, order: [Int]()))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for i in 0..<20 {
                group.addTask {
                    try await gate.withGate {
                        active.withLock {
                            $0.now += 1
                            $0.peak = max($0.peak, $0.now)
                            $0.order.append(i)
                        }
                        try await Task.sleep(for: .milliseconds(1))
                        active.withLock { $0.now -= 1 }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(active.withLock { $0.peak } == 1)
        #expect(active.withLock { $0.order.count } == 20)
    }

    /// A waiter that found the gate busy, but queued itself only after the holder had
    /// released it, used to wait for a release that never came: a Fire TV reader waited
    /// to acknowledge the device's output until an unrelated write came 5 s later. The
    /// gate's hook holds the waiter in exactly that window while the holder leaves.
    @Test func aReleaseJustBeforeTheWaiterQueuesStillLetsItIn() async throws {
        let foundBusy = Promise<Void>()
        let mayQueue = Promise<Void>()
        let gate = AsyncGate(afterFindingItBusy: {
            foundBusy.succeed(())
            try? await mayQueue.value()
        })
        let holding = Promise<Void>()
        let holderMayLeave = Promise<Void>()
        let holder = Task {
            try await gate.withGate {
                holding.succeed(())
                try await holderMayLeave.value()
            }
        }
        try await holding.value()
        let waiter = Task { try await gate.withGate { 7 } }
        try await foundBusy.value()
        holderMayLeave.succeed(())
        try await holder.value
        mayQueue.succeed(())
        let entered = try await waitAtMost(.seconds(10)) { try await waiter.value }
        #expect(entered == 7, "the waiter was stranded at a gate nobody held")
        #expect(try await gate.withGate { 8 } == 8)
    }

    @Test func cancelledWaiterLeavesTheGateUsable() async throws {
        let gate = AsyncGate()
        let holder = Task { try await gate.withGate { try await Task.sleep(for: .milliseconds(100)) } }
        try await Task.sleep(for: .milliseconds(10))
        let waiter = Task { try await gate.withGate { 1 } }
        try await Task.sleep(for: .milliseconds(10))
        waiter.cancel()
        let waited = await waiter.result
        #expect(throws: CancellationError.self) { try waited.get() }
        try await holder.value
        #expect(try await gate.withGate { 2 } == 2)
    }

    @Test func timeoutFiresAndSuccessPasses() async throws {
        #expect(try await withTimeout(.seconds(30), "quick") { 42 } == 42)
        do {
            _ = try await withTimeout(.milliseconds(20), "the slow thing") {
                try await Task.sleep(for: .seconds(10))
                return 1
            }
            Issue.record("no timeout")
        } catch let error as PhotonError {
            #expect(error.code == .timeout)
            #expect(error.message.contains("the slow thing"))
        }
    }
}
