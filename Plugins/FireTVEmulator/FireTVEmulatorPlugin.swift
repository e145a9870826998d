import FireTV
import Foundation
import PhotonArguments
import PhotonCore
import PhotonEmulatorSupport

/// The emulated Fire TV as a registered emulator: its options and how it starts.
public struct FireTVEmulatorPlugin: TVEmulator {
    public init() {}

    public var brand: String { "firetv" }
    public var summary: String {
        "a Fire TV (classic ADB over TCP): RSA authentication and \"Allow debugging?\", shell commands for keys, text, apps, power"
    }
    public var options: [OptionSpec] {
        [
            OptionSpec(
                "port", type: .listenPort, help: "the ADB port (default 5555; 0 picks a free one; adb treats 5555 specially, so tests use another)"),
            OptionSpec("serial", type: .text, help: "the serial number getprop reports"),
            OptionSpec("model", type: .text, help: "the model getprop reports (default AFTMM, a Fire TV Stick 4K)"),
            OptionSpec(
                "accept", type: .choice(["auto", "deny", "timeout"]), help: "the answer to \"Allow USB debugging?\" for a new key (default auto)"),
            OptionSpec("power", type: .choice(["Awake", "Asleep", "Dreaming"]), help: "the wakefulness it starts in (default Awake)"),
            OptionSpec("single-client", help: "allow one debugging client at a time: a new one evicts the previous (some Fire OS versions)"),
            OptionSpec(
                "misbehave", type: .choice(["none", "garbage", "oversize", "silent"]),
                help: "after authenticating, send garbage or an oversize message, or open streams and never answer"),
        ]
    }
    public var portOptions: [String: String] { ["port": "adb"] }

    public func start(_ settings: EmulatorSettings, onEvent: @escaping @Sendable (EmulatorEvent) -> Void) async throws -> any RunningEmulator {
        var configuration = EmulatedFireTV.Configuration()
        configuration.host = settings.host
        configuration.port = settings.port("port") ?? configuration.port
        configuration.serial = settings.text("serial") ?? configuration.serial
        configuration.model = settings.text("model") ?? configuration.model
        configuration.mac = settings.mac ?? configuration.mac
        configuration.accept = settings.text("accept").flatMap(EmulatedFireTV.Accept.init(rawValue:)) ?? .auto
        configuration.power = settings.text("power") ?? configuration.power
        configuration.singleClient = settings.flag("single-client")
        configuration.misbehaviour = settings.text("misbehave").flatMap(EmulatedFireTV.Misbehaviour.init(rawValue:)) ?? .none
        configuration.stateDirectory = settings.stateDirectory
        return try EmulatedFireTV.start(configuration, onEvent: onEvent)
    }
}

extension EmulatedFireTV: RunningEmulator {
    public var ports: [String: UInt16] { ["adb": port] }
    public var certificateFingerprint: CertificateFingerprint? { nil }
    /// What Android announces for ADB over TCP on some builds; for trying `photon discover`.
    public var announcement: EmulatorAnnouncement {
        EmulatorAnnouncement(serviceType: "_adb._tcp", port: port, txt: ["serial": configuration.serial])
    }
    public var pairingCodeEvent: String? { nil }
    public func rotateCertificate() async throws { throw PhotonError.unsupported("a Fire TV has no certificate: classic ADB is not encrypted") }
    public func forgetClients() async {
        forgetKeys()
        await dropAll()
    }
    public func sendMalformedMessage() async { for stream in streams { await sendMalformed(to: stream) } }
    public func sendOversizeMessage() async { for stream in streams { await sendOversize(to: stream) } }
    public func dropConnections() async { await dropAll() }
}
