import Foundation
import PhotonArguments
import PhotonCore
import PhotonEmulatorSupport

/// The emulated Samsung TV as a registered emulator: its options and how it starts.
public struct SamsungEmulatorPlugin: TVEmulator {
    public init() {}

    public var brand: String { "samsung" }
    public var summary: String {
        "a Samsung Tizen TV: REST device info, the WebSocket remote channel, the \"Allow\" prompt, tokens; with --frame, The Frame's art mode"
    }
    public var options: [OptionSpec] {
        [
            OptionSpec("port", type: .listenPort, help: "the WSS port (default 8002; 0 picks a free one)"),
            OptionSpec("rest-port", type: .listenPort, help: "the REST and plain WebSocket port (default 8001)"),
            OptionSpec("accept", type: .choice(["auto", "deny", "timeout"]), help: "the user's answer to the on-screen prompt (default auto)"),
            OptionSpec("accept-delay", type: .seconds(0...3600), help: "seconds before that answer"),
            OptionSpec("token-auth", type: .choice(["true", "false"]), help: "whether it uses tokens (default true)"),
            OptionSpec("power", type: .choice(["on", "standby"]), help: "the PowerState it reports (default on)"),
            OptionSpec("ping-interval", type: .seconds(0.01...3600), help: "seconds between its pings (default 10)"),
            OptionSpec("frame", help: "a Frame: the art channel, art mode, KEY_POWER toggling art (held 2 s: off)"),
            OptionSpec("art-mode", help: "with --frame: start in art mode"),
            OptionSpec("art-api", type: .text, help: "with --frame: the art API version it reports (0.97: the older upload)"),
        ]
    }
    public var portOptions: [String: String] { ["port": "wss", "rest-port": "rest"] }

    public func start(_ settings: EmulatorSettings, onEvent: @escaping @Sendable (EmulatorEvent) -> Void) async throws -> any RunningEmulator {
        var configuration = EmulatedSamsungTV.Configuration()
        configuration.host = settings.host
        configuration.port = settings.port("port") ?? configuration.port
        configuration.restPort = settings.port("rest-port") ?? configuration.restPort
        configuration.name = settings.name ?? configuration.name
        configuration.mac = settings.mac ?? configuration.mac
        configuration.stateDirectory = settings.stateDirectory
        if let accept = settings.text("accept").flatMap(EmulatedSamsungTV.Accept.init(rawValue:)) { configuration.accept = accept }
        configuration.acceptDelay = settings.seconds("accept-delay") ?? configuration.acceptDelay
        if let auth = settings.text("token-auth") { configuration.tokenAuthSupport = auth != "false" }
        configuration.powerState = settings.text("power") ?? configuration.powerState
        configuration.pingInterval = settings.seconds("ping-interval") ?? configuration.pingInterval
        configuration.frame = settings.flag("frame")
        configuration.artMode = settings.flag("art-mode")
        configuration.artAPIVersion = settings.text("art-api") ?? configuration.artAPIVersion
        return try await EmulatedSamsungTV.start(configuration, onEvent: onEvent)
    }
}

extension EmulatedSamsungTV: RunningEmulator {
    public var ports: [String: UInt16] { ["wss": port, "rest": restPort] }
    public var certificateFingerprint: CertificateFingerprint? { fingerprint }
    public var announcement: EmulatorAnnouncement {
        EmulatorAnnouncement(
            serviceType: "_samsungmsf._tcp", port: restPort,
            txt: [
                "id": "uuid:0b7a3c1e-photon-emulated", "md": configuration.modelName, "fn": configuration.name,
                "se": "http://\(configuration.host):\(restPort)/api/v2/", "wss": String(port),
            ])
    }
    public var pairingCodeEvent: String? { nil }
    /// The user removes Photon from the Device List and denies it from then on.
    public func forgetClients() async {
        setAccept(.deny)
        revokeTokens()
    }
    public func sendMalformedMessage() async { await misbehave(.malformedFrame) }
    public func sendOversizeMessage() async { await misbehave(.oversizeFrame) }
    public func dropConnections() async { await misbehave(.drop) }
}
