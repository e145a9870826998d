import Foundation
import PhotonCore
import PhotonNet
import PhotonTestSupport
import Testing

/// The event loop under churn: waits that time out, are cancelled, or lose their socket to
/// a close, all at once and on many sockets, with batched and immediate readiness mixed.
/// Every wait must end exactly once with the right outcome, and the loop must serve new
/// work afterwards (a lost or doubly-resumed continuation would hang or crash this test).
@Suite struct EventLoopChurnTests {
    enum Outcome: Sendable, Equatable {
        case timedOut, cancelled, closed, data
        case other(String)
    }

    static func outcome(_ work: @Sendable () async throws -> [UInt8]) async -> Outcome {
        do {
            let bytes = try await work()
            return bytes.isEmpty ? .closed : .data
        } catch is CancellationError {
            return .cancelled
        } catch let error as PhotonError where error.code == .timeout {
            return .timedOut
        } catch let error as PhotonError where error.code == .connectionClosed {
            return .closed
        } catch {
            return .other("\(error)")
        }
    }

    @Test func timeoutsCancellationsAndClosesRacingOnManySockets() async throws {
        let listener = try TCPListener()
        defer { listener.close() }
        var pairs: [(client: SocketStream, server: SocketStream)] = []
        for index in 0..<120 {
            async let accepted = listener.accept()
            let client = try await SocketStream.connect(host: "127.0.0.1", port: listener.port, timeout: .seconds(5))
            let server = try await accepted
            if index % 2 == 0 { server.allowBatchedReadiness() }
            pairs.append((client, server))
        }
        // Four kinds of wait, on every connection at once:
        //   0: a read whose deadline (1–20 ms) passes;
        //   1: a read with a far deadline, cancelled after 0–20 ms;
        //   2: a read with a far deadline whose connection is closed after 0–20 ms;
        //   3: a read that gets one byte, written after 0–20 ms.
        let results = await withTaskGroup(of: (Int, Outcome).self) { group in
            for (index, pair) in pairs.enumerated() {
                let kind = index % 4
                let delay = Duration.milliseconds(Int.random(in: 0...20))
                let server = pair.server
                let client = pair.client
                group.addTask(executorPreference: index % 3 == 0 ? server.preferredExecutor : nil) {
                    switch kind {
                    case 0:
                        return (kind, await Self.outcome { try await server.read(maxLength: 8, timeout: .milliseconds(Int.random(in: 1...20))) })
                    case 1:
                        let reader = Task { await Self.outcome { try await server.read(maxLength: 8, timeout: .seconds(30)) } }
                        try? await Task.sleep(for: delay)
                        reader.cancel()
                        return (kind, await reader.value)
                    case 2:
                        let reader = Task { await Self.outcome { try await server.read(maxLength: 8, timeout: .seconds(30)) } }
                        try? await Task.sleep(for: delay)
                        // Both ends close, so the graceful close is not held for its linger.
                        async let clientClosed: Void = client.close()
                        await server.close()
                        await clientClosed
                        return (kind, await reader.value)
                    default:
                        let reader = Task { await Self.outcome { try await server.read(maxLength: 8, timeout: .seconds(30)) } }
                        try? await Task.sleep(for: delay)
                        try? await client.write([1], timeout: .seconds(5))
                        return (kind, await reader.value)
                    }
                }
            }
            var all: [(Int, Outcome)] = []
            for await result in group { all.append(result) }
            return all
        }
        #expect(results.count == pairs.count)
        for (kind, outcome) in results {
            switch kind {
            case 0: #expect(outcome == .timedOut)
            // A cancel that lands before the read starts waiting also ends it as cancelled.
            case 1: #expect(outcome == .cancelled)
            case 2: #expect(outcome == .closed)
            default: #expect(outcome == .data)
            }
        }
        // The loop still serves: every surviving connection carries a byte both ways.
        for (index, pair) in pairs.enumerated() where index % 4 != 2 {
            try await pair.client.write([9], timeout: .seconds(5))
            var got = try await pair.server.read(maxLength: 8, timeout: .seconds(5))
            #expect(got.last == 9, "connection \(index)")
            try await pair.server.write([8], timeout: .seconds(5))
            got = try await pair.client.read(maxLength: 8, timeout: .seconds(5))
            #expect(got == [8], "connection \(index)")
        }
        for pair in pairs {
            async let serverClosed: Void = pair.server.close()
            await pair.client.close()
            await serverClosed
        }
    }
}
