import COpenSSL
import Dispatch
import PhotonCore

/// What a short-lived command that is about to connect can start on the other core while
/// it reads its arguments and the store: the event loop (its thread, epoll and eventfd,
/// about a third of a millisecond made on first use, inside the first connect otherwise)
/// and OpenSSL's first TLS context (OpenSSL 3 spends 1.5–2 ms on the first one of a
/// process, loading its providers and fetching every cipher, group and signature
/// algorithm; the command's own context then costs a tenth of that).
///
/// A TLS connection waits for the warm-up to end (`finished()`) before it makes its own
/// context: two first contexts made at once each fetch every algorithm, taking turns on
/// OpenSSL's method-store locks, and each turn wakes the other thread (measured: the
/// command's context took 1.8–2.6 ms that way, 1.2 ms waiting). Nobody waits for it at
/// exit: photon-cli leaves with `_exit`, so OpenSSL's exit handlers never run while this
/// thread may still be initialising it.
public enum NetworkWarmUp {
    private static let work = BackgroundWork {
        _ = EventLoop.shared
        if let context = SSL_CTX_new(TLS_client_method()) { SSL_CTX_free(context) }
        PhaseTimer.mark("network warm-up done (other core)")
    }

    /// Starts the warm-up, once per process.
    public static func start() { work.start() }

    /// Returns once the warm-up has ended; at once if it never started or has ended.
    public static func finished() async { await work.finished() }
}

/// Work run at most once on a thread of its own, that tasks can wait for without blocking
/// a thread.
final class BackgroundWork: Sendable {
    private enum State {
        case notStarted
        case running(waiting: [CheckedContinuation<Void, Never>])
        case done
    }
    private let state = Locked(State.notStarted)
    private let work: @Sendable () -> Void

    init(_ work: @escaping @Sendable () -> Void) { self.work = work }

    /// Starts the work unless it has started before.
    func start() {
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
    func finished() async {
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
