import Foundation
import PhotonCore
import PhotonKit

/// What the daemon's doors (the socket API and the HTTP API) do for a request, written
/// once: list the TVs, report one, give a list, send a one-shot command, run a macro,
/// wake a TV. Each door only parses its own framing into these calls and encodes the
/// answers; every command goes through the one router.
struct DaemonOperations: Sendable {
    let photon: Photon
    let limits: ServiceLimits

    /// Every paired TV with the daemon's view of it.
    func list() async throws -> [JSONValue] {
        let inUse = photon.pool.inUse
        var out: [JSONValue] = []
        for device in try await photon.pairedTVs().sorted(by: { $0.nickname < $1.nickname }) {
            let snapshot = await inUse[device.id]?.snapshot() ?? TVSnapshot(idle: device)
            out.append(ServiceProtocol.json(snapshot))
        }
        return out
    }

    /// One TV's state; a TV reports its state right after connecting, so this waits up to
    /// `settle` for it to arrive.
    func status(_ tv: String, settle: Duration) async throws -> JSONValue {
        let pooled = try await photon.pool.tv(named: tv)
        _ = try await pooled.status(settle: settle)
        return ServiceProtocol.json(await pooled.snapshot())
    }

    /// The brand-neutral keys the TV's brand has a code for (`volume-up`, `home`…).
    func keyNames(of tv: String) async throws -> [String] {
        let adapter = try photon.registry.adapter(id: try await photon.device(tv).brand)
        var seen = Set<String>()
        return adapter.keyTable.map(\.key.rawValue).filter { seen.insert($0).inserted }
    }

    /// One of the TV's lists over the warm session, where its brand can give it.
    func items(_ kind: TVListKind, of tv: String) async throws -> [JSONValue] {
        try await photon.pool.tv(named: tv).items(kind).prefix(2000).map(ServiceProtocol.json)
    }

    /// A command in a router session of its own, for `tv`.
    func submitOneShot(_ command: RemoteCommand, to tv: String, envelope: EnvelopeFields, source: CommandSource) async throws
        -> CommandOutcome
    {
        try await photon.submitOneShot(command, to: tv, envelope.submission(source))
    }

    /// A command in a session the caller owns (its TV unless `tv` names another, which the
    /// router then checks).
    func submit(
        _ command: RemoteCommand, in session: UUID, sequence: UInt64, tv: String?, envelope: EnvelopeFields, source: CommandSource
    ) async throws -> CommandOutcome {
        var target = await photon.router.target(of: session) ?? ""
        if let tv { target = try await photon.pool.tv(named: tv).deviceID }
        return try await photon.submit(command, session: session, target: target, sequence: sequence, envelope.submission(source))
    }

    /// A macro's steps, run here to the end even if the client leaves meanwhile; each step
    /// its own router command.
    func runMacro(_ macro: Macro, on tv: String, lifetime: Duration, broadcast: [String], source: CommandSource) async throws
        -> [JSONValue]
    {
        let wake = WakeRequest(destinations: broadcast.isEmpty ? limits.wakeDestinations : broadcast, ports: limits.wakePorts)
        let device = try await photon.device(tv)
        let catalog = (try? photon.registry.adapter(id: device.brand))?.descriptor.appCatalogIDs ?? [:]
        let results = try await DirectControl(photon: photon, source: source).runMacro(
            macro, on: tv, lifetime: lifetime, wake: wake, catalog: catalog)
        return results.map(ServiceProtocol.json)
    }

    /// Wakes a TV that does not answer, as its brand allows, then waits for it (`patience`);
    /// a TV that answers is left alone. A command like any other: through the router.
    func wake(_ tv: String, destinations: [String], ports: [UInt16], patience: Duration, envelope: EnvelopeFields, source: CommandSource)
        async throws -> Bool
    {
        let request = WakeRequest(
            destinations: destinations.isEmpty ? limits.wakeDestinations : destinations, ports: ports.isEmpty ? limits.wakePorts : ports,
            patience: patience)
        return try await submitOneShot(.wake(request), to: tv, envelope: envelope, source: source) == .woke
    }

    /// Opens a router session bound to `tv` for `source` and warms the TV's connection.
    func openSession(_ tv: String, source: CommandSource) async throws -> (session: UUID, deviceID: String) {
        let pooled = try await photon.pool.tv(named: tv)
        let session = await photon.router.openSession(source: source, target: pooled.deviceID)
        await pooled.warm()
        return (session, pooled.deviceID)
    }
}

/// A command's envelope fields as a client sends them: `commandId`, `issuedAt` and
/// `expiresAt` (Unix seconds; default now and 5 s later).
struct EnvelopeFields: Sendable {
    var id: UUID
    var issuedAt: Date
    var expiresAt: Date

    init(_ request: JSONValue, defaultLifetime: TimeInterval = 5, now: Date = Date()) throws {
        id = UUID()
        if let text = request["commandId"] {
            guard let parsed = text.stringValue.flatMap(UUID.init(uuidString:)) else {
                throw ServiceProtocol.usage("\"commandId\" must be a UUID")
            }
            id = parsed
        }
        issuedAt = request["issuedAt"]?.doubleValue.map(Date.init(timeIntervalSince1970:)) ?? now
        expiresAt = request["expiresAt"]?.doubleValue.map(Date.init(timeIntervalSince1970:)) ?? issuedAt.addingTimeInterval(defaultLifetime)
    }

    /// The submission these fields describe, from `source`.
    func submission(_ source: CommandSource) -> Submission { Submission(id: id, issuedAt: issuedAt, expiresAt: expiresAt, source: source) }
}

/// The answer to a sent command: whether the TV confirmed it (`acknowledged`; false:
/// written, but a cut right after may have lost it), and the key as the daemon understood
/// it (`VOLUME_UP` → `volume-up`).
func sentFields(_ command: RemoteCommand, _ outcome: CommandOutcome) -> [(String, JSONValue)] {
    var fields: [(String, JSONValue)] = [("acknowledged", .bool(outcome == .acknowledged))]
    switch command {
    case .key(let input, _), .longPress(let input, _): fields.append(("sent", .string(input.description)))
    default: break
    }
    return fields
}
