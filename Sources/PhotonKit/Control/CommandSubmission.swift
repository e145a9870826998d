import Foundation
import PhotonCore

/// What a door knows of a command before the router sees it: its id (what de-duplication
/// sees), when it was issued and until when it may be sent, and who sent it. Every door
/// builds one of these and hands it to `Photon.submit`, the one place a router envelope
/// is made.
public struct Submission: Sendable, Equatable {
    /// The command's id: the same id twice reaches the TV once.
    public var id: UUID
    /// When the sender issued it (a time in the future is refused).
    public var issuedAt: Date
    /// After this it is refused unsent.
    public var expiresAt: Date
    /// Who sent it, whose rules the router applies.
    public var source: CommandSource

    /// A submission with these fields, as the sender gave them.
    public init(id: UUID = UUID(), issuedAt: Date, expiresAt: Date, source: CommandSource) {
        self.id = id
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
        self.source = source
    }

    /// Issued at `now`, living `lifetime` (at most the router's longest, 10 s).
    public init(id: UUID = UUID(), now: Date, lifetime: Duration, source: CommandSource) {
        self.init(id: id, issuedAt: now, expiresAt: now.addingTimeInterval(min(lifetime.seconds, 10)), source: source)
    }

    /// The same envelope times and source under another id (the second command of a
    /// request that carries several).
    public func withID(_ id: UUID) -> Submission {
        var copy = self
        copy.id = id
        return copy
    }
}

extension Photon {
    /// Hands one command to the router in `session` (bound to `target`, a device id) as
    /// number `sequence`: the one place in Photon where a router envelope is built, so
    /// every door's command is checked by the same rules.
    public func submit(_ command: RemoteCommand, session: UUID, target: String, sequence: UInt64, _ submission: Submission) async throws
        -> CommandOutcome
    {
        try await router.submit(
            CommandEnvelope(
                id: submission.id, sessionID: session, target: target, sequence: sequence, issuedAt: submission.issuedAt,
                expiresAt: submission.expiresAt, source: submission.source, command: command))
    }

    /// One command to `tv` in a router session of its own, closed after it.
    public func submitOneShot(_ command: RemoteCommand, to tv: String, _ submission: Submission) async throws -> CommandOutcome {
        let pooled = try await pool.tv(named: tv)
        let session = await router.openSession(source: submission.source, target: pooled.deviceID)
        defer { Task { [router] in await router.closeSession(session) } }
        return try await submit(command, session: session, target: pooled.deviceID, sequence: 1, submission)
    }

    /// The one power-on rule, for every door: a TV whose brand wakes over the network and
    /// whose MAC is known is woken first (`RemoteCommand.wake`: Wake-on-LAN, then waiting
    /// for it), as a command in the request's own envelope, so an expired or repeated
    /// request sends no packet; then the brand's power-on, which the sender drops when the
    /// TV had to be woken (`KeptRouterSessions`, `DirectControl`: a woken TV is coming up).
    public func powerOnCommands(for tv: String, wake: WakeRequest) async throws -> [RemoteCommand] {
        let device = try await pool.tv(named: tv).device
        let adapter = try registry.adapter(id: device.brand)
        let wakes = adapter.descriptor.wakeMethod == .wakeOnLAN && !device.wakeMACs.isEmpty
        return (wakes ? [.wake(wake)] : []) + [.key(.key(.powerOn), .press)]
    }
}

/// The router sessions a door keeps, one per TV for its source (the MQTT bridge's), with
/// their sequence numbers: the door holds no router session logic of its own.
public actor KeptRouterSessions {
    let photon: Photon
    let source: CommandSource
    private var sessions: [String: (session: UUID, sequence: UInt64)] = [:]

    /// No session yet: each TV's is opened with its first command.
    public init(photon: Photon, source: CommandSource) {
        self.photon = photon
        self.source = source
    }

    /// Sends `commands` to `tv` in order in its kept session, all in the submission's
    /// lifetime: the first under the submission's id (what de-duplication sees), the rest
    /// under ids of their own. After a wake, a power key is not sent (the TV is coming up).
    /// Returns each sent command's outcome.
    public func submit(_ commands: [RemoteCommand], to tv: String, _ submission: Submission) async throws -> [CommandOutcome] {
        let target = try await photon.pool.tv(named: tv).deviceID
        var session: UUID
        var sequence: UInt64
        if let kept = sessions[target] {
            (session, sequence) = kept
        } else {
            (session, sequence) = (await photon.router.openSession(source: source, target: target), 0)
        }
        var outcomes: [CommandOutcome] = []
        var woke = false
        for (index, command) in commands.enumerated() where !(woke && command.isPowerPress) {
            sequence += 1
            sessions[target] = (session, sequence)
            do {
                let outcome = try await photon.submit(
                    command, session: session, target: target, sequence: sequence, index == 0 ? submission : submission.withID(UUID()))
                if outcome == .woke { woke = true }
                outcomes.append(outcome)
            } catch RouterRejection.closedSession, RouterRejection.unknownSession {
                // The router no longer knows the session: a fresh one next time.
                sessions[target] = nil
                throw PhotonError(.internal, "the command router dropped this TV's \(source.rawValue) session", hint: "send the command again")
            }
        }
        return outcomes
    }

    /// Closes the session kept for a TV (forgotten or gone), by its device id.
    public func close(deviceID: String) async {
        if let kept = sessions.removeValue(forKey: deviceID) { await photon.router.closeSession(kept.session) }
    }

    /// Closes every kept session (the door is stopping).
    public func closeAll() async {
        for (session, _) in sessions.values { await photon.router.closeSession(session) }
        sessions = [:]
    }
}
