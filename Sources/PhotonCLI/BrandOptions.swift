import PhotonCore

/// The options brands add to `photon pair` and `photon probe` (`TVAdapter.options`),
/// checked by type before anything is sent, and the brand they imply: an option only
/// one brand takes names that brand.
struct BrandOptions {
    /// Given brand options, by name, as typed.
    let given: [String: String]
    let registry: AdapterRegistry

    init(_ parsed: ParsedCommand, registry: AdapterRegistry) throws {
        self.registry = registry
        var given: [String: String] = [:]
        for option in registry.options {
            guard let text = parsed.value(option.name) else { continue }
            switch option.value {
            case .port:
                guard let port = UInt16(text), port > 0 else {
                    throw PhotonError(.usage, "--\(option.name) takes a port number from 1 to 65535, not '\(Redaction.sanitize(text))'")
                }
                given[option.name] = String(port)
            case .text:
                given[option.name] = text
            }
        }
        self.given = given
    }

    /// The option specs for a command's help and parser.
    static func specs(_ registry: AdapterRegistry) -> [OptionSpec] {
        registry.options.map { option in
            switch option.value {
            case .port: return OptionSpec(option.name, type: .port, help: option.help)
            case .text: return OptionSpec(option.name, type: .text, help: option.help)
            }
        }
    }

    /// The one brand that takes every given option, when some were given.
    var impliedBrand: String? {
        guard !given.isEmpty else { return nil }
        let takers = registry.adapters.filter { adapter in
            given.keys.allSatisfy { name in adapter.descriptor.pairing.options.contains { $0.name == name } }
        }
        return takers.count == 1 ? takers[0].id : nil
    }

    /// The given options `adapter` takes; one it does not take is a usage error.
    func values(for adapter: any TVAdapter) throws -> [String: String] {
        for name in given.keys where !adapter.descriptor.pairing.options.contains(where: { $0.name == name }) {
            throw PhotonError(.usage, "--\(name) is not an option of \(adapter.id) TVs", hint: "see `photon pair --help`")
        }
        return given
    }

    /// The named ports the given options set for `adapter` (`pairing`: 7467), plus its
    /// main port from `--port`.
    func ports(for adapter: any TVAdapter, mainPort: UInt16?) -> [String: UInt16] {
        var ports: [String: UInt16] = [:]
        if let mainPort { ports[adapter.descriptor.ports.mainName] = mainPort }
        for option in adapter.descriptor.pairing.options {
            if case .port(let name) = option.value, let text = given[option.name], let port = UInt16(text) { ports[name] = port }
        }
        return ports
    }
}
