import PhotonCore
import Testing

/// `waitAtMost` bounds a wait even when what it waits for ignores cancellation, which
/// `withTimeout` cannot (its task group waits for every child). LG's close relies on it.
@Suite struct WaitAtMostTests {
    /// Something stuck outside Swift's cancellation: a continuation only `release` resumes.
    final class Stuck: Sendable {
        private let waiter = Locked<CheckedContinuation<Void, Never>?>(nil)
        private let released = Locked(false)
        func wait() async {
            await withCheckedContinuation { c in
                let now = released.withLock { done -> Bool in
                    if !done { waiter.withLock { $0 = c } }
                    return done
                }
                if now { c.resume() }
            }
        }
        func release() {
            released.withLock { $0 = true }
            waiter.withLock { w in
                w?.resume()
                w = nil
            }
        }
    }

    @Test func aStuckOperationIsLeftBehindAtTheLimit() async throws {
        let stuck = Stuck()
        let cancelled = Locked(false)
        let value: Int? = try await waitAtMost(.milliseconds(50)) {
            await withTaskCancellationHandler {
                await stuck.wait()
            } onCancel: {
                cancelled.withLock { $0 = true }
            }
            return 1
        }
        #expect(value == nil)
        #expect(cancelled.withLock { $0 }, "the late operation is told to stop")
        // withTimeout, by contrast, is still waiting here: it could never have returned.
        stuck.release()
    }

    @Test func aValueOrAnErrorComesThroughAsIs() async throws {
        #expect(try await waitAtMost(.seconds(30)) { 7 } == 7)
        await #expect(throws: PhotonError.self) {
            _ = try await waitAtMost(.seconds(30)) { () async throws -> Int in throw PhotonError(.notFound, "gone") }
        }
    }

    @Test func cancellingTheWaiterEndsItAndTheOperation() async throws {
        let stuck = Stuck()
        let started = Locked(false)
        let waiter = Task {
            try await waitAtMost(.seconds(30)) {
                started.withLock { $0 = true }
                await stuck.wait()
                return 1
            }
        }
        while !started.withLock({ $0 }) { await Task.yield() }
        waiter.cancel()
        await #expect(throws: CancellationError.self) { _ = try await waiter.value }
        stuck.release()
    }
}
