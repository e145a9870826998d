import Foundation
import PhotonCore
import PhotonKit
import PhotonNet

/// Steps 3–9 of `photon doctor` for one TV or address, each through the adapter protocol:
/// nothing here names a brand.
struct DoctorChecks {
    let context: CLIContext
    let host: String
    let device: DeviceRecord?
    let adapters: [any TVAdapter]

    /// Whether the address resolved and something listens: later steps need both.
    private var resolved = false
    private var openPorts: [String: [String: UInt16]] = [:]

    /// The port the user typed with the address, if any.
    var typedPort: UInt16?

    init(context: CLIContext, host: String, device: DeviceRecord?, adapters: [any TVAdapter], typedPort: UInt16? = nil) {
        self.typedPort = typedPort
        self.context = context
        self.host = host
        self.device = device
        if let device, let own = adapters.first(where: { $0.id == device.brand }) {
            self.adapters = [own]
        } else {
            self.adapters = adapters
        }
    }

    mutating func run() async -> [DoctorStep] {
        var steps = [await addressStep()]
        guard resolved else {
            return steps + (4...9).map { DoctorStep.skip($0, Self.titles[$0]!, "needs an address that resolves") }
        }
        steps.append(await mdnsStep())
        steps.append(await portsStep())
        if openPorts.isEmpty {
            steps += (6...8).map { DoctorStep.skip($0, Self.titles[$0]!, "nothing listens on the TV's ports") }
        } else {
            steps.append(await tlsStep())
            steps.append(await greetingStep())
            steps.append(await pairingStep())
        }
        steps.append(wakeStep())
        return steps
    }

    static let titles: [Int: String] = [
        3: "address", 4: "mDNS", 5: "ports", 6: "TLS certificate", 7: "protocol greeting", 8: "pairing", 9: "Wake-on-LAN",
    ]

    private var timeout: Duration { min(context.timeout, .seconds(3)) }

    // MARK: 3

    private mutating func addressStep() async -> DoctorStep {
        let title = Self.titles[3]!
        let addresses: [SocketAddress]
        do {
            addresses = try await SocketAddress.resolve(host: host, port: 1, timeout: timeout)
        } catch {
            return .fail(3, title, PhotonError.wrap(error))
        }
        guard let first = addresses.first else {
            return .fail(3, title, PhotonError(.unreachable, "\(host) resolves to no address", hint: "use the TV's IP address"))
        }
        resolved = true
        let route: RouteInfo
        do {
            route = try RouteInfo.to(first)
        } catch {
            resolved = false
            return .fail(3, title, PhotonError.wrap(error))
        }
        let via = "\(first.host) via \(route.interface ?? "?") (this machine: \(route.localAddress)\(route.prefixLength.map { "/\($0)" } ?? ""))"
        if route.loopback {
            return .pass(3, title, "\(via): this machine itself (an emulated TV?)")
        }
        if !route.onLocalSubnet {
            return .warn(
                3, title, "\(via): not on a local subnet (routed)",
                fix:
                    "control works across routers, but discovery and Wake-on-LAN broadcasts do not: use `photon probe ADDRESS`, and `photon wake --broadcast` with the TV subnet's broadcast address"
            )
        }
        if !route.multicast {
            return .warn(
                3, title, "\(via): on the local subnet, but \(route.interface ?? "the interface") cannot do multicast",
                fix: "mDNS and SSDP discovery will not work on it; pair by address")
        }
        return .pass(3, title, "\(via): on the local subnet, multicast possible")
    }

    // MARK: 4

    private func mdnsStep() async -> DoctorStep {
        let title = Self.titles[4]!
        let types = adapters.flatMap(\.descriptor.discovery.serviceTypes)
        guard !types.isEmpty else {
            return .skip(4, title, "\(adapters.map(\.displayName).joined(separator: ", ")) TVs announce nothing over mDNS (SSDP and addresses only)")
        }
        let found: AsyncStream<(candidate: TVCandidate, service: DiscoveredService)>
        let wait = min(timeout, .seconds(2))
        do {
            found = try context.photon.discover(timeout: wait, brands: adapters.map(\.id), ssdp: false)
        } catch {
            return .warn(
                4, title, "avahi-daemon cannot be asked: \(PhotonError.wrap(error).message)",
                fix: "start avahi-daemon (and dbus) to discover TVs; pairing by address works without it")
        }
        var seen: [String] = []
        for await (candidate, service) in found where service.addresses.contains(host) || service.host == host || candidate.endpoint.host == host {
            seen.append("\(Redaction.sanitize(service.name, limit: 40)) (\(service.type))")
            break
        }
        if let first = seen.first { return .pass(4, title, "avahi-daemon answers; the TV is seen as \(first)") }
        return .warn(
            4, title, "avahi-daemon answers, but the TV was not seen in \(Int(wait.seconds * 1000)) ms",
            fix: "mDNS does not cross subnets or VLANs and some TVs stop announcing in standby; the address works without it")
    }

    // MARK: 5

    private mutating func portsStep() async -> DoctorStep {
        let title = Self.titles[5]!
        var lines: [String] = []
        let connector = NetConnector()
        for adapter in adapters {
            var ports = adapter.descriptor.ports.all
            // An address typed with its port is checked at that port (emulators, and TVs
            // on a port of their own), not at the brand's usual ones (newcomer #27).
            if let typedPort { ports = [adapter.descriptor.ports.mainName: typedPort] }
            if let device, device.brand == adapter.id {
                ports = device.ports
                ports[adapter.descriptor.ports.mainName] = device.port
                if device.unencrypted == true { ports = [adapter.descriptor.ports.mainName: device.port] }
            }
            var states: [String] = []
            for (name, port) in ports.sorted(by: { $0.key < $1.key }) {
                do {
                    let stream = try await connector.openByteStream(to: Endpoint(host: host, port: port), security: .plain, timeout: timeout)
                    await stream.close()
                    openPorts[adapter.id, default: [:]][name] = port
                    states.append("\(name) \(port) open")
                } catch {
                    let e = PhotonError.wrap(error)
                    states.append("\(name) \(port) \(e.code == .timeout ? "filtered (no answer)" : "closed")")
                }
            }
            lines.append("\(adapter.id): \(states.joined(separator: ", "))")
        }
        if openPorts.isEmpty {
            return .fail(
                5, title,
                PhotonError(
                    .unreachable, "nothing listens: \(lines.joined(separator: "; "))",
                    hint: "is the TV on (not in deep standby), and is its remote-control or IP-control setting enabled?"))
        }
        if let device, let main = openPorts[device.brand], main.values.contains(device.port) == false {
            return .fail(
                5, title,
                PhotonError(
                    .unreachable, "the TV's main port \(device.port) is closed: \(lines.joined(separator: "; "))",
                    hint: "the TV may have moved to another port or address: `photon probe \(host)`, then pair again"))
        }
        return .pass(5, title, lines.joined(separator: "; "))
    }

    // MARK: 6

    private func tlsStep() async -> DoctorStep {
        let title = Self.titles[6]!
        if let device {
            if device.unencrypted == true { return .skip(6, title, "paired without TLS by consent (an old TV without it)") }
            let pin: CertificateFingerprint?
            do {
                pin = try await context.store.secrets(for: device.id).pin
            } catch {
                return .fail(6, title, PhotonError.wrap(error))
            }
            guard let pin else { return .skip(6, title, "this TV's protocol has no certificate to pin") }
            if let adapter = try? context.registry.adapter(id: device.brand), case .protocolKey(let what) = adapter.descriptor.pairing.pinnedKey {
                // No TLS: the pin is a key the protocol checks itself (step 8 connects with it).
                return .skip(6, title, "this TV's protocol has no TLS certificate; its pin \(pin) is \(what)")
            }
            do {
                let stream = try await NetConnector().openByteStream(
                    to: device.endpoint, security: .tls(TLSClientOptions(trust: .captureForFirstUse)), timeout: timeout)
                let seen = stream.peerCertificate?.fingerprint
                await stream.close()
                guard let seen else { return .fail(6, title, PhotonError(.tls, "the TV presented no certificate")) }
                guard seen == pin else {
                    return .fail(
                        6, title,
                        PhotonError(
                            .pinMismatch, "the TV presents certificate \(seen), not the pinned \(pin)",
                            hint:
                                "if the TV was reset or repaired, pair again: photon pair \(device.endpoint) --replace; otherwise something else answers at this address"
                        ))
                }
                return .pass(6, title, "the certificate \(seen) matches the pin")
            } catch {
                return .fail(6, title, PhotonError.wrap(error))
            }
        }
        // An address not paired: what certificates do its open ports present?
        var seen: [String] = []
        for adapter in adapters {
            guard let port = openPorts[adapter.id]?[adapter.descriptor.ports.mainName] else { continue }
            if let stream = try? await NetConnector().openByteStream(
                to: Endpoint(host: host, port: port), security: .tls(TLSClientOptions(trust: .captureForFirstUse)), timeout: timeout)
            {
                if let fingerprint = stream.peerCertificate?.fingerprint { seen.append("\(adapter.id) port \(port): \(fingerprint)") }
                await stream.close()
            }
        }
        return seen.isEmpty
            ? .skip(6, title, "no TLS on the open ports")
            : .pass(6, title, "not paired; presents " + seen.joined(separator: "; ") + " (compare it when pairing)")
    }

    // MARK: 7

    private func greetingStep() async -> DoctorStep {
        let title = Self.titles[7]!
        var answered: [String] = []
        var firstError: PhotonError?
        for adapter in adapters where openPorts[adapter.id] != nil {
            do {
                let context = try await self.context.sessions.adapterContext(timeout: timeout)
                var ports = adapter.descriptor.ports.all
                if let typedPort { ports[adapter.descriptor.ports.mainName] = typedPort }
                if let device, device.brand == adapter.id {
                    ports.merge(device.ports) { $1 }
                    ports[adapter.descriptor.ports.mainName] = device.port
                }
                if let candidate = try await adapter.probe(host: host, ports: ports, context: context) {
                    var text = "\(adapter.id): \(Redaction.sanitize(candidate.name, limit: 48))"
                    if let model = candidate.model { text += " (\(Redaction.sanitize(model, limit: 48)))" }
                    if let reason = candidate.unsupportedReason { text += " — unsupported: \(reason)" }
                    answered.append(text)
                }
            } catch {
                if firstError == nil { firstError = PhotonError.wrap(error) }
            }
        }
        if !answered.isEmpty { return .pass(7, title, "answers as " + answered.joined(separator: "; ")) }
        return .fail(
            7, title,
            firstError
                ?? PhotonError(
                    .protocolViolation, "something listens, but it does not speak \(adapters.map(\.id).joined(separator: " or "))",
                    hint: "check the address and the brand (`photon probe \(host)`)"))
    }

    // MARK: 8

    private func pairingStep() async -> DoctorStep {
        let title = Self.titles[8]!
        guard let device else { return .skip(8, title, "not paired: `photon pair \(host)\(typedPort.map { ":\($0)" } ?? "")`") }
        do {
            let session = try await context.sessions.openSession(to: device, timeout: timeout)
            await session.close()
            return .pass(8, title, "\(Redaction.sanitize(device.nickname)) accepts this installation's pairing (no key was sent)")
        } catch {
            return .fail(8, title, PhotonError.wrap(error))
        }
    }

    // MARK: 9

    private func wakeStep() -> DoctorStep {
        let title = Self.titles[9]!
        guard let device, let adapter = adapters.first(where: { $0.id == device.brand }) else {
            return .skip(9, title, "not paired: the MAC is learned at pairing")
        }
        guard adapter.descriptor.wakeMethod == .wakeOnLAN else { return .skip(9, title, "\(adapter.displayName) TVs are not woken over the network") }
        guard !device.wakeMACs.isEmpty else {
            return .warn(9, title, "no MAC is known, so the TV cannot be woken", fix: "give it when waking: photon wake AA:BB:CC:DD:EE:FF")
        }
        return .pass(9, title, "MAC\(device.wakeMACs.count > 1 ? "s" : "") \(device.wakeMACs.joined(separator: ", ")) known")
    }
}
