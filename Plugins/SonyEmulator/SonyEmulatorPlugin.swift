import Foundation
import PhotonArguments
import PhotonCore
import PhotonEmulatorSupport

/// The emulated Sony Bravia as a registered emulator: its options and how it starts.
public struct SonyEmulatorPlugin: TVEmulator {
    public init() {}

    public var brand: String { "sony" }
    public var summary: String { "a Sony Bravia (IP control: JSON-RPC and IRCC over HTTP): PIN or pre-shared key, keys, apps, inputs, volume, sound" }
    public var options: [OptionSpec] {
        [
            OptionSpec("port", type: .listenPort, help: "the IP control port (default 80; 0 picks a free one)"),
            OptionSpec("serial", type: .text, help: "the serial number it reports"),
            OptionSpec("psk", type: .text, help: "accept this pre-shared key (X-Auth-PSK) besides PIN registration"),
            OptionSpec("pin", type: .text, help: "show this PIN instead of a random one"),
            OptionSpec("cookie-lifetime", type: .seconds(0.1...1_209_600), help: "how long a registration's cookie lasts (default 14 days)"),
            OptionSpec("ircc-path", type: .choice(["ircc", "IRCC"]), help: "the one case of the IRCC path it serves (default ircc)"),
            OptionSpec("ircc-nap", type: .seconds(0.1...3600), help: "ignore the first IRCC code after this long without one"),
            OptionSpec("power", type: .choice(["active", "standby"]), help: "the power it starts in (default active)"),
            OptionSpec(
                "misbehave", type: .choice(["none", "slow", "garbage", "huge", "close"]),
                help: "answer slowly, with garbage JSON, with huge bodies, or close without answering"),
        ]
    }
    public var portOptions: [String: String] { ["port": "http"] }

    public func start(_ settings: EmulatorSettings, onEvent: @escaping @Sendable (EmulatorEvent) -> Void) async throws -> any RunningEmulator {
        var configuration = EmulatedSony.Configuration()
        configuration.host = settings.host
        configuration.port = settings.port("port") ?? configuration.port
        configuration.serial = settings.text("serial") ?? configuration.serial
        configuration.name = settings.name ?? configuration.name
        configuration.mac = settings.mac ?? configuration.mac
        configuration.psk = settings.text("psk")
        if let pin = settings.text("pin") {
            guard pin.count == 4, pin.allSatisfy(\.isNumber) else { throw PhotonError(.usage, "--pin takes 4 digits") }
            configuration.pin = pin
        }
        if let lifetime = settings.seconds("cookie-lifetime") { configuration.cookieLifetime = lifetime.seconds }
        configuration.irccPath = settings.text("ircc-path") ?? configuration.irccPath
        configuration.irccNap = settings.seconds("ircc-nap")?.seconds
        configuration.standby = settings.text("power") == "standby"
        let tv = try EmulatedSony.start(configuration, onEvent: onEvent)
        if let m = settings.text("misbehave").flatMap(EmulatedSony.Misbehaviour.init(rawValue:)) { tv.misbehave(m) }
        return tv
    }
}

extension EmulatedSony: RunningEmulator {
    public var ports: [String: UInt16] { ["http": port] }
    public var certificateFingerprint: CertificateFingerprint? { nil }
    /// Real Bravias announce themselves over SSDP only; this mDNS record is for trying
    /// `photon discover` with the emulator.
    public var announcement: EmulatorAnnouncement {
        EmulatorAnnouncement(serviceType: "_sony-ipcontrol._tcp", port: port, txt: ["serial": configuration.serial])
    }
    public var pairingCodeEvent: String? { "pin" }
    public func rotateCertificate() async throws { throw PhotonError.unsupported("a Sony TV's IP control has no certificate: it is plain HTTP") }
    public func forgetClients() async { forgetRegistrations() }
    public func sendMalformedMessage() async { misbehaveOnce(.garbage) }
    public func sendOversizeMessage() async { misbehaveOnce(.huge) }
    public func dropConnections() async { await goAway() }
}
