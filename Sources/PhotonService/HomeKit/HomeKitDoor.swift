import Foundation
import PhotonCore
import PhotonDiscovery
import PhotonHAP
import PhotonKit
import PhotonNet
import PhotonStore

/// How the HomeKit door listens and wakes.
public struct HomeKitDoorSettings: Sendable {
    /// The address every accessory binds (`--homekit-address`; every interface by default).
    public var address = "0.0.0.0"
    /// How a power-on wakes a TV that sleeps (`--wake-broadcast`, `--wake-port`, `--wake-wait`).
    public var wake = WakeRequest()
    /// How often the store is read again for pairings removed or reset from the CLI.
    public var storeCheck: Duration = .seconds(1)
    /// Whether accessories are announced over mDNS (through avahi-daemon).
    public var announces = true
    /// Connections one accessory holds at once, and from one address (HAP asks for at
    /// least 8); more are closed as they come, so a crowd cannot take the daemon's files.
    public var maximumConnections = 32
    public var maximumConnectionsPerPeer = 8
    /// How long a connection may take to verify as a paired controller (pairing included).
    public var verifyWithin: Duration = .seconds(120)
    public init() {}
}

/// `photon serve --homekit`: one HAP accessory server per paired TV (one TV per accessory,
/// as Control Center's remote lists one TV per accessory), each on a port that stays the
/// same across restarts, announced as `_hap._tcp` through avahi-daemon where it runs.
/// Every request goes through the daemon's router as the `homekit` source.
public final class HomeKitDoor: Sendable {
    struct Host {
        var server: HAPAccessoryServer
        var bridge: HomeKitTelevisionBridge
        var listener: TCPListener
        var accepting: Task<Void, Never>
        var subscription: UUID
        var publisher: AvahiPublisher?
        var announcedAsPaired: Bool
        var name: String
    }

    let photon: Photon
    let settings: HomeKitDoorSettings
    let log: ServiceLog
    let hosts = Locked<[String: Host]>([:])
    private let watcher = Locked<Task<Void, Never>?>(nil)
    private let saidUnannounced = Locked(false)

    public init(photon: Photon, settings: HomeKitDoorSettings, log: ServiceLog) {
        self.photon = photon
        self.settings = settings
        self.log = log
    }

    /// Each TV's device id and the port its accessory listens on.
    public var ports: [String: UInt16] { hosts.withLock { $0.mapValues(\.listener.port) } }

    /// Opens an accessory for every paired TV, then follows the store.
    public func start() async throws {
        try await sync()
        let task = Task { [weak self] in
            guard let self else { return }
            await self.followStore()
        }
        watcher.withLock { $0 = task }
    }

    /// Follows the paired TVs (at start, and at each reload of the store): a TV paired since
    /// gets its accessory, a forgotten one's accessory closes (its identity stays in the
    /// store, so pairing the TV again brings the same accessory back).
    public func sync() async throws {
        let devices = try await photon.pairedTVs()
        let current = Set(devices.map(\.id))
        let gone = hosts.withLock { hosts in
            let ids = hosts.keys.filter { !current.contains($0) }
            defer { for id in ids { hosts[id] = nil } }
            return ids.compactMap { id in hosts[id].map { (id, $0) } }
        }
        for (id, host) in gone {
            await close(id, host)
            log.notice("homekit: \(host.name) is no longer paired; its accessory is closed")
        }
        for device in devices where hosts.withLock({ $0[device.id] == nil }) { try await open(device) }
    }

    private func close(_ id: String, _ host: Host) async {
        host.listener.close()
        host.server.reset(to: host.server.identity)
        await photon.pool.existing(id)?.unsubscribe(host.subscription)
        await host.accepting.value
    }

    /// The TV's inputs and apps as InputSources, with the identifiers they had before.
    func sources(for device: DeviceRecord, known: [String: Int]) async -> (
        inputs: [HAPTelevision.Input], commands: [Int: RemoteCommand], keys: [String: Int]
    ) {
        var entries: [(key: String, name: String, kind: Int, command: RemoteCommand)] = []
        let capabilities = Set(device.capabilities)
        let tv = try? await photon.pool.tv(named: device.id)
        if capabilities.contains(Capability.inputs.rawValue) {
            var listed: [TVListItem] = []
            if capabilities.contains(Capability.inputList.rawValue), let tv {
                listed = (try? await withTimeout(.seconds(5), "the input list", operation: { try await tv.items(.inputs) })) ?? []
            }
            if listed.isEmpty {
                // No list from the TV: the standard HDMI inputs.
                for number in 1...4 { entries.append(("input:hdmi\(number)", "HDMI \(number)", 3, .input(.hdmi(number)))) }
            } else {
                for item in listed {
                    guard let input = try? InputName(parsing: item.id) else { continue }
                    entries.append(("input:\(item.id)", item.name, item.id.lowercased().hasPrefix("hdmi") ? 3 : 0, .input(input)))
                }
            }
        }
        if capabilities.contains(Capability.appList.rawValue), let tv,
            let apps = try? await withTimeout(.seconds(5), "the app list", operation: { try await tv.installedApps() })
        {
            for app in apps { entries.append(("app:\(app.id)", app.name, 10, .launch(app.id))) }
        }
        var keys = known
        var next = (known.values.max() ?? 0) + 1
        var inputs: [HAPTelevision.Input] = []
        var commands: [Int: RemoteCommand] = [:]
        for entry in entries.prefix(HAPTelevision.maximumInputs) {
            let identifier = keys[entry.key] ?? next
            if keys[entry.key] == nil {
                keys[entry.key] = identifier
                next += 1
            }
            inputs.append(HAPTelevision.Input(identifier: identifier, name: String(entry.name.prefix(64)), kind: entry.kind))
            commands[identifier] = entry.command
        }
        return (inputs, commands, keys)
    }

    private func open(_ device: DeviceRecord) async throws {
        let store = photon.store
        var record = try await store.homeKitAccessory(for: device.id)
        let (listed, commands, keys) = await sources(for: device, known: record.sources)
        var inputs = listed
        // What the Home app renamed or hid stays so.
        let names = record.names ?? [:]
        let hidden = Set(record.hidden ?? [])
        for index in inputs.indices {
            if let name = names[String(inputs[index].identifier)] { inputs[index].name = name }
            inputs[index].isHidden = hidden.contains(inputs[index].identifier)
        }
        let brand = (try? photon.registry.adapter(id: device.brand))?.descriptor.displayName ?? device.brand
        let television = HAPTelevision(
            name: String((names["tv"] ?? device.nickname).prefix(64)), manufacturer: brand, model: device.model ?? brand, serialNumber: device.id,
            inputs: inputs, hasVolumeLevel: Set(device.capabilities).contains(Capability.volumeSet.rawValue))
        // A port taken since (another program) gives way to a new one, kept from then on.
        let listener: TCPListener
        if record.port != 0, let same = try? TCPListener(host: settings.address, port: record.port) {
            listener = same
        } else {
            listener = try TCPListener(host: settings.address, port: 0)
        }
        let changedSources = keys != record.sources
        record = try await store.updateHomeKitAccessory(for: device.id) { [port = listener.port] record in
            record.port = port
            if changedSources {
                record.sources = keys
                record.identity.bumpConfiguration()
            }
        }
        let bridge = HomeKitTelevisionBridge(photon: photon, deviceID: device.id, wake: settings.wake, log: log, sources: commands)
        bridge.inputs.withLock { $0 = television.inputs }
        bridge.keys.withLock { $0 = HomeKitRemoteKeys.keyMap(remap: record.keyRemap ?? [:]) }
        let server = HAPAccessoryServer(identity: record.identity, accessory: television.accessory, delegate: bridge)
        bridge.attach(server)
        let (maximum, perPeer, verifyWithin) = (settings.maximumConnections, settings.maximumConnectionsPerPeer, settings.verifyWithin)
        let accepting = Task { [log] in
            let open = Locked<[String: Int]>([:])
            await withTaskGroup(of: Void.self) { group in
                while let stream = try? await listener.accept() {
                    let peer = stream.peerAddress?.host ?? "?"
                    let admitted = open.withLock { counts in
                        guard counts.values.reduce(0, +) < maximum, counts[peer, default: 0] < perPeer else { return false }
                        counts[peer, default: 0] += 1
                        return true
                    }
                    guard admitted else {
                        log.notice("homekit: \(device.nickname): a connection over the limit was closed")
                        group.addTask { await stream.close() }
                        continue
                    }
                    group.addTask {
                        await server.serve(stream, verifyWithin: verifyWithin) { open.withLock { $0[peer, default: 1] -= 1 } }
                    }
                }
                group.cancelAll()
            }
        }
        let subscription = UUID()
        if let tv = try? await photon.pool.tv(named: device.id) {
            await tv.subscribe(subscription) { update in
                if case .event(let event) = update { bridge.updated(event) }
            }
            await tv.warm()
        }
        let host = Host(
            server: server, bridge: bridge, listener: listener, accepting: accepting, subscription: subscription,
            publisher: announce(device.nickname, identity: record.identity, port: listener.port), announcedAsPaired: record.identity.isPaired,
            name: device.nickname)
        hosts.withLock { $0[device.id] = host }
        let pairing = record.identity.isPaired ? " (paired)" : "; pair it with `photon homekit show \(device.nickname)`"
        log.notice("homekit: \(device.nickname) is an accessory on port \(listener.port)\(pairing)")
    }

    /// Announces an accessory; where no avahi-daemon answers, says so once and serves on.
    private func announce(_ name: String, identity: HAPAccessoryIdentity, port: UInt16) -> AvahiPublisher? {
        guard settings.announces else { return nil }
        let txt = HAPSetupPayload.txtRecord(
            deviceID: identity.deviceID, model: "Photon", configurationNumber: identity.configurationNumber, paired: identity.isPaired,
            setupID: identity.setupID)
        do {
            return try AvahiPublisher(
                name: String(name.prefix(63)), type: "_hap._tcp", port: port, txt: Dictionary(uniqueKeysWithValues: txt.map { ($0.key, $0.value) }))
        } catch {
            let first = saidUnannounced.withLock { said in
                defer { said = true }
                return !said
            }
            if first {
                log.notice(
                    "homekit: accessories are not announced over mDNS (\(PhotonError.wrap(error).message)); a controller that knows the address can still connect"
                )
            }
            return nil
        }
    }

    /// Follows the store: pairings removed or an accessory reset from the CLI end their
    /// sessions at once; pairing state changes are announced again (`sf`).
    private func followStore() async {
        while !Task.isCancelled {
            do { try await Task.sleep(for: settings.storeCheck) } catch { return }
            let current = hosts.withLock { $0 }
            // The servers' own changes are read first: a copy read while one was storing a
            // pairing is stale, and adopting it would drop that pairing for a moment.
            let generations = current.mapValues(\.server.generation)
            guard let file = try? await photon.store.homeKitAccessories() else { continue }
            for (id, host) in current {
                if let record = file.accessories[id] {
                    host.server.adopt(record.identity, since: generations[id])
                    host.bridge.keys.withLock { $0 = HomeKitRemoteKeys.keyMap(remap: record.keyRemap ?? [:]) }
                }
                let identity = host.server.identity
                if identity.isPaired != host.announcedAsPaired {
                    let publisher = announce(host.name, identity: identity, port: host.listener.port)
                    hosts.withLock { hosts in
                        hosts[id]?.publisher = publisher
                        hosts[id]?.announcedAsPaired = identity.isPaired
                    }
                }
            }
        }
    }

    /// Closes every accessory.
    public func stop() async {
        watcher.withLock { $0 }?.cancel()
        let all = hosts.withLock { hosts in
            defer { hosts = [:] }
            return hosts
        }
        for (id, host) in all { await close(id, host) }
    }
}
