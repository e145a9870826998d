import Foundation
import PhotonCore

/// A Sony Bravia in use: keys as IRCC codes from the TV's own table, everything else as
/// JSON-RPC calls the TV answers; power, volume and the sound output polled (the API
/// pushes nothing). A TV that stops answering, or answers garbage, ends the session.
final class SonySession: KeySending, TextTyping, AppLaunching, AppListing, VolumeSetting, InputSwitching, InputListing,
    SoundOutputSwitching, AcknowledgesCommands, HoldsStateReads
{
    let api: SonyAPI
    let device: DeviceRecord
    let capabilities = SonyAdapter.maximumCapabilities
    var catalogIDs: [String: [String]] { SonyAdapter.appCatalogIDs }
    let events: AsyncStream<TVEvent>
    /// The TV's key names and their IRCC codes.
    let keys: [String: String]
    private let continuation: AsyncStream<TVEvent>.Continuation
    private let closed = Locked<PhotonError??>(nil)
    private let poller = Locked<Task<Void, Never>?>(nil)
    private let clock: any RouterClock
    /// The first poll waits for the command the session was opened for: the TV's
    /// kept-alive connection takes one request at a time.
    let stateReads: StateReadGate
    /// When an IRCC code was last sent: after about 13 minutes without one, Bravias ignore
    /// the next code, so a code after 10 minutes' quiet is preceded by an empty one.
    private let lastIRCC = Locked<Date?>(nil)
    static let irccNap: TimeInterval = 600

    init(
        api: SonyAPI, device: DeviceRecord, info: SonySystemInformation, keys: [String: String], power: PowerState?, pollInterval: Duration,
        context: AdapterContext
    ) {
        self.api = api
        self.device = device
        self.keys = keys
        clock = context.clock
        stateReads = StateReadGate(for: context)
        (events, continuation) = AsyncStream.makeStream(of: TVEvent.self, bufferingPolicy: .bufferingNewest(256))
        continuation.yield(.deviceInfo(model: info.model, vendor: "Sony", version: info.generation))
        if let power {
            continuation.yield(.powerState(power, reason: power == .on ? "active" : "standby"))
            continuation.yield(.power(isOn: power == .on))
        }
        let task = Task { [weak self] () -> Void in await self?.poll(every: pollInterval, power: power) }
        poller.withLock { $0 = task }
    }

    /// Asks for power, and while on for volume and the sound output, every `interval`;
    /// reports changes. An error ends the session, with its reason. Without `first` (a
    /// session opened for a command) power is the first thing it asks.
    private func poll(every interval: Duration, power first: PowerState?) async {
        var power = first
        var volume: VolumeState?
        var sound: String?
        var picture: String?
        var reported = false
        do { try await stateReads.wait() } catch { return }
        while !Task.isCancelled {
            do {
                if reported { try await clock.sleep(for: interval) }
                if reported || power == nil {
                    let now = try SonyReadings.power(try await api.result("system", "getPowerStatus"))
                    if now != power {
                        power = now
                        continuation.yield(.powerState(now, reason: now == .on ? "active" : "standby"))
                        continuation.yield(.power(isOn: now == .on))
                    }
                }
                reported = true
                guard power == .on else { continue }
                let level = try SonyReadings.volume(try await api.result("audio", "getVolumeInformation"))
                if level != volume {
                    volume = level
                    continuation.yield(.volume(level))
                }
                // A TV without the call (older models: error 12, or 404) reports no output.
                if case .result(let result) = try await api.call(
                    "audio", "getSoundSettings", [.object([("target", "outputTerminal")])], version: "1.1"),
                    let current = try SonyReadings.soundOutputs(result).current, current != sound
                {
                    sound = current
                    continuation.yield(.setting(name: SoundOutputName.setting, value: SonyReadings.standardSoundName(current)))
                }
                if case .result(let result) = try await api.call("video", "getPictureQualitySettings", [.object([("target", "pictureMode")])]),
                    let current = try SonyReadings.pictureModes(result).current, current != picture
                {
                    picture = current
                    continuation.yield(.setting(name: PictureModeName.setting, value: SonyReadings.standardPictureName(current)))
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
            throw reason ?? PhotonError(.connectionClosed, "the session to the Sony TV is closed")
        }
    }

    /// Every command is an HTTP request the TV answers.
    func acknowledges(_ command: RemoteCommand) -> Bool { true }

    // MARK: commands

    /// Power on and off are the API's own calls (no toggle, so an off TV stays off); every
    /// other key is its IRCC code from the TV's table.
    func sendKey(_ input: KeyInput, _ action: KeyAction) async throws {
        try checkOpen()
        guard action == .press else {
            throw PhotonError.unsupported("Sony's IRCC has key presses only, no holds", hint: "send the key again instead of holding it")
        }
        if case .key(let key) = input, key == .powerOn || key == .powerOff {
            _ = try await api.result("system", "setPowerStatus", [.object([("status", .bool(key == .powerOn))])])
            return
        }
        let name = try SonyKeys.name(for: input)
        guard let code = keys[name] ?? keys.first(where: { $0.key.lowercased() == name.lowercased() })?.value else {
            throw PhotonError.unsupported(
                "this Sony TV has no '\(Redaction.sanitize(name))' key; nothing was sent",
                hint: "its keys include " + keys.keys.sorted().prefix(12).joined(separator: ", "))
        }
        let now = clock.now
        if let last = lastIRCC.withLock({ $0 }), now.timeIntervalSince(last) < Self.irccNap {
        } else {
            try await api.sendIRCC("")
        }
        try await api.sendIRCC(code)
        lastIRCC.withLock { $0 = now }
    }

    func type(_ text: String) async throws {
        try checkOpen()
        guard !text.isEmpty, text.utf8.count <= 1024 else { throw PhotonError(.usage, "give 1 to 1024 bytes of text") }
        // Answered with error 7 when no text field has the focus.
        _ = try await api.result("appControl", "setTextForm", [.string(text)])
    }

    /// An app's uri as given, or the uri of the app the TV lists under that title.
    func launch(_ app: String) async throws {
        try checkOpen()
        let uri: String
        if app.contains(":") || app.hasPrefix("com.") {
            guard SonyReadings.isPlayableURI(app) else { throw PhotonError(.usage, "'\(Redaction.sanitize(app))' is not a Sony app uri") }
            uri = app
        } else {
            let apps = try await installedApps()
            guard let found = apps.first(where: { $0.name.lowercased() == app.lowercased() }) else {
                throw PhotonError(
                    .notFound, "the Sony TV has no app called '\(Redaction.sanitize(app))'; nothing was sent",
                    hint: "`photon apps TV` lists them: " + apps.prefix(8).map(\.name).joined(separator: ", "))
            }
            uri = found.id
        }
        _ = try await api.result("appControl", "setActiveApp", [.object([("uri", .string(uri))])])
    }

    func installedApps() async throws -> [TVApp] {
        try checkOpen()
        return try SonyReadings.apps(try await api.result("appControl", "getApplicationList"))
    }

    /// The API takes the level as a string (`"25"`), not a number.
    func setVolume(_ level: Int) async throws {
        try checkOpen()
        guard (0...100).contains(level) else { throw PhotonError(.usage, "a volume level is 0 to 100") }
        _ = try await api.result("audio", "setAudioVolume", [.object([("target", "speaker"), ("volume", .string(String(level)))])])
    }

    func inputs() async throws -> [TVInput] {
        try checkOpen()
        return try SonyReadings.inputs(try await api.result("avContent", "getCurrentExternalInputsStatus"))
    }

    /// An external input by its uri; the tuner by the TV's first broadcast source.
    func switchInput(_ name: InputName) async throws {
        try checkOpen()
        let uri: String
        if name == .tuner {
            let sources = try await api.result("avContent", "getSourceList", [.object([("scheme", "tv")])])
            guard let source = sources.first?.arrayValue?.compactMap({ $0["source"]?.stringValue }).first(where: SonyReadings.isPlayableURI)
            else { throw PhotonError.unsupported("this Sony TV lists no broadcast source", hint: "it may have no tuner") }
            uri = source
        } else {
            uri = try await inputs().matching(name).id
        }
        _ = try await api.result("avContent", "setPlayContent", [.object([("uri", .string(uri))])])
    }

    func soundOutputs() async throws -> [TVListItem] {
        try checkOpen()
        let (current, candidates) = try SonyReadings.soundOutputs(
            try await api.result("audio", "getSoundSettings", [.object([("target", "outputTerminal")])], version: "1.1"))
        return candidates.map { TVListItem(id: $0, name: SonyReadings.standardSoundName($0), active: $0 == current) }
    }

    func setSoundOutput(_ output: String) async throws {
        try checkOpen()
        let value = SonyReadings.soundValue(for: output)
        guard SonyReadings.isSettingValue(value) else { throw PhotonError(.usage, "'\(Redaction.sanitize(output))' is not a sound output") }
        _ = try await api.result(
            "audio", "setSoundSettings", [.object([("settings", .array([.object([("value", .string(value)), ("target", "outputTerminal")])]))])],
            version: "1.1")
    }
}
