import Foundation
import PhotonCore
import PhotonTestSupport
import PhotonTesting
import Testing

@testable import PhotonKit

/// A TV that can be up or down, and fail in a chosen way while down.
final class FakeTV: Sendable {
    let sessions = Locked<[RecordingSession]>([])
    let attempts = Locked(0)
    let failure = Locked<PhotonError?>(nil)
    /// How long a connection attempt takes (a TV that does not answer SYNs).
    let delay = Locked<Duration>(.zero)
    /// When set, a connection attempt waits until the test opens it.
    let gate = Locked<Promise<Void>?>(nil)

    func open() async throws -> any RemoteSession {
        attempts.withLock { $0 += 1 }
        let delay = self.delay.withLock { $0 }
        if delay > .zero { try await Task.sleep(for: delay) }
        if let gate = gate.withLock({ $0 }) { try await gate.value() }
        if let failure = failure.withLock({ $0 }) { throw failure }
        // Opening writes to the TV (a handshake): a transport checks the command deadline
        // it runs under, as the real ones do.
        try CommandDeadline.checkBeforeSending()
        let session = RecordingSession()
        sessions.withLock { $0.append(session) }
        return session
    }

    var delivered: [RemoteCommand] { sessions.withLock { $0.flatMap(\.sent) } }
}

/// The session service's one TV: warm sessions that reconnect on a moved clock (no
/// sleeping), one-shot sessions that end with the TV, state replayed to subscribers.
@Suite struct SessionPoolTests {
    let device = DeviceRecord(
        id: "androidtv-1", nickname: "tv", brand: "androidtv", host: "127.0.0.1", port: 6466, ports: [:], capabilities: [],
        pairedAt: Date(timeIntervalSince1970: 0))

    func pooled(_ tv: FakeTV, policy: SessionPolicy = .keepWarm(ReconnectBackoff()), clock: any RouterClock = SystemClock()) -> PooledTV {
        PooledTV(device: device, policy: policy, connectTimeout: .seconds(2), clock: clock, log: .silent) { _, _, _ in try await tv.open() }
    }

    /// A lifetime no command here runs out of: these tests are about connecting, not
    /// expiry, and the pure suites run in parallel with CPU-bound ones (RSA key
    /// generation) that can hold both of a small machine's threads for seconds.
    var soon: ContinuousClock.Instant { .now + .seconds(60) }

    func waitUntil(_ condition: @Sendable () async -> Bool) async throws {
        let end = ContinuousClock.now + .seconds(30)
        while !(await condition()) {
            guard ContinuousClock.now < end else { throw TestFailure("condition not met in 30 s") }
            try await Task.sleep(for: .milliseconds(1))
        }
    }

    @Test func oneSessionServesEveryCommand() async throws {
        let tv = FakeTV()
        let pooled = pooled(tv)
        for _ in 0..<10 { try await pooled.send(.key(.key(.home), .press), deadline: soon) }
        #expect(tv.attempts.withLock { $0 } == 1)
        #expect(tv.delivered.count == 10)
        #expect(await pooled.state == .connected)
        #expect(await pooled.capabilities == Capabilities(.keys, .text, .powerState))
    }

    @Test func aDroppedTVFailsCommandsAtOnceReconnectsAndReplaysNothing() async throws {
        let tv = FakeTV()
        let clock = ManualClock()
        var backoff = ReconnectBackoff()
        backoff.jitter = 0
        let pooled = pooled(tv, clock: clock)
        _ = backoff
        try await pooled.send(.text("before"), deadline: soon)

        tv.failure.withLock { $0 = PhotonError(.unreachable, "connection refused") }
        tv.sessions.withLock { $0 }[0].drop()
        try await waitUntil { await pooled.state == .reconnecting }
        for n in 0..<5 {
            // Each finds the TV still away (it tries once, within its own lifetime).
            await #expect(throws: PhotonError.self) { try await pooled.send(.text("during-\(n)"), deadline: soon) }
        }
        // Background attempts go on while the TV is away, one per back-off step. The clock
        // moves on until the next attempt is seen: a sleeper left by one of the failed sends
        // can make "someone sleeps" true before the back-off's own sleep has begun, and one
        // advance made then would pass it by.
        let base = tv.attempts.withLock { $0 }
        for n in 1...3 {
            try await waitUntil {
                if tv.attempts.withLock({ $0 }) >= base + n { return true }
                if clock.sleeperCount > 0 { clock.advance(by: .seconds(60)) }
                return false
            }
        }
        // The TV is back: the next attempt, whenever the clock lets it run, connects.
        tv.failure.withLock { $0 = nil }
        try await waitUntil {
            if await pooled.state == .connected { return true }
            if clock.sleeperCount > 0 { clock.advance(by: .seconds(60)) }
            return false
        }
        try await pooled.send(.text("after"), deadline: soon)
        #expect(tv.delivered == [.text("before"), .text("after")])
        #expect(tv.sessions.withLock { $0.count } == 2)
        #expect(await pooled.connectCount == 2)
    }

    /// Reconnecting is not the command's work: attempts started while a command was being
    /// delivered must not inherit its deadline, or once it expired every background
    /// attempt (and every task the new session starts) would fail as "expired" and the TV
    /// would never come back.
    @Test func backgroundReconnectsOutliveTheCommandThatStartedThem() async throws {
        let tv = FakeTV()
        let clock = ManualClock()
        let pooled = pooled(tv, clock: clock)
        tv.failure.withLock { $0 = PhotonError(.unreachable, "connection refused") }
        let expiry = Date().addingTimeInterval(0.2)
        await #expect(throws: PhotonError.self) {
            try await CommandDeadline.$expiresAt.withValue(expiry) {
                try await pooled.send(.key(.key(.home), .press), deadline: .now + .milliseconds(150))
            }
        }
        try await waitUntil { await pooled.state == .reconnecting }
        // The command's lifetime runs out; then the TV comes back.
        while Date() < expiry { try await Task.sleep(for: .milliseconds(10)) }
        tv.failure.withLock { $0 = nil }
        try await clock.waitForSleepers()
        clock.advance(by: .seconds(60))
        try await waitUntil { await pooled.state == .connected }
        try await pooled.send(.key(.key(.back), .press), deadline: soon)
        #expect(tv.delivered == [.key(.key(.back), .press)])
    }

    /// A command that arrives just after a failed attempt is not answered with that
    /// failure: with its lifetime left it tries the TV again, once.
    @Test func aFreshCommandIsNotAnsweredWithAStaleFailure() async throws {
        let tv = FakeTV()
        let clock = ManualClock()
        let pooled = pooled(tv, clock: clock)
        tv.failure.withLock { $0 = PhotonError(.unreachable, "connection refused") }
        await #expect(throws: PhotonError.self) { try await pooled.send(.key(.key(.home), .press), deadline: soon) }
        try await waitUntil { await pooled.state == .reconnecting }
        // The TV is back a moment later; the back-off has not run out (the clock stands).
        tv.failure.withLock { $0 = nil }
        try await pooled.send(.key(.key(.back), .press), deadline: soon)
        #expect(tv.delivered == [.key(.key(.back), .press)])
        #expect(await pooled.state == .connected)
    }

    @Test func theBackoffGrowsAndIsCapped() {
        var backoff = ReconnectBackoff()
        backoff.jitter = 0
        #expect(backoff.delay(afterFailures: 1) == .milliseconds(250))
        #expect(backoff.delay(afterFailures: 3) == .seconds(1))
        #expect(backoff.delay(afterFailures: 40) == .seconds(30))
        backoff.jitter = 0.1
        for _ in 0..<100 {
            let delay = backoff.delay(afterFailures: 2)
            #expect(delay >= .milliseconds(449) && delay <= .milliseconds(551))
        }
    }

    /// A certificate that is not the pinned one may be a moment's thing (an address
    /// briefly another device's): it is looked at again with back-off — and nothing is
    /// ever sent to it — until the pinned TV answers again.
    @Test func aMismatchedCertificateIsCheckedAgainButNeverSentTo() async throws {
        let tv = FakeTV()
        let clock = ManualClock()
        let pooled = pooled(tv, clock: clock)
        tv.failure.withLock { $0 = PhotonError(.pinMismatch, "the TV's certificate changed", hint: "pair again") }
        await #expect(throws: PhotonError.self) { try await pooled.send(.key(.key(.home), .press), deadline: soon) }
        try await waitUntil { await pooled.state == .failed }
        // Commands fail at once meanwhile, without an attempt of their own.
        let before = tv.attempts.withLock { $0 }
        await #expect(throws: PhotonError.self) { try await pooled.send(.key(.key(.home), .press), deadline: soon) }
        #expect(tv.attempts.withLock { $0 } == before)
        try await clock.waitForSleepers()
        clock.advance(by: .seconds(60))
        try await waitUntil { tv.attempts.withLock { $0 } == before + 1 }
        try await clock.waitForSleepers()
        tv.failure.withLock { $0 = nil }
        clock.advance(by: .seconds(60))
        try await waitUntil { await pooled.state == .connected }
        try await pooled.send(.key(.key(.back), .press), deadline: soon)
        #expect(tv.delivered == [.key(.key(.back), .press)])
    }

    @Test func aRefusalStopsRetrying() async throws {
        let tv = FakeTV()
        let clock = ManualClock()
        let pooled = pooled(tv, clock: clock)
        tv.failure.withLock { $0 = PhotonError(.authenticationRefused, "the TV no longer accepts this client", hint: "pair again") }
        do {
            try await pooled.send(.key(.key(.home), .press), deadline: soon)
            Issue.record("sent to a TV that refused us")
        } catch let error as PhotonError {
            #expect(error.code == .authenticationRefused)
        }
        try await waitUntil { await pooled.state == .failed }
        clock.advance(by: .seconds(3600))
        #expect(clock.sleeperCount == 0)
        #expect(tv.attempts.withLock { $0 } == 1)
        // The same error again, without another attempt.
        await #expect(throws: PhotonError.self) { try await pooled.send(.key(.key(.home), .press), deadline: soon) }
        #expect(tv.attempts.withLock { $0 } == 1)
    }

    @Test func subscribersGetTheStateThenChanges() async throws {
        let tv = FakeTV()
        let pooled = pooled(tv)
        _ = try await pooled.ensureSession(deadline: soon)
        let session = tv.sessions.withLock { $0 }[0]
        session.report(.power(isOn: true))
        try await waitUntil { await pooled.knownEvents.count == 1 }
        let seen = Locked<[TVUpdate]>([])
        await pooled.subscribe(UUID()) { update in seen.withLock { $0.append(update) } }
        session.report(.volume(VolumeState(level: 3, maximum: 10, muted: false)))
        try await waitUntil { seen.withLock { $0.count } == 3 }
        #expect(
            seen.withLock { Array($0.prefix(3)) } == [
                .connection(.connected, nil), .event(.power(isOn: true)), .event(.volume(VolumeState(level: 3, maximum: 10, muted: false))),
            ])
        session.drop()
        try await waitUntil { seen.withLock { $0.count } == 4 }
        guard case .connection(.reconnecting, let error) = seen.withLock({ $0[3] }) else {
            Issue.record("no reconnecting update: \(seen.withLock { $0 })")
            return
        }
        #expect(error?.code == .connectionClosed)
        await pooled.close()
        #expect(await pooled.state == .closed)
        await #expect(throws: PhotonError.self) { try await pooled.send(.key(.key(.home), .press), deadline: soon) }
    }

    @Test func aOneShotSessionEndsWithTheTVAndTheNextUseReopens() async throws {
        let tv = FakeTV()
        let pooled = pooled(tv, policy: .oneShot)
        _ = try await pooled.ensureSession(deadline: soon)
        let seen = Locked<[TVUpdate]>([])
        await pooled.subscribe(UUID()) { update in seen.withLock { $0.append(update) } }
        tv.sessions.withLock { $0 }[0].drop()
        try await waitUntil { seen.withLock { $0.contains { if case .event(.disconnected) = $0 { return true } else { return false } } } }
        #expect(await pooled.state == .idle)
        try await pooled.send(.key(.key(.home), .press), deadline: soon)
        #expect(tv.attempts.withLock { $0 } == 2)
    }

    @Test func aCommandDoesNotWaitPastItsLifetimeForASlowAttempt() async throws {
        let tv = FakeTV()
        // The attempt does not finish until the test says so: the command can only come
        // back by its own deadline (no wall-clock bound asserted).
        let gate = Promise<Void>()
        tv.gate.withLock { $0 = gate }
        let pooled = pooled(tv)
        await pooled.warm()
        do {
            try await pooled.send(.key(.key(.home), .press), deadline: .now + .milliseconds(100))
            Issue.record("sent before the TV answered")
        } catch let error as PhotonError {
            #expect(error.code == .timeout)
        }
        #expect(await pooled.state == .connecting)
        // The attempt itself goes on and connects; nothing was sent by it.
        tv.gate.withLock { $0 = nil }
        gate.succeed(())
        try await waitUntil { await pooled.state == .connected }
        #expect(tv.delivered.isEmpty)
        try await pooled.send(.key(.key(.home), .press), deadline: soon)
        #expect(tv.delivered.count == 1)
    }

    @Test func aCapabilityIsCheckedOnceBeforeTheAdapterIsCalled() async throws {
        let session = RecordingSession(capabilities: Capabilities(.keys))
        await #expect(throws: PhotonError.self) { try await RemoteCommand.text("hello").perform(on: session) }
        try await RemoteCommand.volume(.up).perform(on: session)
        #expect(session.sent == [.key(.key(.volumeUp), .press)])
    }

    @Test func aLongPressIsAHoldAndAReleaseOnTheInjectedClock() async throws {
        let session = RecordingSession(capabilities: Capabilities(.keys, .longPress))
        let clock = ManualClock()
        let press = Task {
            try await RemoteCommand.longPress(.key(.select), milliseconds: 3000).perform(on: session, sleep: { try await clock.sleep(for: $0) })
        }
        try await clock.waitForSleepers()
        #expect(session.sent == [.key(.key(.select), .holdStart)])
        clock.advance(by: .seconds(3))
        try await press.value
        #expect(session.sent == [.key(.key(.select), .holdStart), .key(.key(.select), .holdEnd)])
    }
}
