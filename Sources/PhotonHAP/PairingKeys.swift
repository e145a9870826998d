import PhotonCrypto

/// The HKDF-SHA512 labels of HomeKit pairing, in one place for both sides (the Apple TV
/// adapter as a controller; the emulated Apple TV and the HomeKit door as accessories).
public enum PairingKeys {
    /// (salt, info) pairs.
    public static let setupEncrypt = ("Pair-Setup-Encrypt-Salt", "Pair-Setup-Encrypt-Info")
    public static let controllerSign = ("Pair-Setup-Controller-Sign-Salt", "Pair-Setup-Controller-Sign-Info")
    public static let accessorySign = ("Pair-Setup-Accessory-Sign-Salt", "Pair-Setup-Accessory-Sign-Info")
    public static let verifyEncrypt = ("Pair-Verify-Encrypt-Salt", "Pair-Verify-Encrypt-Info")
    /// HAP's session keys after pair-verify: the controller writes with one, reads with
    /// the other.
    public static let controllerToAccessory = ("Control-Salt", "Control-Write-Encryption-Key")
    public static let accessoryToController = ("Control-Salt", "Control-Read-Encryption-Key")
    /// The SRP user name of pair-setup.
    public static let username = "Pair-Setup"

    public static func derive(_ secret: [UInt8], _ labels: (String, String)) throws -> [UInt8] {
        try HKDF.sha512(secret: secret, salt: labels.0, info: labels.1)
    }
}
