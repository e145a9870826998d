import PhotonCore
import PhotonKit

/// `photon power TV on|off|toggle`: one reliable power change (`TVControl.setPower`),
/// directly or through `photon serve`.
enum PowerCommand {
    static func spec(_ registry: AdapterRegistry) -> CommandSpec {
        CommandSpec(
            ["power"], summary: "switch a TV on or off, and confirm it", arguments: "TV on|off|toggle", minimumArguments: 2, maximumArguments: 2,
            options: [
                OptionSpec(
                    "broadcast", value: "ADDR", help: "on: where to send the Wake-on-LAN packet (repeatable; default every broadcast address)",
                    repeatable: true),
                OptionSpec("wait", type: .seconds(1...300), help: "on: how long to wait for a woken TV (default 45)"),
                OptionSpec("art", help: "off: to art mode rather than off, on a TV that shows art (`photon art TV on`)"),
            ],
            details: """
                on: Wake-on-LAN to every known MAC when the TV does not answer, the brand's own power-on if it is in standby, \
                then waits for the TV to report itself on: exit 0 only then, else exit 3 with the reason (no MAC known, woke but \
                stayed in standby, did not answer: is network standby on?). off never toggles a TV that is already off (one that \
                does not answer is off; on a Frame it is a real off, and --art goes to art mode instead). toggle is the power key (`photon key TV power`). Through photon serve, the daemon's \
                --wake-broadcast applies unless --broadcast is given.
                """ + networkStandbyNames(registry),
            examples: ["photon power living-room on", "photon power living-room off", "photon power den on --broadcast 192.168.1.255"], run: run)
    }

    /// " Network standby is called: lg …; samsung …", from the adapters' own words.
    static func networkStandbyNames(_ registry: AdapterRegistry) -> String {
        let names = registry.adapters.filter { !$0.descriptor.help.networkStandby.isEmpty }
            .map { "\($0.id): \($0.descriptor.help.networkStandby)" }
        return names.isEmpty ? "" : " The network standby setting is called: " + names.joined(separator: "; ") + "."
    }

    static func run(_ parsed: ParsedCommand, _ context: CLIContext) async throws -> Int32 {
        guard let target = PowerTarget(rawValue: parsed.arguments[1].lowercased()) else {
            throw PhotonError(.usage, "power takes on, off or toggle, not '\(Redaction.sanitize(parsed.arguments[1]))'")
        }
        if parsed.flag("art") {
            // "Off" to art: the art command, where the brand has art mode (else exit 6 with the reason).
            guard target == .off else { throw PhotonError(.usage, "--art goes with power off") }
            try await ControlCommands.send([.art(.mode(on: true))], delay: 0, to: parsed.arguments[0], context)
            if context.json { context.emit(.object([("power", "off"), ("state", "art")]), text: nil) } else { context.note("Showing art.") }
            return 0
        }
        var patience: Duration = .seconds(45)
        if let text = parsed.value("wait"), let seconds = Double(text) { patience = .milliseconds(Int(seconds * 1000)) }
        let wake = WakeRequest(destinations: parsed.allValues("broadcast"), patience: patience)
        let control = try await context.control()
        let outcome = try await control.setPower(target, of: parsed.arguments[0], wake: wake, lifetime: min(context.timeout, .seconds(10)))
        if context.json {
            context.emit(
                .object([
                    ("power", .string(target.rawValue)), ("state", .optional(outcome.state?.rawValue)), ("reason", .optional(outcome.reason)),
                    ("woke", .bool(outcome.woke)),
                ]), text: nil)
        } else {
            context.note(outcome.summary)
        }
        return 0
    }
}
