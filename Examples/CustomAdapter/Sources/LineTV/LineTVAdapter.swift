import PhotonCore

/// A made-up brand, "LineTV", to show the whole seam: its sets speak one text line per
/// command on a plain TCP port. On connecting the TV says `HELLO LineTV <serial>`; the
/// client sends `KEY <code>`, `TEXT <text>` or `LAUNCH <app>`, and the TV answers `OK` or
/// `ERR <reason>`. There is no pairing and no TLS. The adapter describes itself fully and
/// reaches the network only through the `Connector` it is given.
public struct LineTVAdapter: TVAdapter {
    public init() {}

    /// Everything the host needs to know about the brand, in one value.
    /// Made once: hosts read it on every lookup (`adapter.id`).
    public var descriptor: AdapterDescriptor { Self.descriptor }

    public static let descriptor = AdapterDescriptor(
        id: "linetv", displayName: "LineTV (example)", discovery: .init(serviceTypes: ["_linetv._tcp"]),
        ports: .init(main: "control", 4998), pairing: .init(style: .none),
        capabilities: Capabilities(.keys, .text, .appLaunch),
        keyTable: Self.codes.map { KeyMapping(key: $0.key, code: $0.value) }.sorted { $0.code < $1.code },
        help: .init(
            pairing: "LineTV sets need no pairing: Photon stores the set's serial number.",
            probe: "LineTV: the HELLO line on the control port.", launch: "LineTV takes app names (news).", exampleApp: "news"))

    public static let codes: [RemoteKey: String] = [
        .home: "HOME", .back: "BACK", .up: "UP", .down: "DOWN", .left: "LEFT", .right: "RIGHT", .select: "OK",
        .volumeUp: "VOL+", .volumeDown: "VOL-", .mute: "MUTE",
    ]

    public func recognise(_ service: DiscoveredService) -> TVCandidate? {
        guard service.type == "_linetv._tcp" else { return nil }
        return TVCandidate(
            brand: id, name: Redaction.sanitize(service.name, limit: 64),
            endpoint: Endpoint(host: service.addresses.first ?? service.host, port: service.port))
    }

    public func probe(host: String, ports: [String: UInt16], context: AdapterContext) async throws -> TVCandidate? {
        let endpoint = Endpoint(host: host, port: ports["control"] ?? descriptor.ports.main)
        let lines = LineChannel(try await context.connector.openByteStream(to: endpoint, security: .plain, timeout: context.timeout))
        defer { Task { await lines.close() } }
        guard let serial = try await lines.hello(timeout: context.timeout) else { return nil }
        return TVCandidate(brand: id, name: "LineTV \(serial)", endpoint: endpoint, id: "linetv-\(serial)", ports: ["control": endpoint.port])
    }

    public func pairing(with endpoint: Endpoint, options: AdapterOptionValues, context: AdapterContext) -> any PairingFlow {
        LineTVPairing(endpoint: endpoint, context: context)
    }

    public func openSession(device: DeviceRecord, secrets: DeviceSecrets, context: AdapterContext) async throws -> any RemoteSession {
        let lines = LineChannel(try await context.connector.openByteStream(to: device.endpoint, security: .plain, timeout: context.timeout))
        do {
            // The serial stored at pairing must answer: another set at the address is refused.
            let serial = try await lines.hello(timeout: context.timeout)
            guard let serial, "linetv-\(serial)" == device.id else {
                throw PhotonError(
                    .pinMismatch, "another device answers at \(device.endpoint) (serial \(Redaction.sanitize(serial ?? "none")))",
                    hint: "pair it again if it replaced \(Redaction.sanitize(device.nickname))")
            }
        } catch {
            await lines.close()
            throw error
        }
        return LineTVSession(lines: lines, timeout: context.timeout)
    }
}

/// LineTV needs no consent or code: pairing reads the set's serial and stores it.
struct LineTVPairing: PairingFlow {
    let endpoint: Endpoint
    let context: AdapterContext

    func run(responder: any PairingResponder) async throws -> PairedTV {
        let lines = LineChannel(try await context.connector.openByteStream(to: endpoint, security: .plain, timeout: context.timeout))
        defer { Task { await lines.close() } }
        guard let serial = try await lines.hello(timeout: context.timeout) else {
            throw PhotonError(.protocolViolation, "\(endpoint) is not a LineTV", hint: "check the address and port")
        }
        let id = "linetv-\(serial)"
        return PairedTV(
            device: DeviceRecord(
                id: id, nickname: id, brand: "linetv", host: endpoint.host, port: endpoint.port, name: "LineTV \(serial)",
                capabilities: Capabilities(.keys, .text, .appLaunch).sortedNames),
            secrets: DeviceSecrets())
    }
}
