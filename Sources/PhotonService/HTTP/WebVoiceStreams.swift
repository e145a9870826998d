import Foundation
import PhotonCore
import PhotonKit
import PhotonNet
import PhotonVoice

/// `GET /api/v1/tvs/{tv}/voice`: the web remote's microphone. A WebSocket that takes one
/// spoken request as binary frames of 16-bit little-endian mono PCM (`?rate=`, 16000 by
/// default) while the button is held, then `{"end":true}`. The same pipeline as `photon
/// voice`: a TV that takes audio (Android TV) gets it live, relayed as it arrives; for the
/// others the words are recognised on this machine and sent when the recogniser is sure,
/// else shown as a guess that waits for the page's `{"send":true}`. Audio stays in memory
/// for the stream's life and is never written or logged. Bounded in length and rate
/// (`VoiceStreamBudget`): a stream over a bound is ended — that stream only.
///
/// Server messages (text, JSON): `listening` (`mode` audio|words), `heard` (what was heard,
/// `confident`, `commands`), `sent`, `cancelled`, `error` (`code`, `error`, `hint`).
final class WebVoiceStreams: Sendable {
    typealias Limits = WebVoiceLimits

    let operations: DaemonOperations
    let log: ServiceLog
    let limits: Limits
    private let open = WebSocketRegistry()
    /// One spoken request at a time per client.
    static let perClient = 1
    static let rates = 8000...48000

    init(operations: DaemonOperations, log: ServiceLog, limits: Limits) {
        self.operations = operations
        self.log = log
        self.limits = limits
    }

    func open(
        _ request: DoorRequest, tv: String, stream: any ByteStream, client: String, source: CommandSource, protocolVersion: Int
    ) async throws -> HTTPAnswer {
        guard request.head.header("Upgrade", contains: "websocket") else {
            throw HTTPRefusal(400, "bad-request", "the voice stream is a WebSocket", hint: "open it with a WebSocket upgrade")
        }
        if let spoken = request.query["protocol"], spoken != String(protocolVersion) {
            throw HTTPRefusal(409, "protocol-mismatch", "this server speaks web protocol \(protocolVersion)", hint: "reload the page")
        }
        let rate = Int(request.query["rate"] ?? "16000") ?? 0
        guard Self.rates.contains(rate) else {
            throw HTTPRefusal(400, "bad-request", "\"rate\" is the audio's sample rate, from 8000 to 48000 Hz")
        }
        var target: VoiceRequest.Target?
        if let to = request.query["to"] {
            guard let chosen = VoiceRequest.Target(rawValue: to) else { throw HTTPRefusal(400, "bad-request", "\"to\" is search or text") }
            target = chosen
        }
        guard open.count(of: client) < Self.perClient else { throw Self.busy }
        let pooled = try await operations.photon.pool.tv(named: tv)
        let device = await pooled.device
        let adapter = try operations.photon.registry.adapter(id: device.brand)
        let upgrade = HTTPServerRequest(
            head: request.head, method: request.method, target: request.target, body: [], stream: stream, leftover: request.leftover)
        let offered = (request.head["Sec-WebSocket-Protocol"] ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        let connection = try await upgrade.upgrade(
            maxMessageSize: limits.frame, subprotocol: offered.contains(PresentedToken.webSocketProtocol) ? PresentedToken.webSocketProtocol : nil)
        guard let id = open.add(connection, client: client, limit: Self.perClient) else {
            await connection.close(code: 1008, reason: "one voice stream at a time")
            return .upgraded
        }
        let talk = VoiceTalk(
            connection: connection, operations: operations, tv: pooled.deviceID, source: source,
            budget: VoiceStreamBudget(
                sampleRate: rate, maximum: limits.maximum, slack: limits.slack), limits: limits)
        // The request is over once its outcome is told: the client may start the next one
        // while this connection is still closing.
        var outcome: JSONValue
        var closing: (code: UInt16, reason: String) = (1000, "")
        do {
            if let format = adapter.descriptor.voiceFormat, target == nil {
                outcome = try await talk.relay(from: rate, to: format.sampleRate)
            } else {
                outcome = try await talk.recognise(
                    from: rate, device: device, target: target ?? .search, pooled: pooled,
                    configDirectory: operations.photon.store.paths.configDirectory)
            }
        } catch let ended as VoiceStreamEnded {
            log.debug("http: a voice stream ended: \(ended.code)")
            outcome = VoiceTalk.error(ended.code, ended.message, hint: ended.hint)
            closing = (ended.closeCode, ended.code)
        } catch {
            let refusal = (error as? RouterRejection).map(WebAPI.refusal(for:)) ?? HTTPRefusal.from(PhotonError.wrap(error))
            outcome = VoiceTalk.error(refusal.code, refusal.message, hint: refusal.hint)
            closing = (1011, refusal.code)
        }
        // The request is over once its outcome is told: the client may start the next one
        // while this connection is still closing.
        open.remove(id)
        await talk.say(outcome)
        await connection.close(code: closing.code, reason: closing.reason)
        return .upgraded
    }

    static let busy = HTTPRefusal(429, "voice-busy", "this client is already speaking to a TV", hint: "finish that request first")

    func close(ofClientsNotIn current: Set<String>) async { await open.close(ofClientsNotIn: current) }

    func closeAll() async { await open.closeAll() }
}

/// One spoken request on its WebSocket: reads the audio within the budget and carries it out.
struct VoiceTalk: Sendable {
    let connection: WebSocketConnection
    let operations: DaemonOperations
    let tv: String
    let source: CommandSource
    let budget: VoiceStreamBudget
    let limits: WebVoiceStreams.Limits

    static func error(_ code: String, _ message: String, hint: String?) -> JSONValue {
        .object([("event", .string("error")), ("code", .string(code)), ("error", .string(message)), ("hint", hint.map(JSONValue.string) ?? .null)])
    }

    func say(_ json: JSONValue) async { try? await connection.send(.text(json.encoded)) }

    /// The audio as the page sends it, until it ends, within the budget.
    func audio(_ body: (VoiceAudioReader.Input) async throws -> Void) async throws {
        var reader = VoiceAudioReader(connection: connection, budget: budget, idle: limits.idle)
        try await reader.read(body)
    }

    /// A TV that takes audio: relayed at its rate as it arrives.
    func relay(from rate: Int, to tvRate: Int) async throws -> JSONValue {
        await say(.object([("event", .string("listening")), ("mode", .string("audio")), ("rate", .int(rate))]))
        var resampler = Resampler(from: rate, to: tvRate)
        let live = LiveAudio(sampleRate: tvRate)
        var sending: Task<CommandOutcome, any Error>?
        var bytes = 0
        var cancelled = false
        do {
            try await audio { input in
                switch input {
                case .audio(let samples):
                    if sending == nil {
                        // The TV's voice session opens with the first audio.
                        sending = Task {
                            try await operations.submitOneShot(
                                .liveVoice(live), to: tv, envelope: try EnvelopeFields(.object([]), defaultLifetime: 10), source: source)
                        }
                    }
                    let pcm = PCM16.bytes(PCM16.samples(resampler.push(PCM16.floats(samples))))
                    bytes += pcm.count
                    live.append(pcm)
                case .end:
                    let rest = PCM16.bytes(PCM16.samples(resampler.finish()))
                    bytes += rest.count
                    live.append(rest)
                case .cancel:
                    cancelled = true
                }
            }
        } catch {
            // Over a bound: what the TV already has ends there.
            live.finish()
            _ = try? await sending?.value
            throw error
        }
        live.finish()
        if cancelled {
            sending?.cancel()
            return Self.cancelled
        }
        guard let sending else { throw VoiceStreamEnded.nothing }
        _ = try await sending.value
        return .object([("event", .string("sent")), ("live", .bool(true)), ("bytes", .int(bytes))])
    }

    /// Any other TV: the words are recognised here and sent when sure; a guess waits for
    /// the page's yes.
    func recognise(from rate: Int, device: DeviceRecord, target: VoiceRequest.Target, pooled: PooledTV, configDirectory: URL) async throws
        -> JSONValue
    {
        await say(.object([("event", .string("listening")), ("mode", .string("words")), ("rate", .int(rate))]))
        // The recogniser loads while the person speaks, with the TV's own app names where
        // it lists them (bounded: a TV that does not answer must not hold it up).
        let listsApps = device.capabilities.contains(Capability.appList.rawValue)
        let loading = Task { () throws -> (SpeechRecognizer, [TVApp]) in
            let installed: [TVApp] =
                listsApps
                ? ((try? await waitAtMost(.seconds(3)) { try await pooled.installedApps() }) ?? nil) ?? [] : []
            let phrases = (try? VoicePhrases.load(configDirectory: configDirectory)) ?? []
            return (try SpeechRecognizer(vocabulary: .standard(installed: installed, phrases: phrases)), installed)
        }
        var samples: [Int16] = []
        var cancelled = false
        try await audio { input in
            switch input {
            case .audio(let block): samples += block
            case .end: break
            case .cancel: cancelled = true
            }
        }
        if cancelled {
            loading.cancel()
            return Self.cancelled
        }
        guard !samples.isEmpty else { throw VoiceStreamEnded.nothing }
        let (recognizer, installed) = try await loading.value
        let canSearch = device.capabilities.contains(Capability.search.rawValue)
        let audio = samples
        let understood = try await Task.detached {
            let at16k = PCM16.samples(Resampler.resample(PCM16.floats(audio), from: rate, to: SpeechRecognizer.sampleRate))
            return try VoiceUnderstanding.understand(at16k, with: recognizer, target: target, canSearch: canSearch, installed: installed)
        }.value
        samples = []
        await say(Self.event("heard", understood.json(sent: false)))
        if !understood.isConfident {
            guard try await confirmed() else { return Self.cancelled }
        }
        _ = try await operations.submitOneShot(
            understood.spokenCommand, to: tv, envelope: try EnvelopeFields(.object([]), defaultLifetime: 10), source: source)
        return Self.event("sent", understood.json(sent: true))
    }

    static let cancelled = JSONValue.object([("event", .string("cancelled"))])

    /// Waits for the page's answer to a guess: `{"send":true}` or anything else.
    private func confirmed() async throws -> Bool {
        let deadline = ContinuousClock.now + limits.confirmation
        while ContinuousClock.now < deadline {
            let message: WebSocketMessage?
            do {
                message = try await connection.receive(timeout: deadline - ContinuousClock.now)
            } catch let error as PhotonError where error.code == .timeout {
                return false
            }
            switch message {
            case nil: return false
            case .binary?: continue  // audio still in flight after the release
            case .text(let text)?:
                return (try? JSONValue.parse(Array(text.utf8), maximumDepth: 4))?["send"]?.boolValue == true
            }
        }
        return false
    }

    static func event(_ name: String, _ json: JSONValue) -> JSONValue {
        guard case .object(let fields) = json else { return json }
        return .object([("event", .string(name))] + fields)
    }
}

/// The bounds of the web remote's microphone streams (tests shorten them).
public struct WebVoiceLimits: Sendable {
    /// Audio per request, as `photon voice` records at most.
    public var maximum: Duration = .seconds(10)
    /// How far ahead of real time a page may be (what it buffered while connecting).
    public var slack: Duration = .seconds(2)
    /// A stream with no frame for this long has ended.
    public var idle: Duration = .seconds(5)
    /// How long a guess waits for the page's yes.
    public var confirmation: Duration = .seconds(30)
    /// One binary frame at most (a 4096-sample buffer at 16 bits is 8 KiB).
    public var frame = 16 * 1024

    public init() {}
}
