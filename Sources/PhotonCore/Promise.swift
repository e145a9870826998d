/// A value that arrives once, awaited by one task. Waiting reacts to cancellation, so it
/// can sit inside `withTimeout`; a value or error that arrives before the wait is kept.
public final class Promise<Value: Sendable>: Sendable {
    private struct State {
        var result: Result<Value, any Error>?
        var waiter: CheckedContinuation<Value, any Error>?
    }
    private let state = Locked(State())

    public init() {}

    /// Delivers the outcome; later calls are ignored.
    public func resolve(_ result: Result<Value, any Error>) {
        let waiter = state.withLock { s -> CheckedContinuation<Value, any Error>? in
            guard s.result == nil else { return nil }
            s.result = result
            defer { s.waiter = nil }
            return s.waiter
        }
        waiter?.resume(with: result)
    }

    public func succeed(_ value: Value) { resolve(.success(value)) }
    public func fail(_ error: any Error) { resolve(.failure(error)) }

    public func value() async throws -> Value {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (c: CheckedContinuation<Value, any Error>) in
                let ready = state.withLock { s -> Result<Value, any Error>? in
                    if let r = s.result { return r }
                    s.waiter = c
                    return nil
                }
                if let ready { c.resume(with: ready) }
            }
        } onCancel: {
            self.resolve(.failure(CancellationError()))
        }
    }
}
