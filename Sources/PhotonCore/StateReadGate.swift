import Foundation

/// Holds back the state reads a session starts on its own when it opens (power, volume,
/// the app in front) until the command the session was opened for has been performed,
/// when it was opened for one (`AdapterContext.expectedCommand`, a command line's one
/// command). A TV that takes one request at a time, or runs each as a program of its own,
/// would otherwise make that command wait behind them — a round trip each on a real
/// network, for reads a one-shot command never shows. A session opened for nothing (a
/// daemon's) reads at once. `RemoteCommand.perform` lets the reads go after every command,
/// whether it succeeded or not.
public final class StateReadGate: Sendable {
    private enum State {
        case holding([UUID: CheckedContinuation<Void, any Error>])
        case open
    }
    private let state: Locked<State>

    /// A gate that holds while `holding`; an open one otherwise.
    public init(holding: Bool) { state = Locked(holding ? .holding([:]) : .open) }

    /// Holds while the session is opened for a command.
    public convenience init(for context: AdapterContext) { self.init(holding: context.expectedCommand != nil) }

    /// Whether reads are still held.
    public var isHolding: Bool { state.withLock { if case .holding = $0 { true } else { false } } }

    /// Lets every waiting read go, and every later one at once.
    public func release() {
        let waiting = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
            defer { state = .open }
            guard case .holding(let waiting) = state else { return [] }
            return Array(waiting.values)
        }
        for continuation in waiting { continuation.resume() }
    }

    /// Returns once the gate is open; throws `CancellationError` if the waiting task is
    /// cancelled first (the session closed).
    public func wait() async throws {
        let id = UUID()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let now = state.withLock { state -> Result<Void, any Error>? in
                    if Task.isCancelled { return .failure(CancellationError()) }
                    guard case .holding(var waiting) = state else { return .success(()) }
                    waiting[id] = continuation
                    state = .holding(waiting)
                    return nil
                }
                if let now { continuation.resume(with: now) }
            }
        } onCancel: {
            let cancelled = state.withLock { state -> CheckedContinuation<Void, any Error>? in
                guard case .holding(var waiting) = state, let found = waiting.removeValue(forKey: id) else { return nil }
                state = .holding(waiting)
                return found
            }
            cancelled?.resume(throwing: CancellationError())
        }
    }
}

/// A session whose own state reads wait for the command it was opened for
/// (`StateReadGate`); `RemoteCommand.perform` opens the gate after each command.
public protocol HoldsStateReads: RemoteSession {
    var stateReads: StateReadGate { get }
}

extension HoldsStateReads {
    public var stateReadGate: StateReadGate? { stateReads }
}
