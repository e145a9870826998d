import Foundation
import PhotonCore

/// The sessions a process holds to its TVs: one `PooledTV` per TV in use, shared by
/// every remote, door and subscriber of that TV. The façade owns exactly one, behind its
/// one `CommandRouter`; the daemon's socket API and the MQTT bridge use the same one
/// through the façade, so there is no second pool anywhere.
public final class TVSessionPool: Sendable {
    /// What opens the sessions.
    public let factory: SessionFactory
    /// One-shot sessions (a CLI) or warm ones with back-off (the daemon).
    public let policy: SessionPolicy
    let clock: any RouterClock
    let log: ServiceLog
    private struct Entry {
        var tv: PooledTV
        var users: Int
    }
    private let table = Locked<[String: Entry]>([:])
    private let stopping = Locked(false)

    init(factory: SessionFactory, policy: SessionPolicy, clock: any RouterClock, log: ServiceLog) {
        self.factory = factory
        self.policy = policy
        self.clock = clock
        self.log = log
    }

    /// The pooled TV by device id, if one is in use (the router's delivery looks here).
    public func existing(_ deviceID: String) -> PooledTV? { table.withLock { $0[deviceID]?.tv } }

    /// The pooled TV for a stored TV (nickname, id or address), made on first use. A
    /// record that changed since (renamed, paired again) is handed to it.
    public func tv(named name: String) async throws -> PooledTV {
        try await entry(named: name, addingUser: false)
    }

    /// Like `tv(named:)`, and counts a user: under `oneShot` the session closes when the
    /// last user is released.
    func acquire(_ name: String) async throws -> PooledTV { try await entry(named: name, addingUser: true) }

    private func entry(named name: String, addingUser: Bool) async throws -> PooledTV {
        guard !stopping.withLock({ $0 }) else { throw PhotonError(.cancelled, "Photon is stopping") }
        let device = try await factory.device(named: name)
        let factory = self.factory
        let made = PooledTV(
            device: device, policy: policy, connectTimeout: factory.timeout, clock: clock, log: log,
            open: { device, timeout, expecting in
                // The stored record may have changed since: always connect with the latest.
                let current = try await factory.device(named: device.id)
                return try await factory.openSession(to: current, timeout: timeout, expecting: expecting)
            })
        let (tv, isNew) = table.withLock { table -> (PooledTV, Bool) in
            if var found = table[device.id] {
                if addingUser { found.users += 1 }
                table[device.id] = found
                return (found.tv, false)
            }
            table[device.id] = Entry(tv: made, users: addingUser ? 1 : 0)
            return (made, true)
        }
        if !isNew, await tv.device != device { await tv.update(device) }
        return tv
    }

    /// Drops a user; under `oneShot` the last one closes the TV's session.
    func release(_ tv: PooledTV) async {
        guard case .oneShot = policy else { return }
        let closing = table.withLock { table -> Bool in
            guard var found = table[tv.deviceID], found.tv === tv else { return false }
            found.users -= 1
            guard found.users <= 0 else {
                table[tv.deviceID] = found
                return false
            }
            table[tv.deviceID] = nil
            return true
        }
        if closing { await tv.close() }
    }

    /// Every TV in use, by device id.
    public var inUse: [String: PooledTV] { table.withLock { $0.mapValues(\.tv) } }

    /// Connects to every paired TV now rather than on first use.
    public func warmAll() async throws {
        for device in try await factory.devices().devices {
            try await tv(named: device.id).warm()
        }
    }

    /// Re-reads the store: TVs forgotten since are closed, changed ones updated.
    public func reload() async throws -> (closed: Int, kept: Int) {
        let devices = try await factory.devices().devices
        var closed = 0
        for (id, tv) in inUse {
            if let record = devices.first(where: { $0.id == id }) {
                await tv.update(record)
            } else {
                table.withLock { _ = $0.removeValue(forKey: id) }
                await tv.close()
                closed += 1
            }
        }
        return (closed, table.withLock { $0.count })
    }

    /// Closes every TV session; nothing is opened afterwards.
    public func shutdown() async {
        stopping.withLock { $0 = true }
        let all = table.withLock { table -> [PooledTV] in
            defer { table = [:] }
            return table.values.map(\.tv)
        }
        await withTaskGroup(of: Void.self) { group in
            for tv in all { group.addTask { await tv.close() } }
        }
    }
}
