import Foundation
import PhotonCore
import PhotonKit
import PhotonStore

/// The daemon's shared state: one `TVConnection` per TV that clients use, and the one
/// `CommandRouter` every command passes through on its way to them.
actor ServiceHub {
    let factory: SessionFactory
    let router: CommandRouter
    private let table: ConnectionTable
    private let backoff: ReconnectBackoff
    private let log: ServiceLog
    private var stopping = false

    init(factory: SessionFactory, clock: any RouterClock, backoff: ReconnectBackoff, log: ServiceLog) {
        let table = ConnectionTable()
        self.table = table
        self.factory = factory
        self.backoff = backoff
        self.log = log
        self.router = CommandRouter(
            clock: clock, capabilities: { target in await table[target]?.capabilities },
            deliver: { envelope in
                guard let connection = table[envelope.target] else {
                    throw PhotonError(.notFound, "the TV \(envelope.target) is no longer served", hint: "open a new session")
                }
                // The envelope's expiry bounds the wait for a connection, too.
                let remaining = envelope.expiresAt.timeIntervalSince(clock.now)
                let deadline = ContinuousClock.now + .clampedSeconds(remaining, maximum: 3600)
                try await connection.send(envelope.command, deadline: deadline)
            })
    }

    /// The connection for a stored TV (by nickname, id or address), made on first use.
    func connection(for name: String) async throws -> TVConnection {
        guard !stopping else { throw PhotonError(.cancelled, "the daemon is stopping") }
        let device = try await factory.device(named: name)
        if let existing = table[device.id] {
            if await existing.device != device { await existing.update(device) }
            return existing
        }
        let factory = self.factory
        let connection = TVConnection(
            device: device, connectTimeout: factory.timeout, backoff: backoff, log: log,
            open: { device, timeout in
                // The stored record may have changed since: always connect with the latest.
                let current = try await factory.device(named: device.id)
                return try await factory.openSession(to: current, timeout: timeout)
            })
        table[device.id] = connection
        return connection
    }

    /// Every paired TV with the daemon's view of it.
    func list() async throws -> [JSONValue] {
        var out: [JSONValue] = []
        for device in try await factory.devices().devices.sorted(by: { $0.nickname < $1.nickname }) {
            if let connection = table[device.id] {
                out.append(.object(await connection.snapshot()))
            } else {
                out.append(
                    .object([
                        ("id", .string(device.id)), ("nickname", .string(device.nickname)), ("brand", .string(device.brand)),
                        ("host", .string(device.host)), ("port", .int(Int(device.port))),
                        ("connection", .string(ConnectionState.idle.rawValue)),
                    ]))
            }
        }
        return out
    }

    /// Connects to every paired TV now rather than on first use.
    func warmAll() async throws {
        for device in try await factory.devices().devices {
            try await connection(for: device.id).warm()
        }
    }

    /// Re-reads the store: TVs forgotten since are closed, changed ones updated.
    func reload() async throws -> (closed: Int, kept: Int) {
        let devices = try await factory.devices().devices
        var closed = 0
        for (id, connection) in table.all {
            if let record = devices.first(where: { $0.id == id }) {
                await connection.update(record)
            } else {
                table[id] = nil
                await connection.close()
                closed += 1
            }
        }
        for hook in reloadHooks { await hook() }
        return (closed, table.all.count)
    }

    private var reloadHooks: [@Sendable () async -> Void] = []

    /// Runs `hook` after every reload (the MQTT bridge follows forgotten and new TVs).
    func onReload(_ hook: @escaping @Sendable () async -> Void) { reloadHooks.append(hook) }

    /// Closes every TV session.
    func shutdown() async {
        stopping = true
        await withTaskGroup(of: Void.self) { group in
            for (_, connection) in table.all { group.addTask { await connection.close() } }
        }
        table.removeAll()
    }
}

/// The TV connections by device id, readable from the router's closures without a hop
/// through the hub actor.
final class ConnectionTable: Sendable {
    private let connections = Locked<[String: TVConnection]>([:])

    subscript(id: String) -> TVConnection? {
        get { connections.withLock { $0[id] } }
        set { connections.withLock { $0[id] = newValue } }
    }

    var all: [(String, TVConnection)] { connections.withLock { $0.map { ($0.key, $0.value) } } }
    func removeAll() { connections.withLock { $0 = [:] } }
}
