import Foundation
import PhotonCore

/// One TV's session in the session service. Commands use the open session; when the TV
/// goes away they fail at once with a clear error (never queued, never replayed). Under
/// `keepWarm` the session comes back in the background with back-off; under `oneShot`
/// the next use opens a new one. State the TV reports (power, volume, app…) is kept and
/// replayed to every new subscriber, then changes are fanned out to all of them.
public actor PooledTV {
    /// Opens a session to the record within the time limit; the command, when known, is
    /// the one it is opened to send (`AdapterContext.expectedCommand`).
    typealias Opener = @Sendable (DeviceRecord, Duration, RemoteCommand?) async throws -> any RemoteSession
    /// Called with every update of this TV, on the pool's side: it must return quickly.
    public typealias Subscriber = @Sendable (TVUpdate) -> Void

    /// The stored id of the TV (it never changes, whatever its address or name).
    public nonisolated let deviceID: String
    /// The TV's record in the store, as of the last reload.
    public private(set) var device: DeviceRecord
    let policy: SessionPolicy
    private let open: Opener
    private let connectTimeout: Duration
    private let clock: any RouterClock
    private let log: ServiceLog

    /// Where the connection to the TV is now.
    public private(set) var state = ConnectionState.idle
    /// Commands to this TV take turns, in arrival order.
    private let performing = AsyncGate()
    private var session: (any RemoteSession)?
    private var attempt: Task<any RemoteSession, any Error>?
    private var retry: Task<Void, Never>?
    private var lastError: PhotonError?
    private var lastFailure: ContinuousClock.Instant?
    private var failures = 0
    /// The latest event of each kind, the most recently changed last.
    public private(set) var knownEvents: [TVEvent] = []
    private var subscribers: [UUID: Subscriber] = [:]
    /// Remotes holding this TV (one-shot: the last one to leave closes the session).
    var users = 0
    /// How many sessions this TV opened (1 while it never dropped).
    public private(set) var connectCount = 0

    init(device: DeviceRecord, policy: SessionPolicy, connectTimeout: Duration, clock: any RouterClock, log: ServiceLog, open: @escaping Opener) {
        self.deviceID = device.id
        self.device = device
        self.policy = policy
        self.open = open
        self.connectTimeout = connectTimeout
        self.clock = clock
        self.log = log
    }

    /// The capabilities of the open session, or nil while disconnected.
    public var capabilities: Capabilities? { session?.capabilities }

    // MARK: commands

    /// Performs one command on the session, connecting first if needed, within
    /// `deadline`. A failure is reported, never retried.
    /// Returns whether the TV acknowledged it.
    @discardableResult
    func send(_ command: RemoteCommand, deadline: ContinuousClock.Instant) async throws -> Bool {
        let session = try await ensureSession(deadline: deadline)
        guard ContinuousClock.now < deadline else { throw RouterRejection.expired.error }
        let clock = self.clock
        do {
            // One command at a time per TV, in arrival order: the actor alone would let a
            // second command run while the first is suspended (Roku types a text one
            // request per character, and two texts would interleave).
            try await performing.withGate {
                guard ContinuousClock.now < deadline else { throw RouterRejection.expired.error }
                try await command.perform(on: session, sleep: { try await clock.sleep(for: $0) })
            }
            return session.confirms(command)
        } catch let error as PhotonError where [.connectionClosed, .unreachable, .timeout].contains(error.code) && !isExpiry(error) {
            lost(session, reason: error)
            let again = policy.keepsWarm ? "photon serve reconnects in the background" : "run the command again"
            throw PhotonError(
                error.code, "\(name): \(error.message)", hint: "the command may not have reached the TV and will not be resent; \(again)")
        }
    }

    private func isExpiry(_ error: PhotonError) -> Bool { error.reason == .commandExpired }

    /// The open session, or a new one (one attempt shared by every waiting caller).
    /// `expecting`: the command a new session is opened to send, if the caller knows it.
    public func ensureSession(deadline: ContinuousClock.Instant, expecting: RemoteCommand? = nil) async throws -> any RemoteSession {
        if let session { return session }
        switch state {
        case .closed: throw PhotonError(.notFound, "\(name) is no longer served", hint: "it was forgotten, or the process is stopping")
        case .failed: if let lastError { throw lastError }
        default: break
        }
        // A command that was never written may wait for a connection within its own
        // lifetime: it joins the attempt under way, or starts one now (the background
        // retry, when it comes, finds it) — it is not answered with an earlier attempt's
        // failure. The command itself is still sent at most once.
        let task =
            attempt ?? startAttempt(timeout: min(connectTimeout, max(deadline - ContinuousClock.now, .milliseconds(1))), expecting: expecting)
        let opened: any RemoteSession
        do {
            opened = try await Self.value(of: task, before: deadline)
        } catch {
            throw outage(PhotonError.wrap(error))
        }
        // Adopted now (not only by the attempt's own follow-up), so the state and the
        // capabilities are current when the caller goes on.
        await finish(task)
        return opened
    }

    /// The attempt's session, or `timeout` at `deadline`: joining an attempt that a
    /// background retry started (with its own, longer limit) must not make a command
    /// wait past its lifetime. The attempt itself goes on.
    static func value(of attempt: Task<any RemoteSession, any Error>, before deadline: ContinuousClock.Instant) async throws
        -> any RemoteSession
    {
        let outcome = Promise<any RemoteSession>()
        Task { outcome.resolve(await attempt.result) }
        let timer = Task {
            try? await Task.sleep(until: deadline, clock: .continuous)
            outcome.fail(PhotonError(.timeout, "the TV did not answer in time", hint: "check that it is on and on this network"))
        }
        defer { timer.cancel() }
        return try await outcome.value()
    }

    private var name: String { Redaction.sanitize(device.nickname) }

    private func outage(_ error: PhotonError) -> PhotonError {
        guard policy.keepsWarm, state != .failed else { return error }
        // A TV that answers but is not the one paired, or no longer accepts the pairing, is
        // reachable: said as it is (exit 5 or 4), not as an outage.
        guard ![.pinMismatch, .untrustedCertificate, .authenticationRefused, .notPaired, .pairingRefused].contains(error.code) else { return error }
        return PhotonError(
            error.code, "\(name) is not reachable: \(error.message)",
            hint: "the command was not sent and will not be resent; photon serve keeps reconnecting in the background")
    }

    // MARK: waking

    /// Wakes the TV if it does not answer within a moment, then waits for it (at most
    /// `request.patience`). Returns whether it had to wake it. Reached only through the
    /// router (`RemoteCommand.wake`), so an expired or repeated wake sends nothing.
    func wake(_ request: WakeRequest, adapter: any TVAdapter) async throws -> Bool {
        if session != nil { return false }
        do {
            _ = try await ensureSession(deadline: ContinuousClock.now + .seconds(2))
            return false
        } catch let error as PhotonError where [.unreachable, .timeout, .connectionClosed].contains(error.code) {
            log.debug("\(name) does not answer (\(error.message)): waking it")
        }
        _ = try TVWaker.wake(device, adapter: adapter, destinations: request.destinations, ports: request.ports)
        log.debug("woke \(name); waiting up to \(Int(request.patience.seconds)) s for it")
        lastFailure = nil
        try await waitUntilUp(device, patience: request.patience)
        return true
    }

    /// Waits for a woken TV, bounded by the request's patience, not by the wake
    /// envelope's lifetime (which the router checked before the packet left).
    private nonisolated func waitUntilUp(_ device: DeviceRecord, patience: Duration) async throws {
        try await CommandDeadline.exempt {
            _ = try await TVWaker.waitUntilUp(device, patience: patience, clock: clock) { deadline in
                try await self.ensureSession(deadline: deadline)
            }
        }
    }

    // MARK: connecting

    private func startAttempt(timeout: Duration, expecting: RemoteCommand? = nil) -> Task<any RemoteSession, any Error> {
        if state != .reconnecting { state = .connecting }
        let open = self.open
        let device = self.device
        // Connecting is the session service's work, not the command's that may have
        // prompted it: detached, the attempt, the session's own tasks (keep-alive,
        // polling) and the retries after it inherit no command's deadline, so a command
        // that expired meanwhile cannot fail them.
        let task = Task.detached { try await open(device, timeout, expecting) }
        attempt = task
        Task.detached { await self.finish(task) }
        return task
    }

    private func finish(_ task: Task<any RemoteSession, any Error>) async {
        let result = await task.result
        guard attempt == task else { return }
        attempt = nil
        switch result {
        case .success(let opened):
            guard state != .closed else {
                await opened.close()
                return
            }
            adopt(opened)
        case .failure(let error):
            let photon = PhotonError.wrap(error)
            lastError = photon
            lastFailure = ContinuousClock.now
            failures += 1
            guard state != .closed else { return }
            if Self.isPermanent(photon) {
                state = .failed
                broadcast(.connection(.failed, photon))
                guard policy.keepsWarm else {
                    state = .idle
                    return
                }
                if photon.code == .pinMismatch {
                    // Another certificate at the address may be a moment's thing (the
                    // address briefly someone else's): looked at again with back-off,
                    // and nothing is ever sent to it. Commands fail at once meanwhile.
                    if failures == 1 {
                        log.notice("\(name): \(photon.message); checking again in the background (nothing is sent to that certificate)")
                    }
                    scheduleRetry()
                } else {
                    log.notice("\(name): \(photon.message); not retrying (\(photon.hint ?? "pair again"))")
                }
                return
            }
            guard case .keepWarm = policy else {
                state = .idle
                return
            }
            if failures == 1 {
                log.notice("\(name): cannot connect (\(photon.message)); retrying quietly in the background")
            } else {
                log.debug("\(name): reconnect attempt \(failures) failed: \(photon.message)")
            }
            state = .reconnecting
            scheduleRetry()
        }
    }

    private func adopt(_ opened: any RemoteSession) {
        session = opened
        state = .connected
        connectCount += 1
        if failures > 0, policy.keepsWarm { log.notice("\(name): connected again after \(failures) failed attempt(s)") }
        failures = 0
        lastError = nil
        lastFailure = nil
        retry?.cancel()
        retry = nil
        broadcast(.connection(.connected, nil))
        Task { [weak self] in
            for await event in opened.events {
                guard let self else { return }
                if case .disconnected(let reason) = event {
                    await self.lost(opened, reason: reason)
                    return
                }
                await self.record(event, from: opened)
            }
            await self?.lost(opened, reason: nil)
        }
    }

    /// Errors that another attempt would only repeat.
    static func isPermanent(_ error: PhotonError) -> Bool {
        [
            .pairingRefused, .authenticationRefused, .notPaired, .pinMismatch, .untrustedCertificate, .notFound, .storeCorrupt,
            .storePermissions,
        ].contains(error.code)
    }

    private func lost(_ dropped: any RemoteSession, reason: PhotonError?) {
        guard let current = session, current === dropped else { return }
        session = nil
        Task { await dropped.close() }
        guard state != .closed else { return }
        let error = reason ?? PhotonError(.connectionClosed, "the TV closed the connection")
        lastError = error
        lastFailure = ContinuousClock.now
        guard case .keepWarm = policy else {
            // One-shot: the remotes learn that the TV is gone; the next use reconnects.
            state = .idle
            knownEvents = []
            broadcast(.event(.disconnected(reason: reason)))
            broadcast(.connection(.idle, error))
            return
        }
        log.notice("\(name): connection lost (\(error.message)); reconnecting")
        state = .reconnecting
        broadcast(.connection(.reconnecting, error))
        scheduleRetry()
    }

    private func scheduleRetry() {
        guard case .keepWarm(let backoff) = policy else { return }
        retry?.cancel()
        let delay = backoff.delay(afterFailures: max(failures, 1))
        let clock = self.clock
        retry = Task { [weak self] in
            do { try await clock.sleep(for: delay) } catch { return }
            await self?.retryInBackground()
        }
    }

    private func retryInBackground() {
        let rechecking = state == .failed && lastError?.code == .pinMismatch
        guard session == nil, attempt == nil, state == .reconnecting || rechecking else { return }
        _ = startAttempt(timeout: connectTimeout)
    }

    /// Connects now if nobody has yet (`photon serve --preconnect`, the MQTT bridge).
    public func warm() {
        guard session == nil, attempt == nil, state == .idle else { return }
        _ = startAttempt(timeout: connectTimeout)
    }

    // MARK: state and subscribers

    private func record(_ event: TVEvent, from source: any RemoteSession) {
        guard session === source else { return }
        let key = event.stateKey
        knownEvents.removeAll { $0.stateKey == key }
        knownEvents.append(event)
        broadcast(.event(event))
    }

    private func broadcast(_ update: TVUpdate) {
        for subscriber in subscribers.values { subscriber(update) }
    }

    /// Adds a subscriber and hands it the current state at once: the connection, then
    /// every known event.
    public func subscribe(_ id: UUID, _ subscriber: @escaping Subscriber) {
        subscribers[id] = subscriber
        subscriber(.connection(state, state == .connected ? nil : lastError))
        for event in knownEvents { subscriber(.event(event)) }
    }

    /// Stops the updates to the subscriber `subscribe` returned `id` for.
    public func unsubscribe(_ id: UUID) { subscribers[id] = nil }

    /// The TV's state as it reports it after connecting: the events its capabilities
    /// promise (power, volume, app), waiting at most `settle` for them to arrive.
    public func status(settle: Duration) async throws -> [TVEvent] {
        let session = try await ensureSession(deadline: ContinuousClock.now + connectTimeout)
        // And every setting the catalog says a TV with the capability reports (`sound`).
        let settings = CommandCatalog.entries.filter(\.reportsState).compactMap { entry -> (Capability, String)? in
            guard let capability = entry.capabilities.first.flatMap(Capability.init(rawValue:)) else { return nil }
            return (capability, TVEvent.setting(name: entry.name, value: "").stateKey ?? entry.name)
        }
        let wanted = Set(
            ([(Capability.powerState, "power"), (.volumeState, "volume"), (.currentApp, "app")] + settings)
                .filter { session.capabilities.contains($0.0) }.map(\.1))
        let end = ContinuousClock.now + settle
        while ContinuousClock.now < end, !wanted.isSubset(of: Set(knownEvents.compactMap(\.stateKey))) {
            try await Task.sleep(for: .milliseconds(10))
        }
        return knownEvents
    }

    /// One of the TV's lists (apps, inputs) over the session, where its brand can give it.
    public func items(_ kind: TVListKind) async throws -> [TVListItem] {
        let session = try await ensureSession(deadline: ContinuousClock.now + connectTimeout)
        do {
            return try await kind.items(on: session)
        } catch let error as PhotonError where error.code == .unsupported {
            throw PhotonError.unsupported("\(name) cannot list its \(kind)", hint: error.hint)
        }
    }

    /// The TV's installed apps over the session, where its brand can list them.
    public func installedApps() async throws -> [TVApp] { try await items(.apps).map { TVApp(id: $0.id, name: $0.name) } }

    /// What `photon list` and `status` report of this TV.
    public func snapshot() -> TVSnapshot {
        TVSnapshot(
            device: device, state: state, capabilities: session?.capabilities, error: state == .connected ? nil : lastError,
            events: knownEvents)
    }

    /// Takes a changed record (renamed, paired again). A change of address or pairing
    /// drops the session so the next command connects with the new details.
    func update(_ record: DeviceRecord) async {
        let reconnect =
            record.host != device.host || record.port != device.port || record.pairedAt != device.pairedAt
            || record.ports != device.ports
        device = record
        guard reconnect else { return }
        if state == .failed { state = .idle }
        if let session {
            self.session = nil
            await session.close()
            state = .idle
        }
    }

    /// Closes for good.
    func close() async {
        state = .closed
        retry?.cancel()
        attempt?.cancel()
        broadcast(.connection(.closed, nil))
        subscribers = [:]
        if let session {
            self.session = nil
            await session.close()
        }
    }
}
