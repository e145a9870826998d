import PhotonCore

/// A made-up brand, "LineTV", whose sets take one text line per key on a plain TCP port
/// (`KEY HOME`) and answer `OK` or `ERR <reason>`. Small on purpose: it shows everything
/// an adapter has to provide, and that it reaches the network only through the
/// `Connector` it is given.
public struct LineTVAdapter: TVAdapter {
    public init() {}

    public var id: String { "linetv" }
    public var displayName: String { "LineTV (example)" }
    public var serviceTypes: [String] { [] }
    public var defaultPorts: [String: UInt16] { ["control": 4998] }
    public var defaultPort: UInt16 { 4998 }
    public var capabilities: Capabilities { Capabilities(.keys) }

    static let codes: [RemoteKey: String] = [
        .home: "HOME", .back: "BACK", .up: "UP", .down: "DOWN", .left: "LEFT", .right: "RIGHT", .select: "OK",
        .volumeUp: "VOL+", .volumeDown: "VOL-", .mute: "MUTE", .power: "POWER",
    ]
    public var keyTable: [KeyMapping] { Self.codes.map { KeyMapping(key: $0.key, code: $0.value) }.sorted { $0.code < $1.code } }

    public func recognise(_ service: DiscoveredService) -> TVCandidate? { nil }

    /// LineTV sets have no way to identify themselves; a probe says nothing answered.
    public func probe(host: String, ports: [String: UInt16], context: AdapterContext) async throws -> TVCandidate? { nil }

    public func pairing(with endpoint: Endpoint, options: [String: String], context: AdapterContext) -> any PairingFlow {
        LineTVPairing(endpoint: endpoint)
    }

    public func openSession(device: DeviceRecord, secrets: DeviceSecrets, context: AdapterContext) async throws
        -> any RemoteSession
    {
        let stream = try await context.connector.openByteStream(to: device.endpoint, security: .plain, timeout: context.timeout)
        return LineTVSession(stream: stream, timeout: context.timeout)
    }
}

/// LineTV needs no secrets, but still asks the user to confirm on the TV's screen.
struct LineTVPairing: PairingFlow {
    let endpoint: Endpoint

    func run(responder: any PairingResponder) async throws -> PairedTV {
        _ = try await responder.answer(.confirmOnTV(message: "LineTV sets need no pairing; nothing to confirm."))
        let id = "linetv-" + endpoint.host.filter { $0.isNumber || $0.isLetter }
        return PairedTV(
            device: DeviceRecord(id: id, nickname: id, brand: "linetv", host: endpoint.host, port: endpoint.port, capabilities: ["keys"]),
            secrets: DeviceSecrets())
    }
}

final class LineTVSession: RemoteSession {
    let stream: any ByteStream
    let timeout: Duration
    let capabilities = Capabilities(.keys)
    let events: AsyncStream<TVEvent>
    private let continuation: AsyncStream<TVEvent>.Continuation
    private let gate = AsyncGate()

    init(stream: any ByteStream, timeout: Duration) {
        self.stream = stream
        self.timeout = timeout
        (events, continuation) = AsyncStream.makeStream(of: TVEvent.self)
    }

    func send(_ command: RemoteCommand) async throws {
        guard case .key(let input, .press) = command else {
            throw PhotonError.unsupported("LineTV only takes single key presses")
        }
        let code: String
        switch input {
        case .key(let key):
            guard let known = LineTVAdapter.codes[key] else {
                throw PhotonError.unsupported("LineTV has no '\(key.rawValue)' key")
            }
            code = known
        case .raw(let raw):
            code = raw
        }
        try await gate.withGate {
            try await stream.write(Array("KEY \(code)\n".utf8), timeout: timeout)
            var reply: [UInt8] = []
            while !reply.contains(10) {
                let chunk = try await stream.read(maxLength: 256, timeout: timeout)
                guard !chunk.isEmpty, reply.count < 256 else {
                    throw PhotonError(.connectionClosed, "the LineTV closed the connection")
                }
                reply += chunk
            }
            let line = String(decoding: reply, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            guard line == "OK" else {
                throw PhotonError(.protocolViolation, "the LineTV refused \(code): \(Redaction.sanitize(line))")
            }
        }
    }

    func close() async {
        continuation.yield(.disconnected(reason: nil))
        continuation.finish()
        await stream.close()
    }
}
