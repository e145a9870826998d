import Foundation
import PhotonCore
import PhotonTestSupport
import Testing

@testable import PhotonService

/// A session that records what it was sent and can be dropped like a TV restarting.
final class FakeSession: RemoteSession, @unchecked Sendable {
    let capabilities = Capabilities(.keys, .text, .powerState)
    let events: AsyncStream<TVEvent>
    private let sink: AsyncStream<TVEvent>.Continuation
    let sent = Locked<[RemoteCommand]>([])
    let closed = Locked(false)

    init() { (events, sink) = AsyncStream.makeStream(of: TVEvent.self) }

    func send(_ command: RemoteCommand) async throws {
        guard !closed.withLock({ $0 }) else { throw PhotonError(.connectionClosed, "closed") }
        sent.withLock { $0.append(command) }
    }

    func report(_ event: TVEvent) { sink.yield(event) }

    /// The TV goes away.
    func drop() {
        closed.withLock { $0 = true }
        sink.yield(.disconnected(reason: PhotonError(.connectionClosed, "the TV closed the connection")))
        sink.finish()
    }

    func close() async {
        closed.withLock { $0 = true }
        sink.finish()
    }
}

/// A TV that can be up or down, and fail in a chosen way while down.
final class FakeTV: Sendable {
    let sessions = Locked<[FakeSession]>([])
    let attempts = Locked(0)
    let failure = Locked<PhotonError?>(nil)
    /// How long a connection attempt takes (a TV that does not answer SYNs).
    let delay = Locked<Duration>(.zero)

    func open() async throws -> any RemoteSession {
        attempts.withLock { $0 += 1 }
        let delay = self.delay.withLock { $0 }
        if delay > .zero { try await Task.sleep(for: delay) }
        if let failure = failure.withLock({ $0 }) { throw failure }
        let session = FakeSession()
        sessions.withLock { $0.append(session) }
        return session
    }

    var delivered: [RemoteCommand] { sessions.withLock { $0.flatMap { $0.sent.withLock { $0 } } } }
}

@Suite struct TVConnectionTests {
    let device = DeviceRecord(
        id: "androidtv-1", nickname: "tv", brand: "androidtv", host: "127.0.0.1", port: 6466, ports: [:], capabilities: [],
        pairedAt: Date(timeIntervalSince1970: 0))

    func connection(_ tv: FakeTV, backoff: ReconnectBackoff = ReconnectBackoff()) -> TVConnection {
        TVConnection(device: device, connectTimeout: .seconds(2), backoff: backoff, log: .silent) { _, _ in try await tv.open() }
    }

    var soon: ContinuousClock.Instant { .now + .seconds(2) }

    func waitUntil(_ condition: @Sendable () async -> Bool) async throws {
        let end = ContinuousClock.now + .seconds(5)
        while !(await condition()) {
            guard ContinuousClock.now < end else { throw TestFailure("condition not met in 5 s") }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    @Test func oneSessionServesEveryCommand() async throws {
        let tv = FakeTV()
        let connection = connection(tv)
        for _ in 0..<10 { try await connection.send(.key(.key(.home), .press), deadline: soon) }
        #expect(tv.attempts.withLock { $0 } == 1)
        #expect(tv.delivered.count == 10)
        #expect(await connection.state == .connected)
        #expect(await connection.capabilities == Capabilities(.keys, .text, .powerState))
    }

    @Test func aDroppedTVFailsCommandsAtOnceReconnectsAndReplaysNothing() async throws {
        let tv = FakeTV()
        var backoff = ReconnectBackoff()
        backoff.first = .milliseconds(20)
        backoff.maximum = .milliseconds(40)
        let connection = connection(tv, backoff: backoff)
        try await connection.send(.text("before"), deadline: soon)

        tv.failure.withLock { $0 = PhotonError(.unreachable, "connection refused") }
        tv.sessions.withLock { $0 }[0].drop()
        try await waitUntil { await connection.state == .reconnecting }
        for n in 0..<5 {
            await #expect(throws: PhotonError.self) { try await connection.send(.text("during-\(n)"), deadline: soon) }
        }
        // Background attempts go on while the TV is away.
        try await waitUntil { tv.attempts.withLock { $0 } >= 4 }

        tv.failure.withLock { $0 = nil }
        try await waitUntil { await connection.state == .connected }
        try await connection.send(.text("after"), deadline: soon)
        #expect(tv.delivered == [.text("before"), .text("after")])
        #expect(tv.sessions.withLock { $0.count } == 2)
        #expect(await connection.connectCount == 2)
    }

    @Test func aRefusalStopsRetrying() async throws {
        let tv = FakeTV()
        var backoff = ReconnectBackoff()
        backoff.first = .milliseconds(10)
        let connection = connection(tv, backoff: backoff)
        tv.failure.withLock { $0 = PhotonError(.pinMismatch, "the TV's certificate changed", hint: "pair again") }
        do {
            try await connection.send(.key(.key(.home), .press), deadline: soon)
            Issue.record("sent to a TV whose certificate changed")
        } catch let error as PhotonError {
            #expect(error.code == .pinMismatch)
        }
        try await waitUntil { await connection.state == .failed }
        try await Task.sleep(for: .milliseconds(200))
        #expect(tv.attempts.withLock { $0 } == 1)
        // The same error again, without another attempt.
        await #expect(throws: PhotonError.self) { try await connection.send(.key(.key(.home), .press), deadline: soon) }
        #expect(tv.attempts.withLock { $0 } == 1)
    }

    @Test func subscribersGetTheStateThenChanges() async throws {
        let tv = FakeTV()
        let connection = connection(tv)
        _ = try await connection.ensureSession(deadline: soon)
        let session = tv.sessions.withLock { $0 }[0]
        session.report(.power(isOn: true))
        try await waitUntil { await connection.knownEvents.count == 1 }
        let lines = Locked<[String]>([])
        await connection.subscribe(UUID()) { line in lines.withLock { $0.append(line.encoded) } }
        session.report(.volume(VolumeState(level: 3, maximum: 10, muted: false)))
        try await waitUntil { lines.withLock { $0.count } == 3 }
        let seen = lines.withLock { $0 }
        #expect(seen[0].contains("\"state\":\"connected\""))
        #expect(seen[1].contains("\"power\":\"on\""))
        #expect(seen[2].contains("\"level\":3"))
        session.drop()
        try await waitUntil { lines.withLock { $0.count } == 4 }
        #expect(lines.withLock { $0[3] }.contains("\"state\":\"reconnecting\""))
        await connection.close()
        #expect(await connection.state == .closed)
        await #expect(throws: PhotonError.self) { try await connection.send(.key(.key(.home), .press), deadline: soon) }
    }

    @Test func aCommandDoesNotWaitPastItsLifetimeForASlowAttempt() async throws {
        let tv = FakeTV()
        tv.delay.withLock { $0 = .seconds(2) }
        let connection = connection(tv)
        await connection.warm()
        let start = ContinuousClock.now
        do {
            try await connection.send(.key(.key(.home), .press), deadline: .now + .milliseconds(300))
            Issue.record("sent before the TV answered")
        } catch let error as PhotonError {
            #expect(error.code == .timeout)
        }
        #expect(ContinuousClock.now - start < .seconds(1))
        // The attempt itself went on and connected; nothing was sent by it.
        try await waitUntil { await connection.state == .connected }
        #expect(tv.delivered.isEmpty)
        try await connection.send(.key(.key(.home), .press), deadline: soon)
        #expect(tv.delivered.count == 1)
    }
}
