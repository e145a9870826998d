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

extension Duration {
    /// The duration in seconds as a Double.
    public var seconds: Double {
        let c = components
        return Double(c.seconds) + Double(c.attoseconds) / 1e18
    }
}
