/// An async mutual-exclusion gate: callers of `withGate` run one at a time in arrival
/// order, and waiting never blocks a thread. Used to keep whole writes (a frame, a
/// message) from interleaving when several tasks send on one connection.
public final class AsyncGate: Sendable {
    private struct State {
        var busy = false
        var waiters: [(id: Int, continuation: CheckedContinuation<Void, any Error>)] = []
        var nextID = 0
    }
    private let state = Locked(State())
    /// Runs between finding the gate busy and queueing for it: where a release once
    /// stranded the waiter. Tests hold a waiter there; nil everywhere else.
    private let afterFindingItBusy: (@Sendable () async -> Void)?

    public init() { afterFindingItBusy = nil }

    init(afterFindingItBusy: @escaping @Sendable () async -> Void) { self.afterFindingItBusy = afterFindingItBusy }

    public func withGate<R: Sendable>(_ body: () async throws -> R) async throws -> R {
        try await acquire()
        defer { release() }
        return try await body()
    }

    private func acquire() async throws {
        let id: Int? = state.withLock { s in
            if !s.busy {
                s.busy = true
                return nil
            }
            s.nextID += 1
            return s.nextID
        }
        guard let id else { return }
        if let afterFindingItBusy { await afterFindingItBusy() }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (c: CheckedContinuation<Void, any Error>) in
                // Look again under the same lock that queues the waiter: the holder may have
                // released the gate since the check above, and a waiter queued after that
                // release would wait for a release that never comes.
                let outcome = state.withLock { s -> Result<Void, any Error>? in
                    if Task.isCancelled { return .failure(CancellationError()) }
                    if !s.busy {
                        s.busy = true
                        return .success(())
                    }
                    s.waiters.append((id, c))
                    return nil
                }
                if let outcome { c.resume(with: outcome) }
            }
        } onCancel: {
            let c = state.withLock { s -> CheckedContinuation<Void, any Error>? in
                guard let index = s.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return s.waiters.remove(at: index).continuation
            }
            c?.resume(throwing: CancellationError())
        }
    }

    private func release() {
        let next = state.withLock { s -> CheckedContinuation<Void, any Error>? in
            if s.waiters.isEmpty {
                s.busy = false
                return nil
            }
            return s.waiters.removeFirst().continuation
        }
        next?.resume()
    }
}
