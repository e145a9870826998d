import PhotonCore
import PhotonKit

/// What waits to be written to one API client, bounded in lines and bytes. Pushing never
/// blocks (TV events are fanned out from shared code); a client that falls so far behind
/// that its outbox overflows is disconnected rather than allowed to grow memory or to
/// slow anyone else down.
final class Outbox: Sendable {
    private struct State {
        var lines: [String] = []
        var bytes = 0
        var waiter: CheckedContinuation<[String]?, Never>?
        var closed = false
        var overflowed = false
    }

    private let state = Locked(State())
    let maximumLines: Int
    let maximumBytes: Int

    init(maximumLines: Int, maximumBytes: Int) {
        self.maximumLines = maximumLines
        self.maximumBytes = maximumBytes
    }

    /// Queues one line (without its newline). Returns false, and closes the outbox, when
    /// the line does not fit.
    @discardableResult
    func push(_ line: String) -> Bool {
        let (accepted, waiter, batch) = state.withLock { s -> (Bool, CheckedContinuation<[String]?, Never>?, [String]) in
            guard !s.closed else { return (false, nil, []) }
            let size = line.utf8.count + 1
            guard s.lines.count < maximumLines, s.bytes + size <= maximumBytes else {
                s.overflowed = true
                s.closed = true
                let waiter = s.waiter
                s.waiter = nil
                return (false, waiter, [])
            }
            s.lines.append(line)
            s.bytes += size
            guard let waiter = s.waiter else { return (true, nil, []) }
            s.waiter = nil
            let batch = s.lines
            s.lines = []
            s.bytes = 0
            return (true, waiter, batch)
        }
        if let waiter { waiter.resume(returning: batch.isEmpty ? nil : batch) }
        return accepted
    }

    /// Everything queued so far, waiting for at least one line; nil once closed (lines
    /// queued before a normal close are still handed out first).
    func next() async -> [String]? {
        await withCheckedContinuation { (continuation: CheckedContinuation<[String]?, Never>) in
            let ready = state.withLock { s -> [String]?? in
                if !s.lines.isEmpty, !s.overflowed {
                    defer {
                        s.lines = []
                        s.bytes = 0
                    }
                    return .some(s.lines)
                }
                if s.closed { return .some(nil) }
                s.waiter = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// Stops accepting lines; the writer drains what is queued, then ends.
    func close() {
        let waiter = state.withLock { s -> CheckedContinuation<[String]?, Never>? in
            s.closed = true
            defer { s.waiter = nil }
            return s.waiter
        }
        waiter?.resume(returning: nil)
    }

    var overflowed: Bool { state.withLock { $0.overflowed } }
}
