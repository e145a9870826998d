import Foundation
import PhotonCore
import PhotonFollow
import PhotonTesting
import Testing

/// The follower's rules against a recording TV and the manual clock: what happens at sleep,
/// resume, shutdown, idle and lock; the lock let go on every path, failures included; a TV
/// showing another input left alone; idle only after its time, undone by activity.
@Suite struct FollowerTests {
    final class RecordingTV: FollowTarget, @unchecked Sendable {
        let name = "den"
        let done = Locked<[String]>([])
        let showing = Locked<String?>("hdmi1")
        let failing = Locked<Bool>(false)
        let hasScreen: Bool

        init(hasScreen: Bool = true) { self.hasScreen = hasScreen }

        func setPower(_ target: PowerTarget) async throws {
            if failing.withLock({ $0 }) { throw PhotonError(.unreachable, "den does not answer") }
            done.withLock { $0.append("power \(target.rawValue)") }
        }

        func send(_ command: RemoteCommand) async throws {
            if case .screen = command, !hasScreen { throw PhotonError.unsupported("no screen call", hint: nil) }
            switch command {
            case .screen(let on): done.withLock { $0.append("screen \(on ? "on" : "off")") }
            case .input(let name): done.withLock { $0.append("input \(name)") }
            default: done.withLock { $0.append("other") }
            }
        }

        func inputs() async throws -> [TVListItem] {
            let shown = showing.withLock { $0 }
            return ["hdmi1", "hdmi2"].map { input in TVListItem(id: input.uppercased(), name: input, kind: input, active: shown.map { $0 == input }) }
        }
    }

    final class Lock: SleepDelayLock, @unchecked Sendable {
        let calls = Locked<[String]>([])
        func releaseDelayLock() { calls.withLock { $0.append("release") } }
        func requestDelayLock() { calls.withLock { $0.append("request") } }
    }

    func follower(_ tv: RecordingTV, _ options: FollowOptions, clock: ManualClock = ManualClock()) -> (Follower, Locked<[String]>) {
        let reports = Locked<[String]>([])
        let follower = Follower(tv: tv, options: options, clock: clock) { r in
            reports.withLock { $0.append("\(r.event): \(r.action)") }
        }
        return (follower, reports)
    }

    @Test func sleepSwitchesOffAndLetsGoResumeSwitchesOnToTheInput() async throws {
        let tv = RecordingTV()
        let lock = Lock()
        let (follower, reports) = follower(tv, FollowOptions(input: .hdmi(1)))
        let (events, feed) = AsyncStream.makeStream(of: LogindEvent.self)
        feed.yield(.sleep(starting: true))
        feed.yield(.sleep(starting: false))
        feed.yield(.shutdown(starting: true))
        feed.finish()
        await follower.run(events, lock: lock)
        #expect(
            tv.done.withLock { $0 } == [
                "power on", "input hdmi1", "power off", "power on", "input hdmi1", "power off",
            ])
        #expect(lock.calls.withLock { $0 } == ["release", "request", "release"])
        #expect(reports.withLock { $0 }.contains("sleep: released"))
    }

    @Test func anotherInputShowingIsLeftOnAndAFailureStillLetsGo() async throws {
        let tv = RecordingTV()
        let lock = Lock()
        let (follower, reports) = follower(tv, FollowOptions(input: .hdmi(1), onWake: false))
        let (events, feed) = AsyncStream.makeStream(of: LogindEvent.self)
        tv.showing.withLock { $0 = "hdmi2" }
        feed.yield(.sleep(starting: true))
        feed.finish()
        await follower.run(events, lock: lock)
        #expect(tv.done.withLock { $0 }.isEmpty)
        #expect(reports.withLock { $0 }.contains("sleep: left-on"))
        // A TV that fails to go off: said, and the machine is let go all the same.
        let failing = RecordingTV()
        failing.failing.withLock { $0 = true }
        let (second, said) = self.follower(failing, FollowOptions(onWake: false))
        let (more, feedMore) = AsyncStream.makeStream(of: LogindEvent.self)
        feedMore.yield(.shutdown(starting: true))
        feedMore.finish()
        let lock2 = Lock()
        await second.run(more, lock: lock2)
        #expect(said.withLock { $0 }.contains("shutdown: failed") && lock2.calls.withLock { $0 } == ["release"])
    }

    @Test func idleActsOnlyAfterItsTimeAndActivityUndoesIt() async throws {
        let clock = ManualClock()
        let tv = RecordingTV()
        let (follower, _) = follower(tv, FollowOptions(onWake: false, onSleep: false, idle: .seconds(300)), clock: clock)
        let (events, feed) = AsyncStream.makeStream(of: LogindEvent.self)
        let running = Task { await follower.run(events, lock: Lock()) }
        // Locked, then unlocked before the time: nothing.
        feed.yield(.lock)
        try await clock.waitForSleepers()
        clock.advance(by: .seconds(100))
        feed.yield(.unlock)
        try await waitUntil { clock.sleeperCount == 0 }
        clock.advance(by: .seconds(300))
        #expect(tv.done.withLock { $0 }.isEmpty)
        // Idle past the time: the picture off; active: on again.
        feed.yield(.idle(true))
        try await clock.waitForSleepers()
        clock.advance(by: .seconds(300))
        try await waitUntil { tv.done.withLock { $0 } == ["screen off"] }
        feed.yield(.idle(false))
        try await waitUntil { tv.done.withLock { $0 } == ["screen off", "screen on"] }
        feed.finish()
        await running.value
    }

    @Test func withoutAScreenCallIdleDoesNothingUnlessToldToSwitchOff() async throws {
        for idlePower in [false, true] {
            let clock = ManualClock()
            let tv = RecordingTV(hasScreen: false)
            let (follower, reports) = follower(
                tv, FollowOptions(onWake: false, onSleep: false, idle: .seconds(60), idlePower: idlePower), clock: clock)
            let (events, feed) = AsyncStream.makeStream(of: LogindEvent.self)
            let running = Task { await follower.run(events, lock: Lock()) }
            feed.yield(.idle(true))
            try await clock.waitForSleepers()
            clock.advance(by: .seconds(60))
            try await waitUntil { reports.withLock { $0 }.contains { $0.hasPrefix("idle:") } }
            feed.yield(.idle(false))
            feed.finish()
            await running.value
            #expect(tv.done.withLock { $0 } == (idlePower ? ["power off", "power on"] : []), "idlePower \(idlePower)")
        }
    }

    /// Waits (on the real clock, briefly) for work the follower does on its own tasks.
    func waitUntil(_ condition: () -> Bool) async throws {
        let end = ContinuousClock.now + .seconds(5)
        while !condition() {
            guard ContinuousClock.now < end else { throw PhotonError(.timeout, "the follower did not get there") }
            try await Task.sleep(for: .milliseconds(1))
        }
    }

    @Test func signalsAreReadAsLogindMeansThem() {
        let session = "/org/freedesktop/login1/session/c1"
        func signal(_ interface: String, _ member: String, _ arguments: [DBusValue], path: String = session) -> LogindEvent? {
            Logind.event(DBusSignal(path: path, interface: interface, member: member, arguments: arguments), session: session)
        }
        #expect(signal("org.freedesktop.login1.Manager", "PrepareForSleep", [.bool(true)], path: "/org/freedesktop/login1") == .sleep(starting: true))
        #expect(signal("org.freedesktop.login1.Manager", "PrepareForShutdown", [.bool(false)]) == .shutdown(starting: false))
        #expect(signal("org.freedesktop.login1.Session", "Lock", []) == .lock)
        #expect(signal("org.freedesktop.login1.Session", "Lock", [], path: "/org/freedesktop/login1/session/other") == nil)
        let idle: [DBusValue] = [.string("org.freedesktop.login1.Session"), .array([.entry(.string("IdleHint"), .variant(.bool(true)))]), .array([])]
        #expect(signal("org.freedesktop.DBus.Properties", "PropertiesChanged", idle) == .idle(true))
        let other: [DBusValue] = [.string("org.freedesktop.login1.Session"), .array([.entry(.string("Active"), .variant(.bool(true)))])]
        #expect(signal("org.freedesktop.DBus.Properties", "PropertiesChanged", other) == nil)
        #expect(signal("org.freedesktop.login1.Manager", "PrepareForSleep", [.string("yes")]) == nil)
    }
}
