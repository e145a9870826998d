import PhotonCore

/// `photon probe HOST`: asks every adapter at once whether its kind of TV answers there —
/// for networks where discovery cannot see the TV.
enum ProbeCommand {
    static func spec(_ registry: AdapterRegistry) -> CommandSpec {
        CommandSpec(
            ["probe"], summary: "ask an address which TV answers there", arguments: "HOST", minimumArguments: 1, maximumArguments: 1,
            options: [
                OptionSpec("port", type: .port, help: "each brand's main port to try instead of its default"),
                OptionSpec("brand", type: .choice(registry.ids), help: "only this brand"),
                OptionSpec("mdns-port", type: .port, help: "where to send the unicast DNS-SD query (default 5353; emulated TVs use another)"),
            ] + BrandOptions.specs(registry),
            details: (registry.adapters.map(\.descriptor.help.probe).filter { !$0.isEmpty } + [
                "The host is also asked what it announces (a unicast DNS-SD query to port 5353): a TV that answers is listed with its own name and ports.",
                "Each try is bounded by --timeout (default here 3 s).",
            ])
            .joined(separator: "\n"),
            examples: ["photon probe 192.168.1.20", "photon probe tv.local --json"], run: run)
    }

    static func run(_ parsed: ParsedCommand, _ context: CLIContext) async throws -> Int32 {
        let address = try Endpoint(parsing: parsed.arguments[0], defaultPort: 0)
        let host = address.host
        // HOST:PORT means that port as each brand's main port, as --port does.
        var mainPort: UInt16? = address.port == 0 ? nil : address.port
        if let text = parsed.value("port") {
            guard let port = UInt16(text), port > 0 else { throw PhotonError(.usage, "--port takes a port number from 1 to 65535") }
            mainPort = port
        }
        var mdnsPort = DNSSD.port
        if let text = parsed.value("mdns-port") {
            guard let port = UInt16(text), port > 0 else { throw PhotonError(.usage, "--mdns-port takes a port number from 1 to 65535") }
            mdnsPort = port
        }
        let brandOptions = try BrandOptions(parsed, registry: context.registry)
        let adapters = try parsed.value("brand").map { [try context.registry.adapter(id: $0)] } ?? context.registry.adapters
        let results = try await context.photon.probe(
            host: host, brands: adapters.map(\.id),
            ports: Dictionary(uniqueKeysWithValues: adapters.map { ($0.id, brandOptions.ports(for: $0, mainPort: mainPort)) }),
            timeout: parsed.value("timeout") == nil ? .seconds(3) : context.timeout, mdnsPort: mdnsPort)
        var found = 0
        var tried: [String] = []
        var elsewhere: [String] = []
        for probed in results {
            let brand = probed.brand
            switch probed.result {
            case .success(let candidate?) where mainPort != nil && !candidate.ports.values.contains(mainPort!) && candidate.endpoint.port != mainPort:
                // A port was asked for: a TV answering only on its other ports is not an answer there.
                elsewhere.append("\(candidate.brand) on \(candidate.ports.values.sorted().map(String.init).joined(separator: ", "))")
            case .success(let candidate?):
                found += 1
                let portsText = candidate.ports.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
                context.emit(
                    .object([
                        ("brand", .string(candidate.brand)), ("name", .string(candidate.name)), ("host", .string(host)),
                        ("port", .int(Int(candidate.endpoint.port))), ("id", .optional(candidate.id)), ("model", .optional(candidate.model)),
                        ("mac", .optional(candidate.mac)),
                        ("ports", .object(candidate.ports.sorted { $0.key < $1.key }.map { ($0.key, .int(Int($0.value))) })),
                        ("remarks", .array(candidate.remarks.map { .string($0) })), ("announced", .bool(probed.announced)),
                    ]),
                    text:
                        "\(candidate.brand)  \(Redaction.sanitize(candidate.name))\(candidate.model.map { "  model \(Redaction.sanitize($0))" } ?? "")\(candidate.mac.map { "  mac \($0)" } ?? "")  ports: \(portsText)\(probed.announced ? "  (announced)" : "")"
                        + candidate.remarks.map { "\n  note: " + $0 }.joined())
            case .success(nil):
                tried.append("\(brand): answered, but not as this brand")
            case .failure(let error):
                tried.append("\(brand): \(error.message)")
            }
        }
        guard found > 0 else {
            if let mainPort {
                throw PhotonError(
                    .unreachable, "nothing answers at \(Endpoint(host: host, port: mainPort))",
                    hint: elsewhere.isEmpty
                        ? "tried " + tried.joined(separator: "; ")
                        : "at other ports of \(host): " + elsewhere.joined(separator: "; ") + " (probe \(host) lists them)")
            }
            throw PhotonError(
                .unreachable, "no supported TV answered at \(host)",
                hint: "tried " + tried.joined(separator: "; "))
        }
        return 0
    }
}
