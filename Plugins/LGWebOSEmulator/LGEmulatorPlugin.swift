import Foundation
import LGWebOS
import PhotonArguments
import PhotonCore
import PhotonEmulatorSupport

/// The emulated LG TV as a registered emulator: its options and how it starts.
public struct LGEmulatorPlugin: TVEmulator {
    public init() {}

    public var brand: String { LGWebOSAdapter.brandID }
    public var summary: String {
        "an LG webOS TV (SSAP): WSS and plain WS, the PROMPT, the 2026 refusal of signed manifests, the pointer socket, subscriptions"
    }
    public var options: [OptionSpec] {
        [
            OptionSpec("port", type: .listenPort, help: "the WSS port (default 3001; 0 picks a free one)"),
            OptionSpec("plain-port", type: .listenPort, help: "the plain WS port (default 3000)"),
            OptionSpec("tls", type: .choice(["true", "false"]), help: "whether it has a TLS port (false: a TV from before 2018)"),
            OptionSpec("plain", type: .choice(["true", "false"]), help: "whether it has a plain port (false: 2023+ firmware)"),
            OptionSpec("accept", type: .choice(["auto", "deny", "timeout"]), help: "the user's answer to the prompt (default auto)"),
            OptionSpec("accept-delay", type: .seconds(0...3600), help: "seconds before that answer"),
            OptionSpec(
                "prompt-timeout", type: .seconds(0.01...3600), help: "seconds before an unanswered prompt ends with 403 cancelled (default 120)"),
            OptionSpec("blacklist-signed", type: .choice(["true", "false"]), help: "refuse signed manifests as 2026 firmware does (default true)"),
            OptionSpec("withhold", type: .text, help: "permissions never granted, comma-separated (CONTROL_INPUT_TEXT,…)"),
            OptionSpec("power", type: .choice(["Active", "Active Standby", "Screen Off"]), help: "the power state it reports (default Active)"),
            OptionSpec("channels", type: .integer(0...20_000), help: "how many channels its channel list has (default 3)"),
            OptionSpec(
                "misbehave", type: .choice(["none", "silent", "noisy"]), help: "stop answering (no pongs either), or send noise before every answer"),
            OptionSpec(
                "ssdp-port", type: .listenPort,
                help: "answer SSDP searches (webOS second screen) on this UDP port of --host: `photon discover --ssdp HOST:PORT` finds it"),
        ]
    }
    public var portOptions: [String: String] { ["port": "wss", "plain-port": "ws"] }

    public func start(_ settings: EmulatorSettings, onEvent: @escaping @Sendable (EmulatorEvent) -> Void) async throws -> any RunningEmulator {
        var c = EmulatedLGTV.Configuration()
        c.host = settings.host
        c.port = settings.text("tls") == "false" ? nil : settings.port("port") ?? c.port
        c.plainPort = settings.text("plain") == "false" ? nil : settings.port("plain-port") ?? c.plainPort
        c.name = settings.name ?? c.name
        if let mac = settings.mac {
            c.mac = mac
            // The TV's id is its UUID: another MAC makes another TV, so two emulators differ.
            let hex = mac.lowercased().filter(\.isHexDigit)
            if hex.count == 12 { c.uuid = "6c3f2a1e-9b7d-4e15-a0c4-" + hex }
        }
        c.stateDirectory = settings.stateDirectory
        if let accept = settings.text("accept").flatMap(EmulatedLGTV.Accept.init(rawValue:)) { c.accept = accept }
        c.acceptDelay = settings.seconds("accept-delay") ?? c.acceptDelay
        c.promptTimeout = settings.seconds("prompt-timeout") ?? c.promptTimeout
        if let blacklist = settings.text("blacklist-signed") { c.blacklistSigned = blacklist != "false" }
        if let withheld = settings.text("withhold") {
            c.withheld = Set(withheld.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).uppercased() })
        }
        c.powerState = settings.text("power") ?? c.powerState
        c.channelCount = settings.integer("channels") ?? c.channelCount
        c.ssdpPort = settings.port("ssdp-port")
        if let m = settings.text("misbehave").flatMap(EmulatedLGTV.Misbehaviour.init(rawValue:)) { c.misbehaviour = m }
        guard c.port != nil || c.plainPort != nil else {
            throw PhotonError(.usage, "an emulated LG TV needs a TLS or a plain port", hint: "drop --tls false or --plain false")
        }
        return try await EmulatedLGTV.start(c, onEvent: onEvent)
    }
}

extension EmulatedLGTV: RunningEmulator {
    public var ports: [String: UInt16] {
        var ports: [String: UInt16] = [:]
        if let port { ports["wss"] = port }
        if let plainPort { ports["ws"] = plainPort }
        return ports
    }
    public var certificateFingerprint: CertificateFingerprint? { port == nil ? nil : fingerprint }
    /// Real LG TVs announce nothing useful over mDNS: `photon discover` finds them (and this
    /// emulator, with `--ssdp-port`) by SSDP. This record only shows the emulator in
    /// avahi-browse; Photon does not browse it.
    public var announcement: EmulatorAnnouncement {
        EmulatorAnnouncement(serviceType: "_lg-ssap._tcp", port: port ?? plainPort ?? 0, txt: ["uuid": configuration.uuid])
    }
    public var pairingCodeEvent: String? { nil }
    public func forgetClients() async { forgetKeys() }
    public func sendMalformedMessage() async { await broadcast("{not json") }
    public func sendOversizeMessage() async { await broadcast(String(repeating: "x", count: SSAPMessage.maximumSize + 16)) }
    public func dropConnections() async { await dropAll() }
}
