import Foundation
import PhotonCore
import PhotonKit

/// How a daemon-held TV connection is doing.
public enum ConnectionState: String, Sendable {
    /// Not connected yet: nobody has used this TV since the daemon started.
    case idle
    case connecting
    case connected
    /// The TV went away; the daemon is reconnecting in the background.
    case reconnecting
    /// The TV refused us (pairing revoked, certificate changed): retrying cannot help.
    case failed
    /// The TV was forgotten or the daemon is stopping.
    case closed
}

/// The wait between background reconnect attempts: quick at first (a TV restarting
/// comes back in seconds), then slower so a sleeping TV is not hammered.
public struct ReconnectBackoff: Sendable {
    public var first: Duration = .milliseconds(250)
    public var maximum: Duration = .seconds(30)
    public init() {}

    /// The delay before attempt `failures` (1-based), with ±10 % jitter so many TVs
    /// that dropped together do not reconnect in lockstep.
    public func delay(afterFailures failures: Int) -> Duration {
        let base = first * Int(1 << min(max(failures - 1, 0), 16))
        let capped = min(base, maximum)
        return capped * Double.random(in: 0.9...1.1)
    }
}

/// One TV the daemon keeps a warm session to. Commands use the open session; when the TV
/// goes away, they fail at once with a clear error (never queued, never replayed) while
/// the connection comes back in the background. State the TV reports (power, volume,
/// app) is remembered and fanned out to subscribers.
actor TVConnection {
    typealias Opener = @Sendable (DeviceRecord, Duration) async throws -> any RemoteSession
    typealias Subscriber = @Sendable (JSONValue) -> Void

    let deviceID: String
    private(set) var device: DeviceRecord
    private let open: Opener
    private let connectTimeout: Duration
    private let backoff: ReconnectBackoff
    private let log: ServiceLog

    private(set) var state = ConnectionState.idle
    private var session: (any RemoteSession)?
    private var attempt: Task<any RemoteSession, any Error>?
    private var retry: Task<Void, Never>?
    private var lastError: PhotonError?
    private var lastFailure: ContinuousClock.Instant?
    private var failures = 0
    /// The latest event of each name, the most recently changed last.
    private(set) var knownEvents: [TVEvent] = []
    private var subscribers: [UUID: Subscriber] = [:]
    /// How many sessions this connection opened (1 while the TV never dropped).
    private(set) var connectCount = 0

    init(device: DeviceRecord, connectTimeout: Duration, backoff: ReconnectBackoff, log: ServiceLog, open: @escaping Opener) {
        self.deviceID = device.id
        self.device = device
        self.open = open
        self.connectTimeout = connectTimeout
        self.backoff = backoff
        self.log = log
    }

    /// The capabilities of the open session, or nil while disconnected (the adapter then
    /// checks when the command is sent).
    var capabilities: Capabilities? { session?.capabilities }

    // MARK: commands

    /// Sends one command on the warm session, connecting first if needed, within
    /// `deadline`. A failure is reported, never retried.
    func send(_ command: RemoteCommand, deadline: ContinuousClock.Instant) async throws {
        let session = try await ensureSession(deadline: deadline)
        guard ContinuousClock.now < deadline else { throw RouterRejection.expired.error }
        do {
            try await session.send(command)
        } catch let error as PhotonError where [.connectionClosed, .unreachable, .timeout].contains(error.code) {
            lost(session, reason: error)
            throw PhotonError(
                error.code, "\(name): \(error.message)",
                hint: "the command may not have reached the TV and will not be resent; photon serve reconnects in the background")
        }
    }

    /// The open session, or a new one (one attempt shared by every waiting caller).
    func ensureSession(deadline: ContinuousClock.Instant) async throws -> any RemoteSession {
        if let session { return session }
        switch state {
        case .closed: throw PhotonError(.notFound, "\(name) is no longer served", hint: "it was forgotten, or the daemon is stopping")
        case .failed: if let lastError { throw lastError }
        default: break
        }
        if attempt == nil, let lastFailure, let lastError, ContinuousClock.now - lastFailure < .seconds(1) {
            // The TV failed a moment ago: say so now instead of making every key wait.
            throw outage(lastError)
        }
        let task = attempt ?? startAttempt(timeout: min(connectTimeout, max(deadline - ContinuousClock.now, .milliseconds(1))))
        do {
            return try await Self.value(of: task, before: deadline)
        } catch {
            throw outage(PhotonError.wrap(error))
        }
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
        if state == .failed { return error }
        return PhotonError(
            error.code, "\(name) is not reachable: \(error.message)",
            hint: "the command was not sent and will not be resent; photon serve keeps reconnecting in the background")
    }

    // MARK: connecting

    private func startAttempt(timeout: Duration) -> Task<any RemoteSession, any Error> {
        if state != .reconnecting { state = .connecting }
        let open = self.open
        let device = self.device
        let task = Task { try await open(device, timeout) }
        attempt = task
        Task { await self.finish(task) }
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
                log.notice("\(name): \(photon.message); not retrying (\(photon.hint ?? "pair again"))")
                broadcast(connection: .failed, error: photon)
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
        if failures > 0 { log.notice("\(name): connected again after \(failures) failed attempt(s)") }
        failures = 0
        lastError = nil
        lastFailure = nil
        retry?.cancel()
        retry = nil
        broadcast(connection: .connected, error: nil)
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
        [.pairingRefused, .authenticationRefused, .notPaired, .pinMismatch, .untrustedCertificate, .notFound, .storeCorrupt,
            .storePermissions].contains(error.code)
    }

    private func lost(_ dropped: any RemoteSession, reason: PhotonError?) {
        guard let current = session, current === dropped else { return }
        session = nil
        Task { await dropped.close() }
        guard state != .closed else { return }
        let error = reason ?? PhotonError(.connectionClosed, "the TV closed the connection")
        lastError = error
        lastFailure = ContinuousClock.now
        log.notice("\(name): connection lost (\(error.message)); reconnecting")
        state = .reconnecting
        broadcast(connection: .reconnecting, error: error)
        scheduleRetry()
    }

    private func scheduleRetry() {
        retry?.cancel()
        let delay = backoff.delay(afterFailures: max(failures, 1))
        retry = Task { [weak self] in
            try? await Task.sleep(for: delay)
            guard !Task.isCancelled else { return }
            await self?.retryInBackground()
        }
    }

    private func retryInBackground() {
        guard session == nil, attempt == nil, state == .reconnecting else { return }
        _ = startAttempt(timeout: connectTimeout)
    }

    /// Connects now if nobody has yet (`photon serve --preconnect`).
    func warm() {
        guard session == nil, attempt == nil, state == .idle else { return }
        _ = startAttempt(timeout: connectTimeout)
    }

    // MARK: state and subscribers

    private func record(_ event: TVEvent, from source: any RemoteSession) {
        guard session === source else { return }
        let name = ServiceProtocol.name(of: event)
        knownEvents.removeAll { ServiceProtocol.name(of: $0) == name }
        knownEvents.append(event)
        let line = ServiceProtocol.notification(event, tv: deviceID)
        for subscriber in subscribers.values { subscriber(line) }
    }

    private func broadcast(connection: ConnectionState, error: PhotonError?) {
        let line = connectionLine(connection, error: error)
        for subscriber in subscribers.values { subscriber(line) }
    }

    private func connectionLine(_ connection: ConnectionState, error: PhotonError?) -> JSONValue {
        var fields: [(String, JSONValue)] = [
            ("event", "connection"), ("tv", .string(deviceID)), ("state", .string(connection.rawValue)),
        ]
        if let error { fields.append(("error", ServiceProtocol.json(error))) }
        return .object(fields)
    }

    /// Adds a subscriber and hands it the current state at once.
    func subscribe(_ id: UUID, _ subscriber: @escaping Subscriber) {
        subscribers[id] = subscriber
        subscriber(connectionLine(state, error: state == .connected ? nil : lastError))
        for event in knownEvents { subscriber(ServiceProtocol.notification(event, tv: deviceID)) }
    }

    func unsubscribe(_ id: UUID) { subscribers[id] = nil }

    /// What `status` and `list` report.
    func snapshot() -> [(String, JSONValue)] {
        var fields: [(String, JSONValue)] = [
            ("id", .string(device.id)), ("nickname", .string(device.nickname)), ("brand", .string(device.brand)),
            ("host", .string(device.host)), ("port", .int(Int(device.port))), ("connection", .string(state.rawValue)),
        ]
        if let session { fields.append(("capabilities", .array(session.capabilities.sortedNames.map { .string($0) }))) }
        if state != .connected, let lastError { fields.append(("error", ServiceProtocol.json(lastError))) }
        for event in knownEvents { fields += ServiceProtocol.fields(event) }
        return fields
    }

    /// Takes a changed record (renamed, paired again). A change of address or pairing
    /// drops the session so the next command connects with the new details.
    func update(_ record: DeviceRecord) async {
        let reconnect = record.host != device.host || record.port != device.port || record.pairedAt != device.pairedAt
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
        broadcast(connection: .closed, error: nil)
        subscribers = [:]
        if let session {
            self.session = nil
            await session.close()
        }
    }
}
