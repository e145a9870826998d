import Foundation

/// Where time comes from for the router, the session service (reconnect back-off, hold
/// release, keep-alive): the wall clock and a way to wait on it, so every rule can be
/// tested with a clock the test moves instead of sleeping.
public protocol RouterClock: Sendable {
    var now: Date { get }
    /// Waits `duration` of this clock's time (throws `CancellationError` when cancelled).
    func sleep(for duration: Duration) async throws
}

extension RouterClock {
    public func sleep(for duration: Duration) async throws { try await Task.sleep(for: duration) }
}

/// The real clock: `Date()` and `Task.sleep`.
public struct SystemClock: RouterClock {
    public init() {}
    public var now: Date { Date() }
}

/// Who sends a command. Gesture-like sources are the least trusted; a shared MQTT broker
/// is next (anyone who may publish on it sends as `mqtt`).
public enum CommandSource: String, Sendable, Codable, CaseIterable {
    case cli, interactive
    case apiClient = "api-client"
    case gesture
    /// Commands from an MQTT broker (Home Assistant, or anyone who may publish there):
    /// holds of at most `RouterPolicy.gestureHoldLimit`, always released; raw key codes
    /// and links only where `RouterPolicy.brokerAllows` says so.
    case mqtt
    /// Buttons pressed in the web remote (`photon serve --http`): a page on a phone can
    /// vanish mid-hold, so its holds are bounded and always released like a gesture's.
    case web
    /// `photon follow`: the TV follows this computer's sleep, wake and idle. It may only
    /// switch power, the picture, art mode and the input — never keys, text or apps.
    case follow
    /// A HomeKit controller (the iPhone's remote, Siri, a Home scene or hub) through
    /// `photon serve --homekit`: power, inputs and app ids, navigation and media keys and
    /// volume — never text, raw key codes, links or holds.
    case homekit

    /// Whether a `hold-start` from this source is released by the router if its
    /// `hold-end` does not come in time.
    var holdsAreBounded: Bool { self == .gesture || self == .mqtt || self == .web }
}

/// What commands from a shared MQTT broker may do beyond keys, text, volume and app ids,
/// when a site enables it (`photon serve --mqtt-allow raw,links`).
public struct BrokerAllowances: OptionSet, Sendable, Hashable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// Brand key codes (`{"raw":"KEYCODE_TV_INPUT"}`).
    public static let rawKeys = BrokerAllowances(rawValue: 1)
    /// Launching a link (`https://…`, `intent:…`, anything with a scheme) rather than an
    /// app id.
    public static let links = BrokerAllowances(rawValue: 2)

    /// Reads `raw,links` (the option's value); nil for an unknown word.
    public init?(names: String) {
        var allowances: BrokerAllowances = []
        for word in names.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces).lowercased() }) where !word.isEmpty {
            switch word {
            case "raw": allowances.insert(.rawKeys)
            case "links": allowances.insert(.links)
            default: return nil
            }
        }
        self = allowances
    }
}

/// A command on its way to a TV, with everything the router checks.
public struct CommandEnvelope: Sendable {
    public var id: UUID
    public var sessionID: UUID
    public var target: String
    public var sequence: UInt64
    public var issuedAt: Date
    public var expiresAt: Date
    public var source: CommandSource
    public var command: RemoteCommand

    public init(
        id: UUID = UUID(), sessionID: UUID, target: String, sequence: UInt64, issuedAt: Date, expiresAt: Date,
        source: CommandSource, command: RemoteCommand
    ) {
        self.id = id
        self.sessionID = sessionID
        self.target = target
        self.sequence = sequence
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
        self.source = source
        self.command = command
    }
}

/// What delivering an admitted command did.
public enum CommandOutcome: Sendable, Equatable {
    /// Written to the TV, which does not confirm it: a cut right after the write may have
    /// lost it.
    case sent
    /// Written, and the TV confirmed it.
    case acknowledged
    /// A wake for a TV that already answered: nothing was sent.
    case alreadyAwake
    /// The TV did not answer, was woken and came up.
    case woke
}

/// The router's limits.
public struct RouterPolicy: Sendable {
    /// How far in the future an issue time may be (clock differences between processes).
    public var clockTolerance: TimeInterval = 2
    /// The longest lifetime an envelope may claim.
    public var maximumLifetime: TimeInterval = 10
    /// How many recent command ids the router remembers for de-duplication, across all
    /// sessions (one-shot sends open a session each). An id is kept until its command
    /// expires — after that a copy is refused as expired anyway — or, under a flood,
    /// until this many newer ids push it out.
    public var duplicateWindow = 65_536
    /// The longest a gesture source may hold a key: a longer `hold` is refused, and a
    /// `hold-start` without its `hold-end` is released by the router after this long.
    public var gestureHoldLimit: TimeInterval = 2
    /// What MQTT commands may do beyond the defaults (nothing more by default).
    public var brokerAllows: BrokerAllowances = []
    public init() {}
}

/// Why the router refused a command. Each becomes a `PhotonError` with its own message.
public enum RouterRejection: Error, Sendable, Equatable {
    case unknownSession
    case closedSession
    case wrongTarget(expected: String)
    case duplicate
    case outOfOrder(last: UInt64)
    case expired
    case fromTheFuture
    case lifetimeTooLong
    case gestureNotArmed
    case gestureArmingExpired
    case gestureForbidden
    case staleGeneration
    case gestureHoldTooLong(limit: TimeInterval)
    /// A broker command asked for what the site does not allow (`raw`, `links`, a hold).
    case brokerForbidden(String, allowance: String?)
    /// `photon follow` sent something other than power, the picture, art mode or the input.
    case followForbidden
    /// A HomeKit controller sent what it may not (text, a raw code, a link, a hold).
    case homekitForbidden

    public var error: PhotonError {
        switch self {
        case .unknownSession: return PhotonError(.usage, "the command names a session the router does not know", hint: "open a session first")
        case .closedSession: return PhotonError(.usage, "the command's session is closed", hint: "open a new session")
        case .wrongTarget(let expected):
            return PhotonError(.usage, "the command targets another TV than its session (bound to \(expected))", hint: "retarget the session first")
        case .duplicate: return PhotonError(.usage, "the command was already received (duplicate id); it was not sent again")
        case .outOfOrder(let last): return PhotonError(.usage, "the command's sequence number is not after \(last); it was not sent")
        case .expired: return PhotonError(.timeout, "the command expired before it could be sent; it was not sent", reason: .commandExpired)
        case .fromTheFuture: return PhotonError(.usage, "the command's issue time is in the future", hint: "check the sender's clock")
        case .lifetimeTooLong: return PhotonError(.usage, "the command claims a lifetime longer than the router allows")
        case .gestureNotArmed: return PhotonError(.usage, "gesture commands need the gesture source armed first")
        case .gestureArmingExpired: return PhotonError(.usage, "the gesture source's arming expired", hint: "arm it again")
        case .gestureForbidden:
            return PhotonError(
                .unsupported, "gesture sources may only send navigation, media and volume keys",
                hint: "power, settings, input, text, launch and raw keys need an explicit source")
        case .staleGeneration: return PhotonError(.cancelled, "the session was retargeted; the command for the old TV was dropped")
        case .gestureHoldTooLong(let limit):
            return PhotonError(.usage, "gesture sources may hold a key for at most \(limit) s", hint: "use an explicit source for longer holds")
        case .followForbidden:
            return PhotonError(
                .unsupported, "`photon follow` may only switch the TV's power, picture, art mode and input; nothing was sent",
                hint: "send other commands with `photon key`, `photon launch`…")
        case .homekitForbidden:
            return PhotonError(
                .unsupported,
                "HomeKit controllers may only switch power, inputs and apps and send navigation, media and volume keys; nothing was sent",
                hint: "send other commands with `photon key`, `photon text`…")
        case .brokerForbidden(let what, let allowance):
            return PhotonError(
                .unsupported, "commands from the MQTT broker may not \(what); nothing was sent",
                hint: allowance.map { "a site that trusts everyone who can publish on its broker allows it with `photon serve --mqtt-allow \($0)`" }
                    ?? "send it through the CLI or the daemon's socket")
        }
    }
}

/// The single path from every command source to a TV (security model: session and
/// target binding, de-duplication, sequence numbers, short lifetimes, source
/// restrictions, no automatic retry, pending work cancelled when the target changes).
public actor CommandRouter {
    /// Sends an admitted envelope to its target (its `expiresAt` bounds the wait).
    public typealias Deliver = @Sendable (_ envelope: CommandEnvelope) async throws -> CommandOutcome

    struct Session {
        var source: CommandSource
        var target: String
        var generation: UInt64 = 0
        var lastSequence: UInt64?
        var armedUntil: Date?
        var inFlight: [UUID: Task<CommandOutcome, any Error>] = [:]
    }

    private let clock: any RouterClock
    let policy: RouterPolicy
    private let deliver: Deliver
    private var sessions: [UUID: Session] = [:]
    /// Recently closed sessions, remembered (boundedly) to tell "closed" from "unknown".
    private var closedIDs: [UUID] = []
    private var closedSet: Set<UUID> = []
    /// Ids of admitted commands with their expiry, oldest first, for de-duplication
    /// across every session.
    private var recentIDs: [UUID: Date] = [:]
    private var recentOrder: [(id: UUID, expiresAt: Date)] = []
    private var recentStart = 0
    /// Keys a gesture source is holding, each with the task that releases it.
    private struct HeldKey: Hashable {
        var session: UUID
        var input: KeyInput
    }
    private var heldKeys: [HeldKey: (target: String, release: Task<Void, Never>)] = [:]

    /// Capabilities are not the router's business: the session service checks them
    /// once, with the TV's own session at hand (`RemoteCommand.perform(on:)`).
    public init(clock: any RouterClock = SystemClock(), policy: RouterPolicy = RouterPolicy(), deliver: @escaping Deliver) {
        self.clock = clock
        self.policy = policy
        self.deliver = deliver
    }

    /// Opens a controller session bound to one TV.
    public func openSession(source: CommandSource, target: String) -> UUID {
        let id = UUID()
        sessions[id] = Session(source: source, target: target)
        return id
    }

    /// Ends a session: work in flight is cancelled and later commands are refused. Its
    /// state is dropped, so a long-running daemon does not grow with every client.
    public func closeSession(_ id: UUID) {
        guard let session = sessions.removeValue(forKey: id) else { return }
        for task in session.inFlight.values { task.cancel() }
        releaseHeldKeys(of: id)
        closedIDs.append(id)
        closedSet.insert(id)
        if closedIDs.count > 1024 { closedSet.remove(closedIDs.removeFirst()) }
    }

    /// The TV a session is bound to.
    public func target(of id: UUID) -> String? { sessions[id]?.target }

    private func missing(_ id: UUID) -> RouterRejection { closedSet.contains(id) ? .closedSession : .unknownSession }

    /// Binds the session to another TV: the generation changes and work for the old TV is
    /// cancelled, never delivered to the new one.
    public func retarget(_ id: UUID, to target: String) throws {
        guard var session = sessions[id] else { throw missing(id) }
        session.generation += 1
        session.target = target
        for task in session.inFlight.values { task.cancel() }
        releaseHeldKeys(of: id)
        session.inFlight = [:]
        sessions[id] = session
    }

    public func generation(of id: UUID) -> UInt64? { sessions[id]?.generation }

    /// Arms a gesture session for `seconds`.
    public func armGesture(_ id: UUID, for seconds: TimeInterval) throws {
        guard var session = sessions[id] else { throw missing(id) }
        session.armedUntil = clock.now.addingTimeInterval(seconds)
        sessions[id] = session
    }

    /// Checks the envelope against every rule, then delivers it once. A failed delivery
    /// is reported to the caller and never retried.
    @discardableResult
    public func submit(_ envelope: CommandEnvelope) async throws -> CommandOutcome {
        let generation = try admit(envelope)
        guard sessions[envelope.sessionID]?.generation == generation else { throw RouterRejection.staleGeneration }
        let deliver = self.deliver
        // The envelope's expiry travels with the delivery, so the adapter can refuse to
        // write a command that waited (behind pacing, a slow write) past its lifetime.
        let task = Task { try await CommandDeadline.$expiresAt.withValue(envelope.expiresAt) { try await deliver(envelope) } }
        let outcome: CommandOutcome
        sessions[envelope.sessionID]?.inFlight[envelope.id] = task
        defer { sessions[envelope.sessionID]?.inFlight[envelope.id] = nil }
        do {
            outcome = try await task.value
        } catch is CancellationError {
            throw RouterRejection.staleGeneration
        }
        if envelope.source.holdsAreBounded || sessions[envelope.sessionID]?.source.holdsAreBounded == true {
            trackGestureHold(envelope)
        }
        return outcome
    }

    /// A gesture's (or a broker's) `hold-start` is released by the router if its
    /// `hold-end` does not come within `gestureHoldLimit`; a `hold-end` cancels that.
    private func trackGestureHold(_ e: CommandEnvelope) {
        guard case .key(let input, let action) = e.command, action != .press else { return }
        let key = HeldKey(session: e.sessionID, input: input)
        heldKeys.removeValue(forKey: key)?.release.cancel()
        guard action == .holdStart else { return }
        let limit = policy.gestureHoldLimit
        let clock = self.clock
        let release = Task { [weak self] in
            do { try await clock.sleep(for: .clampedSeconds(limit, maximum: 3600)) } catch { return }
            await self?.releaseHeldKey(key)
        }
        heldKeys[key] = (e.target, release)
    }

    /// Releases at once every key a session holds (it closed, or now targets another
    /// TV): the release goes to the TV that got the hold-start.
    private func releaseHeldKeys(of session: UUID) {
        for key in heldKeys.keys where key.session == session {
            guard let held = heldKeys.removeValue(forKey: key) else { continue }
            held.release.cancel()
            Task { await self.sendRelease(key, target: held.target) }
        }
    }

    /// Sends the `hold-end` a gesture source did not send. Never subject to expiry or
    /// dedup: a key must not stay held.
    private func releaseHeldKey(_ key: HeldKey) async {
        guard let held = heldKeys.removeValue(forKey: key) else { return }
        await sendRelease(key, target: held.target)
    }

    private func sendRelease(_ key: HeldKey, target: String) async {
        let now = clock.now
        let envelope = CommandEnvelope(
            sessionID: key.session, target: target, sequence: 0, issuedAt: now, expiresAt: now.addingTimeInterval(policy.maximumLifetime),
            source: .gesture, command: .key(key.input, .holdEnd))
        let deliver = self.deliver
        _ = try? await CommandDeadline.exempt { try await deliver(envelope) }
    }

    /// Whether a gesture source is holding `input` in `session` (for tests).
    public func isHolding(_ input: KeyInput, in session: UUID) -> Bool { heldKeys[HeldKey(session: session, input: input)] != nil }

    /// The synchronous checks; records the id and sequence. Returns the generation.
    private func admit(_ e: CommandEnvelope) throws -> UInt64 {
        guard var session = sessions[e.sessionID] else { throw missing(e.sessionID) }
        guard e.target == session.target else { throw RouterRejection.wrongTarget(expected: session.target) }
        let now = clock.now
        forgetExpiredIDs(now: now)
        guard recentIDs[e.id] == nil else { throw RouterRejection.duplicate }
        if let last = session.lastSequence, e.sequence <= last { throw RouterRejection.outOfOrder(last: last) }
        guard e.issuedAt <= now.addingTimeInterval(policy.clockTolerance) else { throw RouterRejection.fromTheFuture }
        guard e.expiresAt > now else { throw RouterRejection.expired }
        guard e.expiresAt.timeIntervalSince(e.issuedAt) <= policy.maximumLifetime else { throw RouterRejection.lifetimeTooLong }
        if e.source == .gesture || session.source == .gesture {
            guard let armed = session.armedUntil else { throw RouterRejection.gestureNotArmed }
            guard armed > now else { throw RouterRejection.gestureArmingExpired }
            guard Self.gestureMaySend(e.command) else { throw RouterRejection.gestureForbidden }
            if case .longPress(_, let ms) = e.command, Double(ms) > policy.gestureHoldLimit * 1000 {
                throw RouterRejection.gestureHoldTooLong(limit: policy.gestureHoldLimit)
            }
        }
        if e.source == .mqtt || session.source == .mqtt { try admitFromBroker(e.command) }
        if e.source == .follow || session.source == .follow, !Self.followMaySend(e.command) { throw RouterRejection.followForbidden }
        if e.source == .homekit || session.source == .homekit, !Self.homekitMaySend(e.command) { throw RouterRejection.homekitForbidden }
        session.lastSequence = e.sequence
        remember(e.id, until: e.expiresAt)
        sessions[e.sessionID] = session
        return session.generation
    }

    private func remember(_ id: UUID, until expiresAt: Date) {
        recentIDs[id] = expiresAt
        recentOrder.append((id, expiresAt))
        while recentIDs.count > policy.duplicateWindow, recentStart < recentOrder.count {
            recentIDs[recentOrder[recentStart].id] = nil
            recentStart += 1
        }
        compactRecent()
    }

    /// Drops ids whose commands have expired (in arrival order, which is close to
    /// expiry order since lifetimes are short and bounded).
    private func forgetExpiredIDs(now: Date) {
        while recentStart < recentOrder.count, recentOrder[recentStart].expiresAt <= now {
            let entry = recentOrder[recentStart]
            if recentIDs[entry.id] == entry.expiresAt { recentIDs[entry.id] = nil }
            recentStart += 1
        }
        compactRecent()
    }

    private func compactRecent() {
        if recentStart > 4096 && recentStart * 2 > recentOrder.count {
            recentOrder.removeFirst(recentStart)
            recentStart = 0
        }
    }

    /// How many command ids are remembered for de-duplication (for tests and the bench).
    public var rememberedCommandCount: Int { recentIDs.count }
}
