import Foundation
import PhotonCore
import PhotonKit
import PhotonMQTT

/// What `photon serve --mqtt` was given.
public struct MQTTSettings: Sendable {
    public var host: String
    public var port: UInt16
    public var tls: MQTTClient.Options.TLS?
    public var username: String?
    public var password: String?
    public var site: String
    public var prefix: String
    /// Where Wake-on-LAN packets for "power on" go (empty: every broadcast address).
    public var wakeDestinations: [String]
    /// Their UDP ports (empty: 9 and 7).
    public var wakePorts: [UInt16] = []
    /// How long a "power on" waits for a woken TV to answer.
    public var wakePatience: Duration = .seconds(30)

    public init(
        host: String, port: UInt16, tls: MQTTClient.Options.TLS? = nil, site: String, prefix: String = "homeassistant",
        wakeDestinations: [String] = []
    ) {
        self.host = host
        self.port = port
        self.tls = tls
        self.site = site
        self.prefix = prefix
        self.wakeDestinations = wakeDestinations
    }
}

/// The daemon's bridge to an MQTT broker: every paired TV as a Home Assistant device
/// (device-based discovery, retained), its state on retained topics, and commands from MQTT
/// turned into router envelopes — so dedup and expiry apply as on every other path, a
/// retained command is never executed, and a QoS 1 redelivery is dropped by its commandId.
/// Losing the broker and losing a TV are independent; nothing is queued for later: a state
/// published while the broker is away is republished on reconnect, a command is not.
public actor MQTTBridge {
    let photon: Photon
    let client: MQTTClient
    let topics: MQTTTopics
    let settings: MQTTSettings
    let log: ServiceLog
    let version: String

    /// TVs published, by device id, with the subscription feeding their state.
    var published: [String: UUID] = [:]
    /// Device ids by the form they take in topics.
    private var byTopicID: [String: String] = [:]
    /// The last state published per topic, republished after a reconnect.
    var retainedState: [String: String] = [:]
    var apps: [String: [TVApp]] = [:]
    /// Each TV's inputs, for the Input select's options, where its brand lists them.
    var inputs: [String: [TVListItem]] = [:]
    private var lastError: String?
    /// Whether this daemon holds its site (checked once, at the first connection).
    var siteClaimed = false
    /// The site's retained availability and owner, as seen while claiming it.
    var claimSeen: (online: Bool, owner: String?) = (false, nil)
    var claimRefused = false
    let claimNonce = UUID().uuidString.prefix(8).lowercased()
    private let updates: AsyncStream<(String, TVUpdate)>
    private let updateSink: AsyncStream<(String, TVUpdate)>.Continuation

    /// Called once when the bridge cannot go on (another daemon holds the site).
    let onFatal: @Sendable (PhotonError) -> Void

    init(photon: Photon, settings: MQTTSettings, log: ServiceLog, version: String, onFatal: @escaping @Sendable (PhotonError) -> Void = { _ in })
        throws
    {
        self.onFatal = onFatal
        self.photon = photon
        self.settings = settings
        self.log = log
        self.version = version
        topics = MQTTTopics(site: settings.site, prefix: settings.prefix)
        var options = MQTTClient.Options(host: settings.host, port: settings.port, clientID: "photon-\(topics.site)-\(UUID().uuidString.prefix(8))")
        options.username = settings.username
        options.password = settings.password
        options.tls = settings.tls
        options.will = (topics.bridgeAvailability, "offline", true)
        client = try MQTTClient(options)
        (updates, updateSink) = AsyncStream.makeStream(of: (String, TVUpdate).self, bufferingPolicy: .unbounded)
    }

    /// Connects (retrying in the background) and serves until the client stops.
    func run() async {
        do {
            try client.start()
        } catch {
            log.notice("MQTT: \(PhotonError.wrap(error).message)")
            return
        }
        log.notice("MQTT: connecting to \(settings.host):\(settings.port) as site \(topics.site)")
        await syncTVs()
        let updates = self.updates
        let stateTask = Task { for await (id, update) in updates { await self.tvUpdate(id, update) } }
        for await event in client.events {
            switch event {
            case .connected:
                lastError = nil
                log.notice("MQTT: connected")
                if !siteClaimed {
                    // First, who else holds this site: its retained availability and owner.
                    claimSite()
                    continue
                }
                startServing()
            case .error(let text):
                // Said once per distinct error, not on every retry.
                if lastError != text {
                    lastError = text
                    log.notice("MQTT: \(text)")
                }
            case .connectionRefused(let reason):
                log.notice("MQTT: the broker refused the connection: \(reason)")
            case .disconnected(let code):
                if code != 0 { log.notice("MQTT: lost the broker (\(code)); reconnecting") }
            case .message(let message):
                if message.topic == topics.bridgeAvailability || message.topic == topics.siteOwner || message.topic == claimTopic {
                    noteSiteMessage(message)
                    continue
                }
                dispatch(message)
            case .oversize(let topic, let bytes):
                // Dropped in the client's callback, before any copy: said to the sender
                // if the topic names one of this site's TVs.
                if let (tvPart, _) = topics.parseCommandTopic(topic), let id = byTopicID[tvPart] {
                    publishResult(
                        id, commandID: nil, .failure(PhotonError(.usage, "the command is \(bytes) bytes, over the 8 KiB limit; it was dropped")))
                }
            }
        }
        stateTask.cancel()
    }

    /// Stops cleanly: `offline` published (a clean disconnect sends no last will).
    func stop() async {
        // Only the site's holder says it is going: a daemon that was refused the site
        // must not mark the other one offline.
        if siteClaimed { client.publish(topics.bridgeAvailability, "offline", retain: true) }
        try? await Task.sleep(for: .milliseconds(100))
        client.stop()
        updateSink.finish()
        await routerSessions.closeAll()
    }

    // MARK: TVs and their state

    /// Follows the store: new TVs are published and watched; forgotten ones removed (an
    /// empty retained config and empty retained states).
    func syncTVs() async {
        // Saved macros are buttons on every TV: a change republishes every config.
        let macros = (try? MacroLibrary(paths: photon.store.paths).names()) ?? []
        if macros != macroNames {
            macroNames = macros
            await publishAll()
        }
        guard let devices = try? await photon.pairedTVs() else { return }
        let current = Set(devices.map(\.id))
        for (id, subscription) in published where !current.contains(id) {
            await photon.pool.existing(id)?.unsubscribe(subscription)
            published[id] = nil
            byTopicID[MQTTTopics.objectID(id)] = nil
            apps[id] = nil
            inputs[id] = nil
            detailedPower.remove(id)
            firstDiscoveryPending.remove(id)
            await routerSessions.close(deviceID: id)
            client.publish(topics.discovery(id), [], retain: true)
            for name in MQTTTopics.stateNames {
                let topic = topics.state(id, name)
                retainedState[topic] = nil
                client.publish(topic, [], retain: true)
            }
            log.notice("MQTT: removed \(id) from Home Assistant")
        }
        for device in devices where published[device.id] == nil {
            guard let tv = try? await photon.pool.tv(named: device.id) else { continue }
            let subscription = UUID()
            published[device.id] = subscription
            byTopicID[MQTTTopics.objectID(device.id)] = device.id
            let sink = updateSink
            let id = device.id
            // The first config waits for the app list (or a bound), so Home Assistant
            // never gets one without the Source select and then one with it: it would
            // remove the entity and add it again on every daemon start.
            firstDiscoveryPending.insert(id)
            await tv.subscribe(subscription) { update in sink.yield((id, update)) }
            await tv.warm()
            Task { [weak self] in
                try? await Task.sleep(for: MQTTBridge.firstDiscoveryWait)
                await self?.settleFirstDiscovery(id)
            }
        }
    }

    /// TVs whose first discovery config waits for their app list.
    var firstDiscoveryPending: Set<String> = []
    /// How long a TV's first config waits for the TV to connect and list its apps (an
    /// unreachable TV is published without them, and again once they are known).
    static let firstDiscoveryWait: Duration = .seconds(3)

    /// Publishes a TV's first config, once: when its app list is known or unavailable, or
    /// when the wait ends.
    func settleFirstDiscovery(_ id: String) async {
        guard firstDiscoveryPending.remove(id) != nil, published[id] != nil,
            let device = try? await photon.device(id)
        else { return }
        publishDiscovery(device)
    }

    func publishAll() async {
        guard let devices = try? await photon.pairedTVs() else { return }
        for device in devices where published[device.id] != nil && !firstDiscoveryPending.contains(device.id) {
            publishDiscovery(device)
        }
        for (topic, value) in retainedState { client.publish(topic, value, retain: true) }
    }

    func publishDiscovery(_ device: DeviceRecord) {
        let brand = try? photon.registry.adapter(id: device.brand)
        let payload = MQTTDiscovery.payload(
            device: device, brand: brand, apps: apps[device.id] ?? [], inputs: inputs[device.id], macros: macroNames, topics: topics, version: version
        )
        client.publish(topics.discovery(device.id), payload.encoded, retain: true)
    }

    /// The saved macros' names (a button each on every TV).
    var macroNames: [String] = []

    /// TVs whose brand reports a detailed power state (its reports win over on/off).
    var detailedPower: Set<String> = []

    // MARK: commands

    /// One router session per TV for its MQTT commands, kept while the TV is published
    /// (not opened and closed per command: two router round trips less each). Commands
    /// for a TV run in order, so its sequence numbers rise with them.
    private lazy var routerSessions = KeptRouterSessions(photon: photon, source: .mqtt)
    /// Commands waiting for their TV, at most this many per TV.
    private var chains = MQTTCommandChains(limit: MQTTBridge.commandsWaitingPerTV)
    static let commandsWaitingPerTV = 32
    /// Home Assistant's birth messages (`online`), coalesced: one republish at a time,
    /// and at most one more after it however many arrive meanwhile.
    private var republishing = false
    private var republishAgain = false

    private func dispatch(_ message: MQTTClient.Message) {
        if message.topic == topics.homeAssistantStatus {
            if String(decoding: message.payload, as: UTF8.self) == "online" { homeAssistantCameOnline() }
            return
        }
        guard let (tvPart, name) = topics.parseCommandTopic(message.topic) else { return }
        // A topic that names no TV of this site is dropped before it waits anywhere.
        guard let id = byTopicID[tvPart] else {
            log.debug("MQTT: \(Redaction.sanitize(message.topic, limit: 200)) names no TV of this site; ignored")
            return
        }
        if message.retain {
            // A command stored by the broker is from the past: never executed, and
            // cleared so that a bridge of brokers cannot hand it on again as live.
            log.notice("MQTT: ignored a retained command on \(Redaction.sanitize(message.topic, limit: 200)) (and cleared it)")
            client.publish(message.topic, "", retain: true)
            return
        }
        let admitted = chains.enqueue(id) {
            await self.handle(message, tv: id, name: name)
            await self.commandFinished(id)
        }
        if !admitted {
            let sent = name == "command" ? MQTTCommand.sentID(in: String(decoding: message.payload, as: UTF8.self)) : nil
            publishResult(
                id, commandID: sent,
                .failure(
                    PhotonError(
                        .unreachable, "\(MQTTBridge.commandsWaitingPerTV) commands already wait for this TV; this one was refused, not queued",
                        hint: "send fewer commands at once")))
        }
    }

    private func commandFinished(_ id: String) { chains.finished(id) }

    /// How many TVs have MQTT commands waiting (for tests and the bench).
    var tvsWithWaitingCommands: Int { chains.count }

    private func homeAssistantCameOnline() {
        guard !republishing else {
            republishAgain = true
            return
        }
        republishing = true
        Task {
            repeat {
                republishAgain = false
                // HA restarted: everything again, after a moment so HA is ready.
                try? await Task.sleep(for: .milliseconds(Int.random(in: 100...500)))
                await publishAll()
            } while republishAgain
            republishing = false
        }
    }

    private func handle(_ message: MQTTClient.Message, tv id: String, name: String) async {
        let text = String(decoding: message.payload, as: UTF8.self)
        if name == "macro" { return await runMacro(named: text, on: id, receivedAt: message.receivedAt) }
        var commandID: String?
        do {
            // Bare values get their lifetime from their arrival, not from their turn.
            let request = try MQTTCommand.parse(name: name, payload: text, apps: apps[id] ?? [], now: message.receivedAt)
            commandID = request.id.uuidString.lowercased()
            let acknowledged = try await execute(request, on: id)
            publishResult(id, commandID: commandID, .success(acknowledged))
        } catch {
            // A command refused before it was read still names the id it was sent with.
            if commandID == nil, name == "command" { commandID = MQTTCommand.sentID(in: text) }
            publishResult(id, commandID: commandID, .failure(PhotonError.wrap(error)))
        }
    }

    /// Returns whether the TV acknowledged every command of the request.
    private func execute(_ request: MQTTCommand, on id: String) async throws -> Bool {
        // Power on is the one rule every door follows (wake first where the brand wakes
        // over the network, in the message's envelope).
        let commands =
            request.wake
            ? try await photon.powerOnCommands(
                for: id, wake: WakeRequest(destinations: settings.wakeDestinations, ports: settings.wakePorts, patience: settings.wakePatience))
            : request.commands
        let submission = Submission(id: request.id, issuedAt: request.issuedAt, expiresAt: request.expiresAt, source: .mqtt)
        let outcomes = try await routerSessions.submit(commands, to: id, submission)
        return !outcomes.contains(.sent)
    }

    func publishResult(_ id: String, commandID: String?, _ outcome: Result<Bool, PhotonError>) {
        var fields: [(String, JSONValue)] = [("commandId", .optional(commandID))]
        switch outcome {
        case .success(let acknowledged): fields += [("ok", true), ("acknowledged", .bool(acknowledged))]
        case .failure(let error): fields += [("ok", false), ("error", ServiceProtocol.json(error))]
        }
        let outcomeText = (try? outcome.get()).map { $0 ? "ok, acknowledged" : "ok" } ?? "refused"
        log.debug("MQTT: \(id) command \(commandID ?? "without an id"): \(outcomeText)")
        client.publish(topics.result(id), JSONValue.object(fields).encoded, retain: false)
    }
}
