import PhotonCore

/// A Philips TV in use: keys, apps, sources, channels, volume, power and Ambilight over the
/// Digest-authenticated API; the state kept live from `notifychange`, the long-poll the TV
/// holds open and answers with only what changed (on its own connection, so commands never
/// wait behind it). A TV without `notifychange` is polled. A TV that stops answering, or
/// answers garbage, ends the session.
final class PhilipsSession: KeySending, AppLaunching, AppListing, VolumeSetting, InputSwitching, InputListing, ChannelTuning,
    AmbilightControlling, AcknowledgesCommands, HoldsStateReads
{
    let api: PhilipsAPI
    let watcher: PhilipsAPI
    let device: DeviceRecord
    let capabilities = PhilipsAdapter.maximumCapabilities
    var catalogIDs: [String: [String]] { PhilipsAdapter.appCatalogIDs }
    /// The events and the session's one ending (`SessionEvents`).
    let feed = SessionEvents(buffer: 256)
    var events: AsyncStream<TVEvent> { feed.stream }
    private let watching = Locked<Task<Void, Never>?>(nil)
    private let appCache = Locked<[PhilipsApp]?>(nil)
    private let channelCache = Locked<[TVChannel]?>(nil)
    let clock: any RouterClock
    let notifyHold: Duration
    /// The first reads wait for the command the session was opened for: the TV answers
    /// its one command connection's requests one at a time.
    let stateReads: StateReadGate

    init(api: PhilipsAPI, watcher: PhilipsAPI, device: DeviceRecord, power: PowerState, notifyHold: Duration, context: AdapterContext) {
        self.api = api
        self.watcher = watcher
        self.device = device
        self.notifyHold = notifyHold
        clock = context.clock
        stateReads = StateReadGate(for: context)
        feed.yield(.deviceInfo(model: device.model, vendor: "Philips", version: nil))
        feed.yield(.powerState(power, reason: nil))
        feed.yield(.power(isOn: power == .on))
        let task = Task { [weak self] () -> Void in await self?.watch(power: power) }
        watching.withLock { $0 = task }
    }

    // MARK: state

    /// What the session last reported, quoted back to `notifychange` so the TV answers
    /// with what differs.
    struct Known {
        var power: JSONValue
        var volume: JSONValue = .null
        var activity: JSONValue = .null
        var channel: JSONValue = .null
    }

    private func watch(power: PowerState) async {
        var known = Known(power: .object([("powerstate", .string(power == .on ? "On" : "Standby"))]))
        var failures = 0
        var polling = false
        do {
            try await stateReads.wait()
            known.volume = try await optional("audio/volume")
            known.activity = try await optional("activities/current")
            report(volume: known.volume)
            report(activity: known.activity)
            do {
                feed.yield(.setting(name: AmbilightName.setting, value: try await ambilightState()))
            } catch let error as PhotonError where error.code == .unsupported {}
        } catch {
            if !Task.isCancelled { finish(PhotonError.wrap(error)) }
            return
        }
        while !Task.isCancelled {
            do {
                let changes: [(String, JSONValue)]
                if polling {
                    try await clock.sleep(for: .seconds(3))
                    changes = try await poll(known)
                } else {
                    changes = try await notifyChange(known)
                }
                failures = 0
                for (path, value) in changes { apply(path, value, to: &known) }
            } catch is CancellationError {
                return
            } catch let error as PhotonError where error.code == .unsupported && !polling {
                polling = true
            } catch {
                if Task.isCancelled { return }
                failures += 1
                // TVs close a lingering long-poll now and then: ask again, but not forever;
                // anything else (garbage, a refusal, a TV gone) ends the session.
                if failures >= 3 || (error as? PhotonError)?.code != .connectionClosed {
                    finish(PhotonError.wrap(error))
                    return
                }
                try? await clock.sleep(for: .seconds(1))
            }
        }
    }

    /// A read the TV may lack (`unsupported`: `.null`); any other failure throws.
    private func optional(_ path: String) async throws -> JSONValue {
        do {
            return try await api.read(path)
        } catch let error as PhotonError where error.code == .unsupported {
            return .null
        }
    }

    /// One `notifychange`: held by the TV until something differs from `known`, or its time.
    private func notifyChange(_ known: Known) async throws -> [(String, JSONValue)] {
        let notification: JSONValue = .object([
            (
                "notification",
                .object([
                    ("powerstate", known.power), ("audio/volume", known.volume), ("activities/current", known.activity),
                    ("activities/tv", known.channel),
                ])
            )
        ])
        let answer = try await watcher.write("notifychange", notification, timeout: notifyHold + .seconds(10))
        guard case .object(let pairs) = answer else { throw PhotonError(.protocolViolation, "the Philips TV's notifychange answer is not an object") }
        return pairs
    }

    /// The same state, read one call at a time (a TV without `notifychange`).
    private func poll(_ known: Known) async throws -> [(String, JSONValue)] {
        var changes: [(String, JSONValue)] = []
        let power = try await api.read("powerstate")
        if power != known.power { changes.append(("powerstate", power)) }
        for path in ["audio/volume", "activities/current"] {
            if let answer = try? await api.read(path), answer != (path == "audio/volume" ? known.volume : known.activity) {
                changes.append((path, answer))
            }
        }
        return changes
    }

    private func apply(_ path: String, _ value: JSONValue, to known: inout Known) {
        switch path {
        case "powerstate":
            guard let power = try? PhilipsReadings.power(value), value != known.power else { return }
            known.power = value
            feed.yield(.powerState(power, reason: nil))
            feed.yield(.power(isOn: power == .on))
        case "audio/volume":
            guard value != known.volume else { return }
            known.volume = value
            report(volume: value)
        case "activities/current":
            guard value != known.activity else { return }
            known.activity = value
            report(activity: value)
        case "activities/tv": known.channel = value
        default: break
        }
    }

    private func report(volume: JSONValue) {
        if let level = try? PhilipsReadings.volume(volume) { feed.yield(.volume(level)) }
    }

    private func report(activity: JSONValue) {
        guard let package = PhilipsReadings.currentPackage(activity) else { return }
        if package == "org.droidtv.playtv" {
            feed.yield(.currentApp("Watch TV (\(package))"))
        } else if let app = appCache.withLock({ $0 })?.first(where: { $0.package == package }) {
            feed.yield(.currentApp("\(app.label) (\(package))"))
        } else {
            feed.yield(.currentApp(package))
        }
    }

    func finish(_ reason: PhotonError?) { feed.end(reason) }

    func close() async {
        finish(nil)
        watching.withLock { $0 }?.cancel()
        await api.client.drop()
        await watcher.client.drop()
    }

    /// Once ended, throws why (the TV's error), or that the session is closed.
    func checkOpen() throws {
        if let reason = feed.endReason { throw reason }
        try feed.checkOpen("the Philips TV")
    }

    func acknowledges(_ command: RemoteCommand) -> Bool { true }

    // MARK: commands

    /// A press is one `input/key`; power on and off set `powerstate`. JointSpace has no
    /// key holds.
    func sendKey(_ input: KeyInput, _ action: KeyAction) async throws {
        try checkOpen()
        if case .key(let key) = input, key == .powerOn || key == .powerOff {
            try await api.write("powerstate", .object([("powerstate", .string(key == .powerOn ? "On" : "Standby"))]))
            return
        }
        let name = try PhilipsKeys.name(for: input)
        guard action == .press else {
            throw PhotonError.unsupported("Philips TVs cannot hold a key", hint: "JointSpace sends presses only")
        }
        try await api.write("input/key", .object([("key", .string(name))]))
    }

    private func applications() async throws -> [PhilipsApp] {
        if let cached = appCache.withLock({ $0 }) { return cached }
        let apps = PhilipsReadings.applications(try await api.read("applications"))
        appCache.withLock { $0 = apps }
        return apps
    }

    func installedApps() async throws -> [TVApp] {
        try checkOpen()
        return try await applications().map { TVApp(id: $0.package, name: $0.label) }
    }

    /// An app by package, id or label (as `photon apps` lists it), launched with the TV's
    /// own intent for it.
    func launch(_ app: String) async throws {
        try checkOpen()
        let apps = try await applications()
        let lower = app.lowercased()
        guard let chosen = apps.first(where: { $0.package == app || $0.id == app }) ?? apps.first(where: { $0.label.lowercased() == lower })
        else {
            throw PhotonError(
                .notFound, "the Philips TV has no app '\(Redaction.sanitize(app))'",
                hint: "its apps: " + apps.prefix(8).map(\.label).joined(separator: ", ") + (apps.count > 8 ? "… (photon apps TV)" : ""))
        }
        try await api.write("activities/launch", .object([("intent", chosen.intent)]))
    }

    /// A level on the TV's own scale (`min` to `max`, 0–60 on most).
    func setVolume(_ level: Int) async throws {
        try checkOpen()
        let current = try PhilipsReadings.volume(try await api.read("audio/volume"))
        guard (0...current.maximum).contains(level) else {
            throw PhotonError(.usage, "this Philips TV's volume goes from 0 to \(current.maximum), not \(level)")
        }
        try await api.write("audio/volume", .object([("current", .int(level)), ("muted", .bool(false))]))
    }

    func inputs() async throws -> [TVInput] {
        try checkOpen()
        return PhilipsSources.inputs
    }

    func switchInput(_ name: InputName) async throws {
        let input = try await inputs().matching(name)
        try await api.write("activities/launch", .object([("intent", PhilipsSources.intent(input.id))]))
    }

    func channels() async throws -> [TVChannel] {
        try checkOpen()
        if let cached = channelCache.withLock({ $0 }) { return cached }
        let channels = PhilipsReadings.channels(try await api.read("channeldb/tv/channelLists/all"))
        channelCache.withLock { $0 = channels }
        return channels
    }

    func tune(_ number: ChannelNumber) async throws {
        let channel = try await channels().matching(number)
        guard let ccid = Int(channel.id) else { throw PhotonError(.protocolViolation, "the Philips TV's channel has no ccid") }
        try await api.write("activities/tv", .object([("channel", .object([("ccid", .int(ccid))])), ("channelList", .object([("id", "all")]))]))
    }
}
