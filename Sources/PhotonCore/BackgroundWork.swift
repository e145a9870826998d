import Dispatch

/// Work run at most once on a thread of its own, that tasks can wait for without blocking
/// a thread: a short-lived command's warm-ups (OpenSSL's first use, the event loop) run on
/// the other core while it reads its arguments, and what needs them waits for them. Not a
/// `Promise`: that takes one waiter and fails it when its task is cancelled, while several
/// connections may wait for one warm-up at once.
public final class BackgroundWork: Sendable {
    private enum State {
        case notStarted
        case running(waiting: [CheckedContinuation<Void, Never>])
        case done
    }
    private let state = Locked(State.notStarted)
    private let work: @Sendable () -> Void

    public init(_ work: @escaping @Sendable () -> Void) { self.work = work }

    /// Starts the work unless it has started before.
    public func start() {
        let first = state.withLock { state -> Bool in
            guard case .notStarted = state else { return false }
            state = .running(waiting: [])
            return true
        }
        guard first else { return }
        DispatchQueue.global(qos: .userInitiated).async {
            self.work()
            let waiting = self.state.withLock { state -> [CheckedContinuation<Void, Never>] in
                defer { state = .done }
                guard case .running(let waiting) = state else { return [] }
                return waiting
            }
            for continuation in waiting { continuation.resume() }
        }
    }

    /// Returns once the work has ended; at once if it never started or has ended.
    public func finished() async {
        guard state.withLock({ if case .running = $0 { true } else { false } }) else { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumeNow = state.withLock { state -> Bool in
                guard case .running(var waiting) = state else { return true }
                waiting.append(continuation)
                state = .running(waiting: waiting)
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }
}
