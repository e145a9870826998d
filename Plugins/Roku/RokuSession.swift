import PhotonCore

/// A Roku in use: commands as ECP requests over one kept-alive connection, and power and
/// the foreground app polled (ECP pushes nothing). Volume is not reported by ECP.
final class RokuSession: AppListing, KeySending, TextTyping, AppLaunching, Searching, AcknowledgesCommands, HoldsStateReads {
    let client: HTTPKeepAliveClient
    let device: DeviceRecord
    let capabilities = RokuAdapter.maximumCapabilities
    var catalogIDs: [String: [String]] { RokuAdapter.appCatalogIDs }
    let events: AsyncStream<TVEvent>
    private let continuation: AsyncStream<TVEvent>.Continuation
    private let closed = Locked<PhotonError??>(nil)
    private let poller = Locked<Task<Void, Never>?>(nil)
    private let log: PhotonLog
    private let clock: any RouterClock
    /// The first poll waits for the command the session was opened for: ECP's kept-alive
    /// connection takes one request at a time.
    let stateReads: StateReadGate

    init(client: HTTPKeepAliveClient, device: DeviceRecord, first: RokuDeviceInfo, pollInterval: Duration, context: AdapterContext) {
        self.client = client
        self.device = device
        self.log = context.log
        self.clock = context.clock
        stateReads = StateReadGate(for: context)
        (events, continuation) = AsyncStream.makeStream(of: TVEvent.self, bufferingPolicy: .bufferingNewest(256))
        continuation.yield(.deviceInfo(model: first.model, vendor: first.vendor, version: nil))
        // The detail first: a status that has waited for `power` then has both.
        if let state = first.powerState { continuation.yield(.powerState(state, reason: first.powerMode)) }
        continuation.yield(.power(isOn: first.isOn))
        let task = Task { [weak self] () -> Void in await self?.poll(every: pollInterval, lastPower: first.isOn) }
        poller.withLock { $0 = task }
    }

    /// Asks for power and the active app every `interval`; reports changes; ends the
    /// session when the TV stops answering or answers garbage.
    private func poll(every interval: Duration, lastPower: Bool) async {
        var power = lastPower
        var mode: String?
        var app: String?
        var playback: PlaybackState?
        var first = true
        do { try await stateReads.wait() } catch { return }
        while !Task.isCancelled {
            do {
                if !first { try await clock.sleep(for: interval) }
                let info = try await RokuAdapter.deviceInfo(client)
                if info.powerMode != mode {
                    if !first, let state = info.powerState { continuation.yield(.powerState(state, reason: info.powerMode)) }
                    mode = info.powerMode
                }
                if info.isOn != power || first {
                    power = info.isOn
                    if !first { continuation.yield(.power(isOn: power)) }
                }
                if power {
                    let response = try await client.request("GET", "/query/active-app")
                    try Self.check(response, what: "active-app")
                    let active = try RokuApp.active(response.body)
                    let name = active?.id.map { "\(active!.name) (\($0))" } ?? active?.name ?? "home"
                    if name != app {
                        app = name
                        continuation.yield(.currentApp(name))
                    }
                    if let now = try await self.playback(of: active), now.state != playback?.state || now.channel != playback?.channel {
                        playback = now
                        continuation.yield(.playback(now))
                    }
                }
                first = false
            } catch is CancellationError {
                return
            } catch {
                if Task.isCancelled { return }
                finish(PhotonError.wrap(error))
                return
            }
        }
    }

    /// What the player does in the foreground app: the tuner's channel for live TV, the
    /// media player's state in a channel app; nil on the home screen and for other inputs,
    /// or where the set refuses the query (Limited mode refuses both).
    private func playback(of app: RokuApp?) async throws -> PlaybackState? {
        guard let id = app?.id else { return nil }
        let query: String
        if id == "tvinput.dtv" {
            query = "/query/tv-active-channel"
        } else if !id.hasPrefix("tvinput.") {
            query = "/query/media-player"
        } else {
            return nil
        }
        let response = try await client.request("GET", query)
        guard (200..<300).contains(response.status) else { return nil }
        return query.hasSuffix("channel") ? try RokuPlayback.activeChannel(response.body) : try RokuPlayback.mediaPlayer(response.body)
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
        await client.drop()
    }

    /// Throws the error a status means; 2xx passes.
    static func check(_ response: HTTPClient.Response, what: String) throws {
        switch response.status {
        case 200..<300: return
        case 401, 403: throw RokuAccess.refusal(status: response.status, what: what)
        case 400: throw PhotonError(.usage, "the Roku did not understand \(what) (HTTP 400)", hint: "see `photon keys --brand roku`")
        case 404: throw PhotonError(.notFound, "the Roku has no \(what) (HTTP 404)", hint: "check the channel id")
        default: throw PhotonError(.protocolViolation, "the Roku answered \(what) with HTTP \(response.status)")
        }
    }

    /// `GET /query/apps`: channels and, on TVs, inputs (`tvinput.hdmi1`…).
    func installedApps() async throws -> [TVApp] {
        let response = try await client.request("GET", "/query/apps")
        try Self.check(response, what: "the app list")
        return try RokuApp.list(response.body).compactMap { app in app.id.map { TVApp(id: $0, name: app.name) } }
    }

    // MARK: commands

    func checkOpen() throws {
        if let reason = closed.withLock({ $0 }) {
            throw reason ?? PhotonError(.connectionClosed, "the session to the Roku is closed")
        }
    }

    func sendKey(_ input: KeyInput, _ action: KeyAction) async throws {
        try checkOpen()
        let code = try RokuKeys.resolve(input)
        let verb = action == .press ? "keypress" : action == .holdStart ? "keydown" : "keyup"
        try await post("/\(verb)/\(code)", what: "the \(code) key")
    }

    /// Every ECP command is an HTTP request the TV answers.
    func acknowledges(_ command: RemoteCommand) -> Bool { true }

    func type(_ text: String) async throws {
        try checkOpen()
        guard !text.isEmpty, text.count <= 256 else { throw PhotonError(.usage, "give 1 to 256 characters of text") }
        let literals = RokuKeys.literals(text)
        for (typed, literal) in literals.enumerated() {
            do {
                try await post("/keypress/\(literal)", what: "text")
            } catch  where typed > 0 {
                // One request per character: say how much of the text the TV has.
                let error = PhotonError.wrap(error)
                throw PhotonError(
                    error.code, "typed \(typed) of \(literals.count) characters, then: \(error.message)",
                    hint: "the rest was not sent; the TV's field holds the first \(typed)")
            }
        }
    }

    func launch(_ app: String) async throws {
        try checkOpen()
        try await post("/launch/\(try Self.launchTarget(app))", what: "the launch of \(Redaction.sanitize(app))")
    }

    func search(_ keyword: String) async throws {
        try checkOpen()
        guard !keyword.isEmpty, keyword.utf8.count <= 512 else { throw PhotonError(.usage, "give 1 to 512 bytes to search for") }
        try await post("/search/browse?keyword=\(percentEncoded(keyword))", what: "the search")
    }

    /// `12` or `12?contentId=…&mediaType=movie`: a channel id of letters, digits, `.`, `_`
    /// and `-`, and parameters passed through percent-encoded.
    static func launchTarget(_ app: String) throws -> String {
        let parts = app.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let id = String(parts[0])
        guard !id.isEmpty, id.utf8.count <= 64,
            id.utf8.allSatisfy({ $0.isASCIIAlphanumeric || $0 == 46 || $0 == 95 || $0 == 45 })
        else {
            throw PhotonError(
                .usage, "'\(Redaction.sanitize(app))' is not a Roku channel id", hint: "e.g. 12 (Netflix), or 12?contentId=80057281&mediaType=movie")
        }
        guard parts.count == 2, !parts[1].isEmpty else { return id }
        var query: [String] = []
        for pair in parts[1].split(separator: "&") {
            let kv = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            query.append(kv.map { percentEncoded(String($0)) }.joined(separator: "="))
        }
        return id + "?" + query.joined(separator: "&")
    }

    func post(_ target: String, what: String) async throws {
        let response = try await client.request("POST", target)
        try Self.check(response, what: what)
    }
}
