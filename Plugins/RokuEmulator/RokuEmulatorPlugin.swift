import Foundation
import PhotonArguments
import PhotonCore
import PhotonEmulatorSupport

/// The emulated Roku as a registered emulator: its options and how it starts.
public struct RokuEmulatorPlugin: TVEmulator {
    public init() {}

    public var brand: String { "roku" }
    public var summary: String { "a Roku TV (ECP over HTTP): keys, literal text, launch, queries, the network-access modes" }
    public var options: [OptionSpec] {
        [
            OptionSpec("port", type: .listenPort, help: "the ECP port (default 8060; 0 picks a free one)"),
            OptionSpec("serial", type: .text, help: "the serial number it reports"),
            OptionSpec("network-access", type: .choice(["enabled", "limited", "disabled"]), help: "\"Control by mobile apps\" (default enabled)"),
            OptionSpec("ssdp-port", type: .listenPort, help: "answer SSDP searches (ST roku:ecp) on this UDP port of --host"),
            OptionSpec(
                "power", type: .choice(["PowerOn", "DisplayOff", "Headless", "Ready"]), help: "the power-mode it starts in (default PowerOn)"),
            OptionSpec(
                "misbehave", type: .choice(["none", "slow", "garbage", "huge", "close"]),
                help: "answer slowly, with garbage XML, with huge bodies, or close without answering"),
        ]
    }
    public var portOptions: [String: String] { ["port": "ecp"] }

    public func start(_ settings: EmulatorSettings, onEvent: @escaping @Sendable (EmulatorEvent) -> Void) async throws -> any RunningEmulator {
        var configuration = EmulatedRoku.Configuration()
        configuration.host = settings.host
        configuration.port = settings.port("port") ?? configuration.port
        configuration.serial = settings.text("serial") ?? configuration.serial
        configuration.name = settings.name ?? configuration.name
        configuration.mac = settings.mac ?? configuration.mac
        if let access = settings.text("network-access").flatMap(EmulatedRoku.NetworkAccess.init(rawValue:)) { configuration.access = access }
        configuration.ssdpPort = settings.port("ssdp-port")
        configuration.powerMode = settings.text("power") ?? configuration.powerMode
        let tv = try EmulatedRoku.start(configuration, onEvent: onEvent)
        if let m = settings.text("misbehave").flatMap(EmulatedRoku.Misbehaviour.init(rawValue:)) { tv.misbehave(m) }
        return tv
    }
}

extension EmulatedRoku: RunningEmulator {
    public var ports: [String: UInt16] { ["ecp": port] }
    public var certificateFingerprint: CertificateFingerprint? { nil }
    /// Real Rokus announce themselves over SSDP only; this mDNS record is for trying
    /// `photon discover` with the emulator.
    public var announcement: EmulatorAnnouncement {
        EmulatorAnnouncement(serviceType: "_roku-ecp._tcp", port: port, txt: ["serial": configuration.serial])
    }
    public var pairingCodeEvent: String? { nil }
    public func rotateCertificate() async throws { throw PhotonError.unsupported("a Roku has no certificate: ECP is plain HTTP") }
    public func forgetClients() async {}
    public func sendMalformedMessage() async { misbehaveOnce(.garbage) }
    public func sendOversizeMessage() async { misbehaveOnce(.huge) }
    public func dropConnections() async { await goAway() }
}
