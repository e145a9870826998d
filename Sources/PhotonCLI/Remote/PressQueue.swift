import PhotonCore

/// The keyboard remote's sender. Commands go one at a time, in order. A key that repeats
/// the one being sent (or the last one waiting) is dropped: a held key's auto-repeat then
/// goes at the pace the TV takes it, nothing queues up behind it, and nothing is sent after
/// the key is let go. Different keys typed quickly all go, up to `limit` waiting.
final class PressQueue: Sendable {
    typealias Send = @Sendable (RemoteCommand) async throws -> Void
    typealias Report = @Sendable (_ label: String, _ error: (any Error)?) -> Void

    private struct Item: Sendable {
        let command: RemoteCommand
        let label: String
    }

    private struct State {
        var inFlight: RemoteCommand?
        var waiting: [Item] = []
        var dropped = 0
    }

    private let state = Locked(State())
    private let send: Send
    private let report: Report
    let limit: Int

    init(limit: Int = 8, send: @escaping Send, report: @escaping Report) {
        self.limit = limit
        self.send = send
        self.report = report
    }

    /// How many presses were dropped as repeats (for tests).
    var droppedCount: Int { state.withLock { $0.dropped } }

    /// Submits a command; `repeatable` ones (keys) are dropped when they repeat what is in
    /// flight or last in line. Returns whether it was taken.
    @discardableResult
    func submit(_ command: RemoteCommand, label: String, repeatable: Bool = true) -> Bool {
        enum Outcome {
            case start(Item)
            case queued, dropped
        }
        let outcome = state.withLock { s -> Outcome in
            guard s.inFlight != nil else {
                s.inFlight = command
                return .start(Item(command: command, label: label))
            }
            let last = s.waiting.last?.command ?? s.inFlight
            if (repeatable && last == command) || s.waiting.count >= limit {
                s.dropped += 1
                return .dropped
            }
            s.waiting.append(Item(command: command, label: label))
            return .queued
        }
        switch outcome {
        case .start(let item):
            Task { await self.run(item) }
            return true
        case .queued: return true
        case .dropped: return false
        }
    }

    private func run(_ first: Item) async {
        var item: Item? = first
        while let current = item {
            do {
                try await send(current.command)
                report(current.label, nil)
            } catch {
                report(current.label, error)
            }
            item = state.withLock { s -> Item? in
                guard !s.waiting.isEmpty else {
                    s.inFlight = nil
                    return nil
                }
                let next = s.waiting.removeFirst()
                s.inFlight = next.command
                return next
            }
        }
    }
}
