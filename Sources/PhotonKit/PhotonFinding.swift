import Foundation
import PhotonCore
import PhotonDiscovery
import PhotonNet
import PhotonStore

/// Finding and pairing TVs through the façade: discovery (mDNS and SSDP), probing a typed
/// address, pairing and storing.
extension Photon {
    /// What one adapter made of a probe: a TV of its brand, nothing of its brand, or an error.
    public struct ProbeResult: Sendable {
        /// The brand that was asked.
        public var brand: String
        /// What it found at the address (nil: not this brand), or why it could not tell.
        public var result: Result<TVCandidate?, PhotonError>
        /// Whether the TV described itself in answer to a unicast DNS-SD query (its name,
        /// and the port it announces), rather than only answering the brand's own probe.
        public var announced = false
    }

    /// Asks every adapter (or `brands`) at once whether its kind of TV answers at `host`,
    /// and the host itself what it announces: a unicast DNS-SD query to `mdnsPort` for
    /// every service type those brands discover, whose answer gives a brand's candidate
    /// its announced name and port (an Apple TV's Companion port is not fixed).
    /// `ports` per brand override its named ports (`["androidtv": ["pairing": 7467]]`).
    public func probe(
        host: String, brands: [String]? = nil, ports: [String: [String: UInt16]] = [:], timeout: Duration? = nil,
        mdnsPort: UInt16 = DNSSD.port
    ) async throws -> [ProbeResult] {
        let adapters = try brands.map { try $0.map { try registry.adapter(id: $0) } } ?? registry.adapters
        var context = try await sessions.adapterContext()
        context.timeout = timeout ?? context.timeout
        let probeContext = context
        let types = Array(Set(adapters.flatMap(\.descriptor.discovery.serviceTypes))).sorted()
        // The answer is about the address asked, whatever addresses it lists.
        async let announced =
            (try? await DNSSDProber.services(host: host, port: mdnsPort, types: types, timeout: min(probeContext.timeout, .seconds(2))))?
            .map { DiscoveredService(name: $0.name, type: $0.type, host: $0.host, addresses: [host], port: $0.port, txt: $0.txt) } ?? []
        let probed = await withTaskGroup(of: ProbeResult.self) { group in
            for adapter in adapters {
                group.addTask {
                    do {
                        let candidate = try await withTimeout(probeContext.timeout, "probing \(adapter.id)") {
                            try await adapter.probe(host: host, ports: ports[adapter.id] ?? [:], context: probeContext)
                        }
                        return ProbeResult(brand: adapter.id, result: .success(candidate))
                    } catch {
                        return ProbeResult(brand: adapter.id, result: .failure(PhotonError.wrap(error)))
                    }
                }
            }
            var all: [ProbeResult] = []
            for await item in group { all.append(item) }
            return all.sorted { $0.brand < $1.brand }
        }
        let services = await announced
        return probed.map { result in
            guard let adapter = adapters.first(where: { $0.id == result.brand }),
                let candidate = services.lazy.compactMap({ adapter.recognise($0) }).first
            else { return result }
            // What the TV announces wins over a guess; ports only the probe learned are kept.
            var merged = candidate
            if case .success(let probedCandidate?) = result.result {
                merged.ports.merge(probedCandidate.ports) { announced, _ in announced }
                merged.id = merged.id ?? probedCandidate.id
                merged.mac = merged.mac ?? probedCandidate.mac
                merged.model = merged.model ?? probedCandidate.model
            }
            return ProbeResult(brand: result.brand, result: .success(merged), announced: true)
        }
    }

    /// The adapter for `address`: `brand`, the only registered one, the only one whose
    /// default ports include an explicit port, or the first that answers a probe.
    public func chooseAdapter(for address: String, brand: String? = nil) async throws -> any TVAdapter {
        if let brand { return try registry.adapter(id: brand) }
        let adapters = registry.adapters
        if adapters.count == 1 { return adapters[0] }
        let endpoint = try Endpoint(parsing: address, defaultPort: 0)
        if endpoint.port != 0 {
            let matching = adapters.filter { $0.descriptor.ports.all.values.contains(endpoint.port) }
            if matching.count == 1 { return matching[0] }
            // A port no brand uses by default: ask each brand with it as its main port.
            let ports = Dictionary(uniqueKeysWithValues: adapters.map { ($0.id, [$0.descriptor.ports.mainName: endpoint.port]) })
            for result in try await probe(host: endpoint.host, ports: ports) {
                if case .success(.some) = result.result { return try registry.adapter(id: result.brand) }
            }
            throw PhotonError(
                .unreachable, "no supported TV answered at \(endpoint)",
                hint: "tried: \(registry.ids.joined(separator: ", ")); pass --brand to skip detection")
        }
        for result in try await probe(host: endpoint.host) {
            if case .success(.some) = result.result { return try registry.adapter(id: result.brand) }
        }
        throw PhotonError(
            .unreachable, "no supported TV answered at \(endpoint.host)",
            hint: "tried: \(registry.ids.joined(separator: ", ")); pass --brand to skip detection")
    }

    /// Pairs with the TV at `address` (consent and codes through `responder`) and returns
    /// what to store; `save` stores it.
    public func pair(_ address: String, brand: String? = nil, options: [String: String] = [:], responder: any PairingResponder)
        async throws -> PairedTV
    {
        let adapter = try await chooseAdapter(for: address, brand: brand)
        let endpoint = try Endpoint(parsing: address, defaultPort: adapter.descriptor.ports.main)
        let values = try AdapterOptionValues(parsing: options, for: adapter.descriptor.pairing.options)
        return try await adapter.pairing(with: endpoint, options: values, context: try await sessions.adapterContext()).run(responder: responder)
    }

    /// Stores a paired TV under `nickname` (default: kept from an earlier pairing of the
    /// same TV, else made from its name and unique). A different device reporting a paired
    /// TV's id is refused unless `replacing` (see `Store.save`).
    @discardableResult
    public func save(_ paired: PairedTV, nickname: String? = nil, replacing: Bool = false) async throws -> DeviceRecord {
        var paired = paired
        let existing = try await store.devices()
        if let nickname {
            try DeviceNaming.validateNickname(nickname)
            paired.device.nickname = nickname
        } else if let previous = existing.devices.first(where: { $0.id == paired.device.id }) {
            paired.device.nickname = previous.nickname
        } else {
            let base = DeviceNaming.suggestedNickname(from: paired.device.name ?? paired.device.brand)
            var candidate = base
            var n = 2
            while (try? DeviceNaming.checkUnique(nickname: candidate, for: paired.device.id, among: existing.devices)) == nil {
                candidate = "\(base)-\(n)"
                n += 1
            }
            paired.device.nickname = candidate
        }
        try await store.save(paired, replacing: replacing)
        return paired.device
    }

    /// TVs found on the network within `timeout`, as they resolve, once each: mDNS
    /// through avahi-daemon for every adapter's service types, and SSDP for the brands
    /// that answer it (multicast, or unicast to `ssdpHost`).
    public func discover(timeout: Duration, brands: [String]? = nil, ssdp: Bool = true, ssdpHost: Endpoint? = nil) throws
        -> AsyncStream<(candidate: TVCandidate, service: DiscoveredService)>
    {
        let adapters = try brands.map { try $0.map { try registry.adapter(id: $0) } } ?? registry.adapters
        let browser = try AvahiBrowser(types: Array(Set(adapters.flatMap(\.descriptor.discovery.serviceTypes))).sorted())
        let targets = AdapterRegistry(adapters).ssdpSearchTargets
        return AsyncStream { continuation in
            let stopper = Task {
                try? await Task.sleep(for: timeout)
                browser.stop()
            }
            let mdns = Task { for await event in browser.events { if case .found(let s) = event { continuation.yield(s) } } }
            let ssdpSearch = Task {
                guard ssdp, !targets.isEmpty else { return }
                let answers =
                    (try? await SSDPSearcher.search(
                        targets: targets, host: ssdpHost?.host ?? SSDP.multicastHost, port: ssdpHost?.port ?? SSDP.port,
                        timeout: min(timeout, .seconds(3)))) ?? []
                for answer in answers { continuation.yield(SSDP.service(answer)) }
            }
            Task {
                _ = await (mdns.value, ssdpSearch.value)
                stopper.cancel()
                continuation.finish()
            }
            continuation.onTermination = { _ in
                stopper.cancel()
                browser.stop()
                ssdpSearch.cancel()
            }
        }
        .compactMapServices(adapters)
    }
}

extension AsyncStream where Element == DiscoveredService {
    /// Candidates from the services adapters recognise, each TV once.
    func compactMapServices(_ adapters: [any TVAdapter]) -> AsyncStream<(candidate: TVCandidate, service: DiscoveredService)> {
        AsyncStream<(candidate: TVCandidate, service: DiscoveredService)> { continuation in
            let task = Task {
                var seen: Set<String> = []
                for await service in self {
                    guard let candidate = adapters.lazy.compactMap({ $0.recognise(service) }).first else { continue }
                    let key = candidate.id ?? candidate.mac ?? "\(candidate.brand)|\(candidate.name)"
                    guard seen.insert(key).inserted else { continue }
                    continuation.yield((candidate, service))
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}
