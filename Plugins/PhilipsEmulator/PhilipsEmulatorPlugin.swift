import Foundation
import PhotonArguments
import PhotonCore
import PhotonEmulatorSupport

/// The emulated Philips Android TV as a registered emulator: its options and how it starts.
public struct PhilipsEmulatorPlugin: TVEmulator {
    public init() {}

    public var brand: String { "philips" }
    public var summary: String {
        "a Philips Android TV (JointSpace 6 over HTTPS with Digest): PIN pairing, keys, apps, sources, channels, volume, power, Ambilight, notifychange"
    }
    public var options: [OptionSpec] {
        [
            OptionSpec("port", type: .listenPort, help: "the API's HTTPS port (default 1926; 0 picks a free one)"),
            OptionSpec("http-port", type: .listenPort, help: "the plain port that serves system (default 1925; 0 picks a free one)"),
            OptionSpec("serial", type: .text, help: "the serial number it reports (encrypted, as real TVs send it)"),
            OptionSpec("pin", type: .text, help: "show this PIN instead of a random one"),
            OptionSpec("power", type: .choice(["on", "standby"]), help: "the power it starts in (default on)"),
            OptionSpec("no-network-standby", help: "in standby, answer nothing (\"switch on with Wi-Fi\" off): only Wake-on-LAN wakes it"),
            OptionSpec("https-only-system", help: "newer firmware: system only on HTTPS, an empty 200 on the plain port"),
            OptionSpec("notify-hold", type: .text, help: "seconds a notifychange is held when nothing changes (default 30)"),
            OptionSpec(
                "misbehave", type: .choice(["none", "slow", "garbage", "huge", "close"]),
                help: "answer slowly, with garbage JSON, with huge bodies, or close without answering"),
        ]
    }
    public var portOptions: [String: String] { ["port": "https", "http-port": "http"] }

    public func start(_ settings: EmulatorSettings, onEvent: @escaping @Sendable (EmulatorEvent) -> Void) async throws -> any RunningEmulator {
        var configuration = EmulatedPhilips.Configuration()
        configuration.host = settings.host
        configuration.httpsPort = settings.port("port") ?? configuration.httpsPort
        configuration.httpPort = settings.port("http-port") ?? configuration.httpPort
        configuration.serial = settings.text("serial") ?? configuration.serial
        configuration.standby = settings.text("power") == "standby"
        configuration.networkInStandby = !settings.flag("no-network-standby")
        configuration.systemOnHTTPSOnly = settings.flag("https-only-system")
        configuration.notifyHold = settings.seconds("notify-hold") ?? configuration.notifyHold
        configuration.stateDirectory = settings.stateDirectory
        if let pin = settings.text("pin") {
            guard pin.count == 4, pin.allSatisfy(\.isNumber) else { throw PhotonError(.usage, "--pin takes 4 digits") }
            configuration.pin = pin
        }
        let tv = try EmulatedPhilips.start(configuration, onEvent: onEvent)
        if let m = settings.text("misbehave").flatMap(EmulatedPhilips.Misbehaviour.init(rawValue:)) { tv.misbehave(m) }
        return tv
    }
}

extension EmulatedPhilips: RunningEmulator {
    public var ports: [String: UInt16] { ["https": httpsPort, "http": httpPort] }
    public var certificateFingerprint: CertificateFingerprint? { fingerprint }
    public var announcement: EmulatorAnnouncement {
        EmulatorAnnouncement(serviceType: "_philipstv_s_rpc._tcp", port: httpsPort, txt: ["name": "Photon Emulated Philips"])
    }
    public var pairingCodeEvent: String? { "pin" }
    public func forgetClients() async { forgetPairings() }
    public func sendMalformedMessage() async { misbehaveOnce(.garbage) }
    public func sendOversizeMessage() async { misbehaveOnce(.huge) }
    public func dropConnections() async { await goAway() }
}
