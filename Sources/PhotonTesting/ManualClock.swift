import Foundation
import PhotonCore

/// A clock that moves only when a test says so, for the router (hold release), the
/// session service (reconnect back-off, waking) and anything else that takes a
/// `RouterClock`: a rule about seconds is tested in microseconds, and never flakes.
public final class ManualClock: RouterClock {
    private struct Sleeper {
        var until: Date
        var promise: Promise<Void>
    }
    private let state: Locked<(now: Date, sleepers: [UUID: Sleeper])>

    public init(start: Date = Date(timeIntervalSince1970: 1_800_000_000)) { state = Locked((start, [:])) }

    public var now: Date { state.withLock { $0.now } }

    /// Suspends until the clock is advanced past `duration` from now (or cancelled).
    public func sleep(for duration: Duration) async throws {
        let id = UUID()
        let promise = Promise<Void>()
        let due = state.withLock { s -> Bool in
            let until = s.now.addingTimeInterval(duration.seconds)
            if until <= s.now { return true }
            s.sleepers[id] = Sleeper(until: until, promise: promise)
            return false
        }
        if due { return }
        do {
            try await promise.value()
        } catch {
            _ = state.withLock { $0.sleepers.removeValue(forKey: id) }
            throw error
        }
    }

    /// How many tasks are waiting on this clock.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// Moves the clock forward, waking every sleeper whose time has come.
    public func advance(by duration: Duration) {
        let woken = state.withLock { s -> [Promise<Void>] in
            s.now = s.now.addingTimeInterval(duration.seconds)
            let due = s.sleepers.filter { $0.value.until <= s.now }
            for id in due.keys { s.sleepers[id] = nil }
            return due.values.map(\.promise)
        }
        for promise in woken { promise.succeed(()) }
    }

    /// Waits (on the real clock, at most `limit`) until `count` tasks sleep on this one:
    /// a test advances only once the code under test is waiting.
    public func waitForSleepers(_ count: Int = 1, limit: Duration = .seconds(5)) async throws {
        let end = ContinuousClock.now + limit
        while sleeperCount < count {
            guard ContinuousClock.now < end else { throw PhotonError(.timeout, "nothing slept on the manual clock within \(limit)") }
            await Task.yield()
            try await Task.sleep(for: .milliseconds(1))
        }
    }
}
