import Foundation
import PhotonArguments
import PhotonCore
import PhotonEmulatorSupport

/// The emulated Vizio SmartCast TV as a registered emulator: its options and how it starts.
public struct VizioEmulatorPlugin: TVEmulator {
    public init() {}

    public var brand: String { "vizio" }
    public var summary: String {
        "a Vizio SmartCast TV (HTTPS JSON API): PIN pairing, keys, apps, inputs, volume, picture mode, both firmware generations"
    }
    public var options: [OptionSpec] {
        [
            OptionSpec("port", type: .listenPort, help: "the API's HTTPS port (default 7345, 9000 with --legacy; 0 picks a free one)"),
            OptionSpec("serial", type: .text, help: "the serial number it reports"),
            OptionSpec("pin", type: .text, help: "show this PIN instead of a random one"),
            OptionSpec("legacy", help: "firmware before 4.0: port 9000, no /state_extended"),
            OptionSpec("lowercase", help: "answer with every key in lower case, as some firmware does"),
            OptionSpec("power", type: .choice(["on", "standby"]), help: "the power it starts in (default on)"),
            OptionSpec(
                "misbehave", type: .choice(["none", "slow", "garbage", "huge", "close"]),
                help: "answer slowly, with garbage JSON, with huge bodies, or close without answering"),
        ]
    }
    public var portOptions: [String: String] { ["port": "https"] }

    public func start(_ settings: EmulatorSettings, onEvent: @escaping @Sendable (EmulatorEvent) -> Void) async throws -> any RunningEmulator {
        var configuration = EmulatedVizio.Configuration()
        configuration.host = settings.host
        configuration.legacy = settings.flag("legacy")
        configuration.port = settings.port("port") ?? (configuration.legacy ? 9000 : configuration.port)
        configuration.serial = settings.text("serial") ?? configuration.serial
        configuration.lowercase = settings.flag("lowercase")
        configuration.standby = settings.text("power") == "standby"
        configuration.stateDirectory = settings.stateDirectory
        if let pin = settings.text("pin") {
            guard pin.count == 4, pin.allSatisfy(\.isNumber) else { throw PhotonError(.usage, "--pin takes 4 digits") }
            configuration.pin = pin
        }
        let tv = try EmulatedVizio.start(configuration, onEvent: onEvent)
        if let m = settings.text("misbehave").flatMap(EmulatedVizio.Misbehaviour.init(rawValue:)) { tv.misbehave(m) }
        return tv
    }
}

extension EmulatedVizio: RunningEmulator {
    public var ports: [String: UInt16] { ["https": port] }
    public var certificateFingerprint: CertificateFingerprint? { fingerprint }
    public var announcement: EmulatorAnnouncement {
        EmulatorAnnouncement(serviceType: "_viziocast._tcp", port: port, txt: ["name": "Photon Emulated Vizio", "mdl": configuration.model])
    }
    public var pairingCodeEvent: String? { "pin" }
    public func forgetClients() async { forgetPairings() }
    public func sendMalformedMessage() async { misbehaveOnce(.garbage) }
    public func sendOversizeMessage() async { misbehaveOnce(.huge) }
    public func dropConnections() async { await goAway() }
}
