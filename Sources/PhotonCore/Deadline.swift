import Foundation

/// Runs `operation`, failing with a `timeout` error naming `what` if it has not finished
/// after `timeout`. The operation is cancelled when the time is up, so it must react to
/// cancellation (every Photon wait does).
public func withTimeout<T: Sendable>(
    _ timeout: Duration, _ what: String, operation: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await operation() }
        group.addTask {
            try await Task.sleep(for: timeout)
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next() else { throw PhotonError(.internal, "timeout group ended empty") }
        if let value = first { return value }
        let c = timeout.components
        throw PhotonError.timedOut(what, after: Double(c.seconds) + Double(c.attoseconds) / 1e18)
    }
}

/// Waits at most `limit` for `operation` and returns its value, or nil when the time is up.
/// Unlike `withTimeout`, it does not wait for a late operation to react to being
/// cancelled: it is cancelled and left to end on its own. For waits that must be bounded
/// even when what they wait for is stuck outside Photon's control (a one-shot command's
/// close, a test's watchdog), never for work whose result still matters.
public func waitAtMost<T: Sendable>(_ limit: Duration, for operation: @escaping @Sendable () async throws -> T) async throws -> T? {
    let outcome = Locked<(continuation: CheckedContinuation<T?, any Error>?, result: Result<T?, any Error>?)>((nil, nil))
    // The first outcome (the operation's or the timer's) resumes the waiter, once.
    // `beforeResuming` runs first, so whoever is resumed sees its effects (the late
    // operation already told to stop).
    @Sendable func settle(_ result: Result<T?, any Error>, beforeResuming: () -> Void = {}) -> Bool {
        let waiter = outcome.withLock { state -> CheckedContinuation<T?, any Error>?? in
            guard state.result == nil else { return nil }
            state.result = result
            defer { state.continuation = nil }
            return .some(state.continuation)
        }
        guard let waiter else { return false }
        beforeResuming()
        waiter?.resume(with: result)
        return true
    }
    let running = Locked<Task<Void, Never>?>(nil)
    let timer = Task {
        try? await Task.sleep(for: limit)
        if !Task.isCancelled { _ = settle(.success(nil)) { running.withLock { $0 }?.cancel() } }
    }
    let work = Task {
        let result: Result<T?, any Error>
        do { result = .success(try await operation()) } catch { result = .failure(error) }
        if settle(result) { timer.cancel() }
    }
    running.withLock { $0 = work }
    // The timer may have fired before the operation's task was known.
    if outcome.withLock({ $0.result != nil }) { work.cancel() }
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { (c: CheckedContinuation<T?, any Error>) in
            let ready = outcome.withLock { state -> Result<T?, any Error>? in
                if let result = state.result { return result }
                state.continuation = c
                return nil
            }
            if let ready { c.resume(with: ready) }
        }
    } onCancel: {
        _ = settle(.failure(CancellationError())) {
            work.cancel()
            timer.cancel()
        }
    }
}

extension Duration {
    /// `seconds` as a duration, clamped to `0...maximum`; NaN and negative values are
    /// zero. For times that come from other processes or the network, where converting a
    /// huge or NaN value to an integer would trap.
    public static func clampedSeconds(_ seconds: Double, maximum: Double) -> Duration {
        guard seconds.isFinite || seconds == .infinity, seconds > 0 else { return .zero }
        return .milliseconds(Int64((Swift.min(seconds, maximum) * 1000).rounded(.down)))
    }

    /// The duration in seconds as a Double.
    public var seconds: Double {
        let c = components
        return Double(c.seconds) + Double(c.attoseconds) / 1e18
    }
}

/// The expiry of the command being delivered, carried as a task-local value from the
/// router to the adapter: a command can wait (behind an adapter's key pacing, or a slow
/// write) past its `expiresAt`, and an expired command must not reach the TV. Transports
/// check it just before they write a command's bytes.
public enum CommandDeadline {
    @TaskLocal public static var expiresAt: Date?

    /// Throws the router's `expired` error when the command in flight has expired.
    public static func checkBeforeSending() throws {
        if let expiresAt, Date() >= expiresAt { throw RouterRejection.expired.error }
    }

    /// The time left for the command in flight, capped at `cap` (all of `cap` when no
    /// command is in flight).
    public static func remaining(cap: Duration) -> Duration {
        guard let expiresAt else { return cap }
        return min(cap, .clampedSeconds(expiresAt.timeIntervalSinceNow, maximum: 86_400))
    }

    /// Runs `body` with no command deadline: for what must be sent whatever the time,
    /// such as the release that ends a long press.
    public static func exempt<T>(_ body: () async throws -> T) async rethrows -> T {
        try await $expiresAt.withValue(nil) { try await body() }
    }
}
