import AppleTV
import Foundation
import PhotonArguments
import PhotonCore
import PhotonCrypto
import PhotonEmulatorSupport

/// The emulated Apple TV as a registered emulator: its options and how it starts.
public struct AppleTVEmulatorPlugin: TVEmulator {
    public init() {}

    public var brand: String { "appletv" }
    public var summary: String {
        "an Apple TV (Companion): pair-setup with a PIN it prints, pair-verify with its long-term key, encrypted keys, text, volume, apps and power state"
    }
    public var options: [OptionSpec] {
        [
            OptionSpec("port", type: .listenPort, help: "the Companion port (default 49153; 0 picks a free one)"),
            OptionSpec("pin", type: .text, help: "the PIN pairing shows (default: a new random one each time, printed as pairing_code)"),
            OptionSpec("identifier", type: .text, help: "the Apple TV's pairing identifier (default AA:BB:CC:DD:EE:FF)"),
            OptionSpec("no-keyboard", help: "no text field is open: text-input sessions start empty, as with the keyboard down"),
            OptionSpec("no-volume", help: "control no volume (no HDMI-CEC or speakers): volume levels are refused"),
            OptionSpec(
                "misbehave", type: .choice(EmulatedAppleTV.Misbehaviour.allNames),
                help: "fail a proof or signature, take a new key, or after verifying send garbage or an oversize frame, or never answer"),
        ]
    }
    public var portOptions: [String: String] { ["port": "companion"] }

    public func start(_ settings: EmulatorSettings, onEvent: @escaping @Sendable (EmulatorEvent) -> Void) async throws -> any RunningEmulator {
        var configuration = EmulatedAppleTV.Configuration()
        configuration.host = settings.host
        configuration.port = settings.port("port") ?? configuration.port
        configuration.pin = settings.text("pin")
        configuration.identifier = settings.text("identifier") ?? configuration.identifier
        if let name = settings.name { configuration.name = name }
        configuration.keyboard = !settings.flag("no-keyboard")
        configuration.volumeControl = !settings.flag("no-volume")
        configuration.misbehaviour = settings.text("misbehave").flatMap(EmulatedAppleTV.Misbehaviour.init(rawValue:)) ?? .none
        return try EmulatedAppleTV.start(configuration, onEvent: onEvent)
    }
}

extension EmulatedAppleTV.Misbehaviour: CaseIterable {
    public static let allCases: [EmulatedAppleTV.Misbehaviour] = [
        .none, .wrongProof, .wrongSignature, .newKey, .garbage, .oversize, .silent, .plaintextEvent,
    ]
    static var allNames: [String] { allCases.map(\.rawValue) }
}

extension EmulatedAppleTV: RunningEmulator {
    public var ports: [String: UInt16] { ["companion": port] }
    /// The SHA-256 of its long-term key: what pairing stores as this brand's pin.
    public var certificateFingerprint: CertificateFingerprint? { try? CertificateFingerprint(bytes: Digest.sha256(longTermPublicKey)) }
    /// What tvOS announces (for trying `photon discover`).
    public var announcement: EmulatorAnnouncement {
        EmulatorAnnouncement(
            serviceType: "_companion-link._tcp", port: port,
            // rpFl 0x4000: pairs with a PIN; rpMRtID: the stable id pyatv keys a device by.
            txt: [
                "rpMd": configuration.model, "rpHN": configuration.name, "rpFl": "0x24000", "rpVr": "715.2",
                "rpMRtID": mediaRouteID,
            ],
            companions: [EmulatorAnnouncement(serviceType: "_device-info._tcp", port: 0, txt: ["model": configuration.model])])
    }
    public var pairingCodeEvent: String? { "pairing_code" }
    /// A UUID made from the pairing identifier, so it stays the same across restarts.
    var mediaRouteID: String {
        let hash = Digest.sha256(Array(configuration.identifier.utf8))
        let hex = Hex.encode(Array(hash.prefix(16))).uppercased()
        let parts = [hex.prefix(8), hex.dropFirst(8).prefix(4), hex.dropFirst(12).prefix(4), hex.dropFirst(16).prefix(4), hex.dropFirst(20)]
        return parts.map(String.init).joined(separator: "-")
    }
    public func rotateCertificate() async throws {
        try rotateKey()
        await dropConnections()
    }
    public func forgetClients() async {
        forgetControllers()
        await dropConnections()
    }
    public func sendMalformedMessage() async { await sendToAll(CompanionFrame.header(kind: 8, length: 20) + [UInt8](repeating: 0xEE, count: 20)) }
    public func sendOversizeMessage() async { await sendToAll(CompanionFrame.header(kind: 8, length: 0xFF_FFFF) + [1, 2, 3]) }
}
