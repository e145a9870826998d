import Dispatch
import PhotonCore
import Testing

/// The warm-ups' waiting: what uses OpenSSL waits for its first use on the other core
/// instead of racing it, so every waiter must be let go once it ends, and nobody may wait
/// for one that never started.
@Suite struct BackgroundWorkTests {
    /// A gate the work blocks on until the test opens it.
    final class Gate: Sendable {
        let opened = DispatchSemaphore(value: 0)
        let ran = Locked(0)
    }

    @Test func waitersAreHeldUntilTheWorkEndsThenAllLetGo() async {
        let gate = Gate()
        let work = BackgroundWork {
            gate.opened.wait()
            gate.ran.withLock { $0 += 1 }
        }
        work.start()
        work.start()  // a second start does nothing
        let finishedWaiters = Locked(0)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    await work.finished()
                    // The work ended before any waiter was let go.
                    #expect(gate.ran.withLock { $0 } == 1)
                    finishedWaiters.withLock { $0 += 1 }
                }
            }
            // None can have finished while the work is held at the gate.
            await Task.yield()
            #expect(finishedWaiters.withLock { $0 } == 0)
            gate.opened.signal()
        }
        #expect(finishedWaiters.withLock { $0 } == 8)
        await work.finished()  // after the end: at once
        #expect(gate.ran.withLock { $0 } == 1)
    }

    @Test func waitingForWorkNeverStartedReturnsAtOnce() async {
        let work = BackgroundWork { Issue.record("the work must not run without start()") }
        await work.finished()
    }
}
