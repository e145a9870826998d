import PhotonCore

/// Varint-framed protobuf messages over a byte stream: the transport both Android TV
/// ports use. Receiving is bounded in size and time; sending writes one frame at once.
public final class FramedStream: Sendable {
    public let stream: any ByteStream
    private let decoder: Locked<VarintFrameDecoder>
    private let readGate = AsyncGate()

    /// The largest message accepted (voice chunks are 20 KiB; nothing else comes close).
    public static let defaultMaxMessageSize = 64 * 1024

    public init(_ stream: any ByteStream, maxMessageSize: Int = FramedStream.defaultMaxMessageSize) {
        self.stream = stream
        decoder = Locked(VarintFrameDecoder(maxMessageSize: maxMessageSize))
    }

    public func send(_ message: [UInt8], timeout: Duration? = .seconds(10)) async throws {
        try CommandDeadline.checkBeforeSending()
        try await stream.write(VarintFraming.frame(message), timeout: timeout)
    }

    /// The next message, or nil when the peer closed the connection.
    public func receive(timeout: Duration?) async throws -> [UInt8]? {
        let end = timeout.map { ContinuousClock.now + $0 }
        return try await readGate.withGate {
            while true {
                if let message = try decoder.withLock({ try $0.next() }) { return message }
                let remaining = end.map { $0 - ContinuousClock.now }
                if let remaining, remaining <= .zero { throw PhotonError(.timeout, "the TV did not answer in time") }
                let bytes = try await stream.read(maxLength: 32 * 1024, timeout: remaining)
                if bytes.isEmpty {
                    if decoder.withLock({ $0.bufferedCount }) > 0 {
                        throw PhotonError(.protocolViolation, "the TV closed the connection in the middle of a message")
                    }
                    return nil
                }
                decoder.withLock { $0.append(bytes) }
            }
        }
    }

    public func close() async { await stream.close() }
}

/// Reads the TV's identity from its certificate subject, as real TVs write it:
/// `CN=atvremote/<product>/<device>/<model>/<MAC>` (or a Nexus Player style
/// `dnQualifier=fugu/fugu/Nexus Player` with `CN=atvremote/<MAC>`).
public enum AndroidTVCertificateSubject {
    public static func parse(commonName: String?, subject: String) -> (name: String?, mac: String?) {
        guard let cn = commonName else { return (nil, nil) }
        let parts = cn.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        let mac = parts.last.flatMap(normalizedMAC)
        var name: String?
        if parts.count >= 3 { name = parts[parts.count - 2] }
        if name == nil, let range = subject.range(of: "dnQualifier=") {
            let rest = subject[range.upperBound...].prefix { $0 != "," }
            name = rest.split(separator: "/").last.map(String.init)
        }
        return (name.map { Redaction.sanitize($0, limit: 64) }, mac)
    }

    /// `AA:BB:CC:DD:EE:FF` from any common spelling (ASCII hex only), or nil.
    public static func normalizedMAC(_ text: String) -> String? { MACAddress.normalized(text) }
}
