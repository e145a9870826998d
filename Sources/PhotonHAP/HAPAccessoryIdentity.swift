import PhotonCore
import PhotonCrypto

/// A controller paired with an accessory: its identifier exactly as it sent it (iOS sends
/// upper case), its long-term Ed25519 key, and whether it may manage pairings.
public struct HAPPairing: Sendable, Codable, Equatable {
    public var id: String
    public var publicKey: [UInt8]
    public var isAdmin: Bool

    public init(id: String, publicKey: [UInt8], isAdmin: Bool) {
        self.id = id
        self.publicKey = publicKey
        self.isAdmin = isAdmin
    }
}

/// Everything that makes one accessory the same across restarts, all of it secret but
/// the device id: its long-term key, its setup code and setup id, its configuration
/// number and the controllers paired with it. Stored 0600 by the door; never logged.
public struct HAPAccessoryIdentity: Sendable, Codable, Equatable {
    /// `AA:BB:CC:DD:EE:FF`, random and stable (the mDNS `id`).
    public var deviceID: String
    /// The Ed25519 private key (32 bytes).
    public var signingKey: [UInt8]
    public var setupCode: HAPSetupCode
    public var setupID: String
    /// `c#`: bumped when the accessory's structure changes (1…65535).
    public var configurationNumber: Int
    public var pairings: [HAPPairing]

    public init(
        deviceID: String, signingKey: [UInt8], setupCode: HAPSetupCode, setupID: String, configurationNumber: Int = 1, pairings: [HAPPairing] = []
    ) {
        self.deviceID = deviceID
        self.signingKey = signingKey
        self.setupCode = setupCode
        self.setupID = setupID
        self.configurationNumber = configurationNumber
        self.pairings = pairings
    }

    /// A new accessory: new id, keys and code, nobody paired.
    public static func fresh(setupCode: HAPSetupCode? = nil) throws -> HAPAccessoryIdentity {
        HAPAccessoryIdentity(
            deviceID: try HAPSetupPayload.randomDeviceID(), signingKey: try Ed25519PrivateKey().rawRepresentation,
            setupCode: try setupCode ?? HAPSetupCode.random(), setupID: try HAPSetupPayload.randomSetupID())
    }

    public var isPaired: Bool { !pairings.isEmpty }

    public var setupURI: String { HAPSetupPayload.uri(code: setupCode, setupID: setupID) }

    /// The next configuration number, wrapping from 65535 to 1.
    public mutating func bumpConfiguration() { configurationNumber = configurationNumber >= 65_535 ? 1 : configurationNumber + 1 }
}
