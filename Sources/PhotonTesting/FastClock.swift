import Foundation
import PhotonCore

/// A clock that runs `speedup` times faster than real time, for tests against a real
/// peer: an adapter's rules of time (Samsung's key pacing, Roku's polling every few
/// seconds) still hold relative to each other, but take milliseconds. Unlike a
/// `ManualClock` it moves on its own, so a poller keeps polling without a test driving it.
public struct FastClock: RouterClock {
    public let speedup: Double
    private let origin: Date
    private let start: ContinuousClock.Instant

    public init(speedup: Double = 50, origin: Date = Date()) {
        precondition(speedup >= 1, "a FastClock runs at least at real speed")
        self.speedup = speedup
        self.origin = origin
        start = .now
    }

    public var now: Date { origin.addingTimeInterval((ContinuousClock.now - start).seconds * speedup) }

    public func sleep(for duration: Duration) async throws {
        guard duration > .zero else { return }
        try await Task.sleep(for: duration / speedup)
    }
}
