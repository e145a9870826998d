import Foundation
import PhotonArguments
import PhotonCore
import PhotonDiscovery
import PhotonEmulatorPlugins
import PhotonEmulatorSupport
import PhotonNet

// `photon-emulator BRAND [options]`: runs an emulated TV until killed, printing one JSON
// object per line for everything that happens. Every registered brand with an emulated
// TV is a command here; options are typed and checked by the same parser as `photon`'s.

/// What a command of `photon-emulator` runs with.
struct EmulatorRun: Sendable {
    let emulator: any TVEmulator
}

let commonOptions: [OptionSpec] = [
    OptionSpec("host", type: .text, help: "the address to listen on (default 127.0.0.1)"),
    OptionSpec("name", type: .text, help: "the TV's name"),
    OptionSpec("mac", type: .mac, help: "the MAC address it reports"),
    OptionSpec("state", value: "DIR", help: "keep its identity and pairings in DIR across restarts"),
    OptionSpec("publish", help: "announce it through avahi-daemon (mDNS)"),
    OptionSpec("ephemeral", help: "put every port the brand listens on on a free one (as --port 0 for each)"),
    OptionSpec(
        "mdns-port", type: .listenPort,
        help:
            "answer unicast DNS-SD queries (what `photon probe` asks) on this UDP port of --host, as a TV's mDNS responder does on 5353; 0 picks a free one"
    ),
]

let printLock = NSLock()
let printEvent: @Sendable (EmulatorEvent) -> Void = { event in
    printLock.withLock { FileHandle.standardOutput.write(Data((event.jsonLine + "\n").utf8)) }
}

nonisolated(unsafe) var keepAlive: [Any] = []

let commands: [CommandSpec<EmulatorRun>] = BuiltInEmulators.emulators.map { emulator in
    CommandSpec<EmulatorRun>(
        [emulator.brand], summary: emulator.summary, options: emulator.options,
        details:
            "Prints JSON lines on stdout (ready, pairing and connection events, and every command it receives), each with t (CLOCK_MONOTONIC seconds).",
        examples: ["photon-emulator \(emulator.brand) --port 0"]
    ) { parsed, run in
        var settings = EmulatorSettings(
            host: parsed.value("host") ?? "127.0.0.1", name: parsed.value("name"), mac: parsed.value("mac").flatMap(MACAddress.normalized),
            stateDirectory: parsed.value("state").map { URL(fileURLWithPath: $0) })
        if parsed.flag("ephemeral") { settings.values = EmulatorSettings.ephemeral(for: run.emulator).values }
        for option in run.emulator.options where parsed.value(option.name) != nil { settings.values[option.name] = parsed.value(option.name) }
        let tv = try await run.emulator.start(settings, onEvent: printEvent)
        keepAlive.append(tv)
        // Where it listens, by the names its adapter gives the ports, its certificate, and
        // whether it shows a code while pairing (an event with a `code` field): what
        // `photon demo` and other drivers need.
        printEvent(
            EmulatorEvent(
                "listening",
                tv.ports.sorted { $0.key < $1.key }.map { ("port_\($0.key)", EmulatorValue.int(Int($0.value))) }
                    + (tv.certificateFingerprint.map { [("fingerprint", EmulatorValue.string($0.description))] } ?? [])
                    + [("shows_code", EmulatorValue.bool(tv.pairingCodeEvent != nil))]))
        if parsed.flag("publish") {
            let announcement = tv.announcement
            let publisher = try AvahiPublisher(
                name: settings.name ?? "Photon emulated \(run.emulator.brand)", type: announcement.serviceType, port: announcement.port,
                txt: announcement.txt)
            keepAlive.append(publisher)
            printEvent(EmulatorEvent("published", [("service", .string(announcement.serviceType))]))
        }
        if let text = parsed.value("mdns-port"), let port = UInt16(text) {
            let responder = try UnicastDNSSDResponder(
                host: settings.host, port: port, services: announcedServices(tv.announcement, brand: run.emulator.brand, settings: settings)
            ) { types in printEvent(EmulatorEvent("dns_sd_query", [("types", .string(types.joined(separator: " ")))])) }
            keepAlive.append(responder)
            printEvent(EmulatorEvent("dns_sd_ready", [("port", .int(Int(responder.port)))]))
        }
        while true { try await Task.sleep(for: .seconds(3600)) }
    }
}
/// What the emulated TV answers unicast DNS-SD queries with: its announcement and the
/// services announced beside it, under its name, at the address it listens on.
func announcedServices(_ announcement: EmulatorAnnouncement, brand: String, settings: EmulatorSettings) -> [DNSSD.Announcement] {
    let instance = settings.name ?? "Photon emulated \(brand)"
    let address = settings.host.split(separator: ".").compactMap { UInt8($0) }
    return ([announcement] + announcement.companions).map {
        DNSSD.Announcement(
            instance: instance, type: $0.serviceType, hostname: "photon-emulator-\(brand)", port: $0.port,
            txt: $0.txt.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }, addresses: address.count == 4 ? [address] : [])
    }
}

let parser = ArgumentParser<EmulatorRun>(commands: commands, globalOptions: commonOptions, toolName: "photon-emulator")

func usage() -> String {
    var text = "Usage: photon-emulator BRAND [options]\n\nRuns an emulated TV on loopback (by default) until killed.\n\nBrands:\n"
    for command in commands { text += "  \(command.name.padding(toLength: 12, withPad: " ", startingAt: 0))\(command.summary)\n" }
    text += "\nCommon options:\n"
    for option in commonOptions { text += "  --\(option.name)\(option.valueName.map { " \($0)" } ?? "")  \(option.help)\n" }
    text += "\n`photon-emulator BRAND --help` lists a brand's own options.\n"
    return text
}

func commandHelp(_ command: CommandSpec<EmulatorRun>) -> String {
    var text = "Usage: photon-emulator \(command.name) [options]\n\n\(command.summary)\n\nOptions:\n"
    for option in commonOptions + command.options {
        text += "  --\(option.name)\(option.valueName.map { " \($0)" } ?? "")\n      \(option.help)\n"
    }
    if let details = command.details { text += "\n\(details)\n" }
    return text
}

// photon-emulator(1) from the same table, for `make install`.
if Array(CommandLine.arguments.dropFirst()) == ["__manpage"] {
    let page = ManPage(
        name: "photon-emulator", summary: "emulated TVs that speak the real protocols, for trying and testing Photon without a TV",
        synopsis: ["BRAND [OPTIONS]", "BRAND --help"],
        description: [
            "photon-emulator runs one emulated TV of a brand until it is killed. It listens on loopback by default, speaks the brand's real protocol (TLS certificates, pairing prompts and codes, keys, text, apps, state), and prints one JSON object per line on stdout for everything that happens, each with t, the CLOCK_MONOTONIC time in seconds.",
            "Ports given as 0 are chosen free; the ready line says which. Options that make it misbehave (refuse, time out, go silent, send garbage) exist to test clients.",
        ],
        commands: commands.map {
            ManPage.Command(usage: "photon-emulator \($0.name) [OPTIONS]", summary: $0.summary, options: $0.options, details: $0.details)
        },
        options: commonOptions,
        exitStatus: [("0", "stopped by a signal after running"), ("1", "it could not start (a port in use)"), ("2", "usage: a bad command line")],
        files: [("DIR", "with --state DIR: the emulated TV's certificate and the clients it paired, kept across restarts")],
        environment: [("SWIFT_BACKTRACE", "as for any Swift program")],
        examples: BuiltInEmulators.emulators.map { "photon-emulator \($0.brand) --port 0" },
        seeAlso: ["photon(1)"], version: PhotonVersion.current)
    print(page.roff, terminator: "")
    exit(0)
}

do {
    let parsed = try parser.parse(Array(CommandLine.arguments.dropFirst()))
    guard let command = parsed.command else {
        print(usage(), terminator: "")
        exit(parsed.helpRequested ? 0 : 2)
    }
    if parsed.helpRequested {
        print(commandHelp(command), terminator: "")
        exit(0)
    }
    let emulator = BuiltInEmulators.emulators.first { $0.brand == command.name }!
    exit(try await command.run(parsed, EmulatorRun(emulator: emulator)))
} catch {
    let e = PhotonError.wrap(error)
    FileHandle.standardError.write(Data("photon-emulator: error: \(e.message)\n\(e.hint.map { "  hint: \($0)\n" } ?? "")".utf8))
    exit(e.code == .usage ? 2 : 1)
}
