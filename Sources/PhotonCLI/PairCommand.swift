import Foundation
import PhotonCore
import PhotonKit
import PhotonNet
import PhotonStore

/// `photon pair ADDRESS`: trust the TV's certificate (with consent), run the brand's
/// pairing, store the TV and its secrets.
enum PairCommand {
    static func spec(_ registry: AdapterRegistry) -> CommandSpec {
        CommandSpec(
            ["pair"], summary: "pair with a TV and store it", arguments: "ADDRESS", minimumArguments: 1, maximumArguments: 1,
            options: [
                OptionSpec("name", value: "NICK", help: "nickname to store the TV under (default: from the TV's name)"),
                OptionSpec("brand", type: .choice(registry.ids), help: "skip detection"),
                OptionSpec("trust", type: .fingerprint, help: "consent to this SHA-256 certificate fingerprint without asking"),
                OptionSpec("replace", help: "replace a paired TV with the same id but another certificate or address"),
                OptionSpec(
                    "allow-unencrypted",
                    help:
                        "consent to pairing over an unencrypted protocol when the TV offers nothing else (an old TV without TLS, or a protocol that has none): anyone on the network can read what is sent"
                ),
            ] + BrandOptions.specs(registry),
            details: """
                ADDRESS is HOST[:PORT] (IPv6 in brackets). Photon first shows the SHA-256 fingerprint
                of the TV's certificate and asks whether to trust it; --trust gives that consent in
                scripts. Without a terminal and without --trust it stops (exit 5) and prints the
                fingerprint: nothing is sent to an untrusted TV. Pinning cannot prove who answers on
                first contact; compare the fingerprint if you can.
                """ + registry.adapters.map { "\n" + $0.descriptor.help.pairing }.joined(),
            examples: [
                "photon pair 192.168.1.20 --name living-room",
                "photon pair 127.0.0.1:7466 --trust AB:CD:...:EF < code.txt",
                "echo 3FA9C1 | photon pair tv.local --brand \(registry.ids.first ?? "BRAND") --trust \"$FP\"",
            ],
            run: run)
    }

    static func run(_ parsed: ParsedCommand, _ context: CLIContext) async throws -> Int32 {
        let address = parsed.arguments[0]
        let trusted = try parsed.value("trust").map { try CertificateFingerprint(hex: $0) }
        if let nickname = parsed.value("name") { try DeviceNaming.validateNickname(nickname) }
        // A brand's own option names the brand too.
        let brandOptions = try BrandOptions(parsed, registry: context.registry)
        let photon = try context.photon
        let adapter = try await photon.chooseAdapter(for: address, brand: parsed.value("brand") ?? brandOptions.impliedBrand)
        let responder = TerminalPairingResponder(
            terminal: context.terminal, trusted: trusted, json: context.json, allowUnencrypted: parsed.flag("allow-unencrypted"))
        let paired = try await photon.pair(address, brand: adapter.id, options: try brandOptions.values(for: adapter), responder: responder)
        let device: DeviceRecord
        do {
            device = try await photon.save(paired, nickname: parsed.value("name"), replacing: parsed.flag("replace"))
        } catch let error as PhotonError where error.code == .untrustedCertificate && context.terminal.isInteractive {
            context.terminal.writeError("photon: \(error.message)\nReplace the stored TV with this one? [y/N] ")
            let reply = context.terminal.readLine()?.trimmingCharacters(in: .whitespaces).lowercased()
            guard reply == "y" || reply == "yes" else { throw error }
            device = try await photon.save(paired, nickname: parsed.value("name"), replacing: true)
        }
        await (try? await context.control())?.storeChanged()
        context.emit(
            DeviceCommands.json(device),
            text: "Paired \(Redaction.sanitize(device.nickname)) (\(device.id)) at \(device.endpoint). Try: photon key \(device.nickname) home")
        return 0
    }
}

/// Answers pairing challenges from the terminal: consent to the certificate (or
/// `--trust`), and the code from the TTY or one line of stdin.
final class TerminalPairingResponder: PairingResponder {
    let terminal: any Terminal
    let trusted: CertificateFingerprint?
    let json: Bool
    let allowUnencrypted: Bool
    private let codeRequests = Locked(0)

    init(terminal: any Terminal, trusted: CertificateFingerprint?, json: Bool, allowUnencrypted: Bool = false) {
        self.terminal = terminal
        self.trusted = trusted
        self.json = json
        self.allowUnencrypted = allowUnencrypted
    }

    func answer(_ challenge: PairingChallenge) async throws -> PairingAnswer {
        switch challenge {
        case .trustCertificate(let certificate):
            let fingerprint = certificate.fingerprint
            terminal.writeError("The TV presents a certificate with SHA-256 fingerprint\n  \(fingerprint)\n")
            if json {
                terminal.write(JSONValue.object([("event", "certificate"), ("fingerprint", .string(fingerprint.description))]).encoded + "\n")
            }
            if let trusted {
                guard trusted == fingerprint else {
                    throw PhotonError(
                        .untrustedCertificate, "the TV's certificate is \(fingerprint), not the one given with --trust",
                        hint: "check that you are pairing with the right TV; nothing was sent to it")
                }
                return .trust(true)
            }
            guard terminal.isInteractive else {
                throw PhotonError(
                    .untrustedCertificate, "not trusting the TV's certificate without consent; nothing was sent",
                    hint: "run in a terminal to answer, or pass --trust \(fingerprint)")
            }
            terminal.writeError("Trust this TV? Pinning protects later connections, not this first one. [y/N] ")
            let reply = terminal.readLine()?.trimmingCharacters(in: .whitespaces).lowercased()
            return .trust(reply == "y" || reply == "yes")
        case .enterCode(let length, let alphabet):
            let attempt = codeRequests.withLock { n -> Int in
                n += 1
                return n
            }
            if attempt > 1 { terminal.writeError("The TV did not accept that code. Type it again.\n") }
            if terminal.isInteractive {
                terminal.writeError("Type the \(length)-character code shown on the TV: ")
            } else {
                terminal.writeError("Waiting for the \(length)-character \(alphabet.rawValue) code on stdin.\n")
            }
            guard let line = terminal.readLine() else {
                let example = alphabet == .decimal ? String("1234567890".prefix(length)) : String("3FA9C1D2E4B6".prefix(length))
                throw PhotonError(
                    .pairingRefused, attempt > 1 ? "the TV did not accept the code given, and no other came" : "no pairing code was given",
                    hint: "type the \(length)-character code the TV shows at the prompt, or pipe it in: echo \(example) | photon pair ...")
            }
            return .code(line)
        case .confirmOnTV(let message):
            terminal.writeError(message + "\n")
            return .wait
        case .allowUnencrypted(let reason):
            terminal.writeError("\(reason)\n")
            if allowUnencrypted { return .trust(true) }
            guard terminal.isInteractive else {
                throw PhotonError(
                    .untrustedCertificate, "not pairing over an unencrypted connection without consent; nothing was sent",
                    hint: "if you accept that, run again with --allow-unencrypted (anyone on the network can then read what is sent)")
            }
            terminal.writeError("Pair without encryption? Anyone on your network could read what is sent. [y/N] ")
            let reply = terminal.readLine()?.trimmingCharacters(in: .whitespaces).lowercased()
            return .trust(reply == "y" || reply == "yes")
        }
    }
}
