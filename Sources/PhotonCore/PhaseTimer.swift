import Foundation

/// Where a short-lived command spends its time, for `make bench`'s cold-key breakdown
/// and for anyone asking why a key press is slow: with `PHOTON_TIMINGS=1` in the
/// environment each layer marks the end of its phase (store read, TLS context, handshake,
/// send, close) on CLOCK_MONOTONIC, and `photon-cli` prints one JSON line of them on
/// stderr at exit. Off (one flag read) otherwise; no phase records anything secret.
public enum PhaseTimer {
    /// Whether `PHOTON_TIMINGS` is set.
    public static let isEnabled: Bool = getenv("PHOTON_TIMINGS").map { $0.pointee != 0 } ?? false

    private static let marks = Locked<[(phase: String, seconds: Double)]>([])

    /// Records that `phase` ended now.
    @inline(__always)
    public static func mark(_ phase: @autoclosure () -> String) {
        guard isEnabled else { return }
        let now = monotonicSeconds()
        let name = phase()
        marks.withLock { $0.append((name, now)) }
    }

    /// Records a phase that ended at `seconds` (another process's mark, such as the front
    /// end's, passed on in the environment).
    public static func mark(_ phase: String, at seconds: Double) {
        guard isEnabled else { return }
        marks.withLock { $0.append((phase, seconds)) }
    }

    /// The marks so far as `{"timings":[["phase",seconds],…]}` (CLOCK_MONOTONIC seconds),
    /// or nil when timing is off. Marks of earlier processes come from `environment`:
    /// `PHOTON_TIMINGS_SPAWNED_AT` (when whoever ran the command started it) and
    /// `PHOTON_TIMINGS_FRONT_END` (the `photon` front end's start and exec).
    public static func report(environment: EnvironmentVariables = [:]) -> String? {
        guard isEnabled else { return nil }
        if let spawned = environment["PHOTON_TIMINGS_SPAWNED_AT"].flatMap(Double.init) { mark("spawned", at: spawned) }
        if let frontEnd = environment["PHOTON_TIMINGS_FRONT_END"]?.split(separator: ",").compactMap({ Double($0) }), frontEnd.count == 2 {
            mark("photon main", at: frontEnd[0])
            mark("photon exec of photon-cli", at: frontEnd[1])
        }
        mark("exit")
        let entries = marks.withLock { $0 }.sorted { $0.seconds < $1.seconds }
        let items = entries.map { JSONValue.array([.string($0.phase), .double($0.seconds)]) }
        return JSONValue.object([("timings", .array(items))]).encoded
    }

    /// CLOCK_MONOTONIC in seconds: the clock the benchmark and the emulators stamp with.
    public static func monotonicSeconds() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }
}
