import PhotonCore

/// A Vizio TV in use: keys as key commands, settings changed by quoting the HASHVAL just
/// read; power, volume, the input, the app and the picture mode polled (SmartCast pushes
/// nothing). A TV that stops answering, or answers garbage, ends the session.
final class VizioSession: KeySending, AppLaunching, VolumeSetting, InputSwitching, InputListing, PictureModeSwitching,
    AcknowledgesCommands, HoldsStateReads
{
    let api: VizioAPI
    let device: DeviceRecord
    let capabilities = VizioAdapter.maximumCapabilities
    var catalogIDs: [String: [String]] { VizioAdapter.appCatalogIDs }
    let events: AsyncStream<TVEvent>
    private let continuation: AsyncStream<TVEvent>.Continuation
    private let closed = Locked<PhotonError??>(nil)
    private let poller = Locked<Task<Void, Never>?>(nil)
    private let clock: any RouterClock
    /// The first polls wait for the command the session was opened for: SmartCast takes
    /// the session's requests one at a time.
    let stateReads: StateReadGate

    init(api: VizioAPI, device: DeviceRecord, power: PowerState, pollInterval: Duration, context: AdapterContext) {
        self.api = api
        self.device = device
        clock = context.clock
        stateReads = StateReadGate(for: context)
        (events, continuation) = AsyncStream.makeStream(of: TVEvent.self, bufferingPolicy: .bufferingNewest(256))
        continuation.yield(.deviceInfo(model: device.model, vendor: "Vizio", version: nil))
        continuation.yield(.powerState(power, reason: nil))
        continuation.yield(.power(isOn: power == .on))
        let task = Task { [weak self] () -> Void in await self?.poll(every: pollInterval, power: power) }
        poller.withLock { $0 = task }
    }

    private func poll(every interval: Duration, power first: PowerState) async {
        var power = first
        var volume: VolumeState?
        var app: String?
        var picture: String?
        var reported = false
        do { try await stateReads.wait() } catch { return }
        while !Task.isCancelled {
            do {
                if reported {
                    try await clock.sleep(for: interval)
                    let now = try VizioReadings.power(try await api.read(VizioPaths.power))
                    if now != power {
                        power = now
                        continuation.yield(.powerState(now, reason: nil))
                        continuation.yield(.power(isOn: now == .on))
                    }
                }
                reported = true
                guard power == .on else { continue }
                let level = try await currentVolume()
                if level != volume {
                    volume = level
                    continuation.yield(.volume(level))
                }
                let running = VizioReadings.currentApp(try await api.read(VizioPaths.currentApp)).map(Self.appName) ?? "home"
                if running != app {
                    app = running
                    continuation.yield(.currentApp(running))
                }
                if let mode = try? await api.read(VizioPaths.pictureMode),
                    let current = VizioItem.items(mode).first.flatMap({ VizioJSON.text($0.value) }),
                    VizioReadings.isName(current), current != picture
                {
                    picture = current
                    continuation.yield(.setting(name: PictureModeName.setting, value: Self.standardPictureName(current)))
                }
            } catch is CancellationError {
                return
            } catch {
                if Task.isCancelled { return }
                finish(PhotonError.wrap(error))
                return
            }
        }
    }

    /// A catalog app's name for a running `NAME_SPACE:APP_ID` (name spaces 2 and 4 are one).
    static func appName(_ id: String) -> String {
        let same = { (a: String, b: String) -> Bool in
            a == b || (a.hasPrefix("4:") && b.hasPrefix("2:") && a.dropFirst(2) == b.dropFirst(2))
                || (a.hasPrefix("2:") && b.hasPrefix("4:") && a.dropFirst(2) == b.dropFirst(2))
        }
        guard let key = VizioAdapter.appCatalogIDs.first(where: { $0.value.contains { same($0, id) } })?.key,
            let name = AppCatalog.entry(named: key)?.name
        else { return id }
        return "\(name) (\(id))"
    }

    private func finish(_ reason: PhotonError?) {
        let first = closed.withLock { state -> Bool in
            guard state == nil else { return false }
            state = .some(reason)
            return true
        }
        guard first else { return }
        continuation.yield(.disconnected(reason: reason))
        continuation.finish()
    }

    func close() async {
        finish(nil)
        poller.withLock { $0 }?.cancel()
        await api.client.drop()
    }

    func checkOpen() throws {
        if let reason = closed.withLock({ $0 }) {
            throw reason ?? PhotonError(.connectionClosed, "the session to the Vizio TV is closed")
        }
    }

    func acknowledges(_ command: RemoteCommand) -> Bool { true }

    // MARK: commands

    /// A press is KEYPRESS; a hold is KEYDOWN then KEYUP.
    func sendKey(_ input: KeyInput, _ action: KeyAction) async throws {
        try checkOpen()
        let code = try VizioKeys.code(for: input)
        let verb: String
        switch action {
        case .press: verb = "KEYPRESS"
        case .holdStart: verb = "KEYDOWN"
        case .holdEnd: verb = "KEYUP"
        }
        try await api.write(
            VizioPaths.keys,
            .object([("KEYLIST", .array([.object([("CODESET", .int(code.codeset)), ("CODE", .int(code.code)), ("ACTION", .string(verb))])]))]))
    }

    func launch(_ app: String) async throws {
        try checkOpen()
        let parsed = try VizioApp(parsing: app)
        try await api.write(VizioPaths.launchApp, .object([("VALUE", parsed.json)]))
    }

    private func currentVolume() async throws -> VolumeState {
        let muted = (try? await api.read(VizioPaths.mute)).flatMap { VizioItem.items($0).first.flatMap { VizioJSON.text($0.value) } }
        return try VizioReadings.volume(try await api.read(VizioPaths.volume), muted: muted?.lowercased() == "on")
    }

    /// Reads the volume item for its HASHVAL, then changes it.
    func setVolume(_ level: Int) async throws {
        try checkOpen()
        guard (0...100).contains(level) else { throw PhotonError(.usage, "a volume level is 0 to 100") }
        try await modify(VizioPaths.volume, to: .int(level))
    }

    /// Reads the setting at `path` for its HASHVAL and changes it to `value`.
    private func modify(_ path: String, to value: JSONValue) async throws {
        guard let hashval = VizioItem.items(try await api.read(path)).first?.hashval else {
            throw PhotonError(.protocolViolation, "the Vizio TV's setting \(path) has no HASHVAL to change it by")
        }
        try await api.write(path, .object([("REQUEST", "MODIFY"), ("HASHVAL", .int(hashval)), ("VALUE", value)]))
    }

    func inputs() async throws -> [TVInput] {
        try checkOpen()
        let current = VizioItem.items(try await api.read(VizioPaths.currentInput)).first.flatMap { VizioJSON.text($0.value) }
        return VizioReadings.inputs(try await api.read(VizioPaths.inputs), current: current)
    }

    func switchInput(_ name: InputName) async throws {
        let input = try await inputs().matching(name)
        try await modify(VizioPaths.currentInput, to: .string(input.id))
    }

    // MARK: picture modes

    /// Vizio's picture modes and Photon's standard names for them.
    static let pictureNames: [(vizio: String, standard: String)] = [
        ("vivid", "vivid"), ("standard", "standard"), ("calibrated", "cinema"), ("game", "game"), ("sports", "sports"), ("custom", "custom"),
    ]

    static func standardPictureName(_ mode: String) -> String { pictureNames.first { $0.vizio == mode.lowercased() }?.standard ?? mode }

    func pictureModes() async throws -> [TVListItem] {
        try checkOpen()
        let item = VizioItem.items(try await api.read(VizioPaths.pictureMode)).first
        let current = item.flatMap { VizioJSON.text($0.value) }
        var modes = item?.elements ?? []
        if modes.isEmpty {
            // The choices are in the static menu on most firmware.
            let choices = try await api.read(VizioPaths.pictureModeChoices)
            modes = VizioItem.items(choices).first?.elements ?? []
        }
        return modes.map { TVListItem(id: $0, name: Self.standardPictureName($0), active: $0 == current) }
    }

    func setPictureMode(_ mode: String) async throws {
        let modes = try await pictureModes()
        guard
            let chosen = modes.first(where: { $0.name == mode.lowercased() && PictureModeName.standardNames.contains($0.name) })
                ?? modes.first(where: { $0.id.lowercased() == mode.lowercased() })
        else {
            throw PhotonError(
                .notFound, "the Vizio TV has no picture mode '\(Redaction.sanitize(mode))'",
                hint: "its modes: " + modes.map(\.id).joined(separator: ", "))
        }
        try await modify(VizioPaths.pictureMode, to: .string(chosen.id))
    }
}
