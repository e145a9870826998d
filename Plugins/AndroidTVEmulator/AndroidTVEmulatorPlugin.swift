import Foundation
import PhotonArguments
import PhotonCore
import PhotonEmulatorSupport

/// The emulated Android TV as a registered emulator: its options and how it starts.
public struct AndroidTVEmulatorPlugin: TVEmulator {
    public init() {}

    public var brand: String { "androidtv" }
    public var summary: String { "an Android TV (Remote v2): pairing with a code, keys, text, launch, voice, status" }
    public var options: [OptionSpec] {
        [
            OptionSpec("port", type: .listenPort, help: "the remote port (default 6466; 0 picks a free one)"),
            OptionSpec("pairing-port", type: .listenPort, help: "the pairing port (default: port + 1)"),
            OptionSpec("features", type: .integer(0...Int(Int32.max)), help: "the feature mask it offers (639 = everything)"),
            OptionSpec("ping-interval", type: .seconds(0.01...3600), help: "seconds between its pings (default 5)"),
        ]
    }
    public var portOptions: [String: String] { ["port": "remote", "pairing-port": "pairing"] }

    public func start(_ settings: EmulatorSettings, onEvent: @escaping @Sendable (EmulatorEvent) -> Void) async throws -> any RunningEmulator {
        var configuration = EmulatedAndroidTV.Configuration()
        configuration.host = settings.host
        configuration.remotePort = settings.port("port") ?? configuration.remotePort
        configuration.pairingPort = settings.port("pairing-port")
        configuration.name = settings.name ?? configuration.name
        configuration.mac = settings.mac ?? configuration.mac
        configuration.stateDirectory = settings.stateDirectory
        if let mask = settings.integer("features") { configuration.features = Int32(clamping: mask) }
        configuration.pingInterval = settings.seconds("ping-interval") ?? configuration.pingInterval
        return try await EmulatedAndroidTV.start(configuration, onEvent: onEvent)
    }
}

extension EmulatedAndroidTV: RunningEmulator {
    public var ports: [String: UInt16] { ["remote": remotePort, "pairing": pairingPort] }
    public var certificateFingerprint: CertificateFingerprint? { fingerprint }
    public var announcement: EmulatorAnnouncement {
        EmulatorAnnouncement(serviceType: "_androidtvremote2._tcp", port: remotePort, txt: ["bt": configuration.mac])
    }
    public var pairingCodeEvent: String? { "pairing_code" }
    public func forgetClients() async { unpairAll() }
    public func sendMalformedMessage() async { await misbehaveNow(.malformedFrames) }
    public func sendOversizeMessage() async { await misbehaveNow(.oversizeFrames) }
    public func dropConnections() async { try? await restart() }
}
