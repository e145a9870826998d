import Foundation
import PhotonCore
import PhotonCrypto

/// The eight-digit code a HomeKit controller pairs with (`XXX-XX-XXX`), written on the
/// accessory's label — here shown by `photon homekit show`. HAP refuses trivial codes
/// (all one digit, 12345678, 87654321), and so does this type.
public struct HAPSetupCode: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The eight digits without dashes.
    public let digits: String

    /// Parses `518-08-582` or `51808582`; refuses anything else and the trivial codes.
    public init(_ text: String) throws {
        let digits = text.replacingOccurrences(of: "-", with: "")
        let dashed = text.contains("-")
        guard digits.utf8.count == 8, digits.utf8.allSatisfy({ (48...57).contains($0) }),
            !dashed || (text.utf8.count == 10 && Array(text)[3] == "-" && Array(text)[6] == "-")
        else {
            throw PhotonError(.usage, "a HomeKit setup code is eight digits, XXX-XX-XXX", hint: "for example 518-08-582")
        }
        guard !Self.isTrivial(digits) else {
            throw PhotonError(.usage, "HomeKit refuses the setup code \(text) (too easy to guess)", hint: "choose another, or let Photon pick one")
        }
        self.digits = digits
    }

    /// A random code, never a trivial one.
    public static func random() throws -> HAPSetupCode {
        while true {
            let bytes = try SecureRandom.bytes(8)
            let digits = String(bytes.map { Character(String($0 % 10)) })
            // 256 is not a multiple of 10: draw again where a byte would bias the digit.
            guard bytes.allSatisfy({ $0 < 250 }), !isTrivial(digits) else { continue }
            return try HAPSetupCode(digits)
        }
    }

    static func isTrivial(_ digits: String) -> Bool {
        Set(digits).count == 1 || digits == "12345678" || digits == "87654321"
    }

    /// `XXX-XX-XXX`, the password of pair-setup's SRP and what a user types.
    public var formatted: String {
        let d = Array(digits)
        return String(d[0..<3]) + "-" + String(d[3..<5]) + "-" + String(d[5..<8])
    }

    public var description: String { formatted }

    public init(from decoder: any Decoder) throws { try self.init(try decoder.singleValueContainer().decode(String.self)) }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(digits)
    }
}

/// What a controller reads from the accessory's label or QR code, and from its mDNS record.
public enum HAPSetupPayload {
    /// HAP's accessory categories Photon publishes.
    public static let televisionCategory = 31

    /// `X-HM://` + nine base-36 characters of (category ≪ 31 | flags ≪ 27 | code; flag 2 = IP) + the
    /// four-character setup id, as the Home app's QR scanner reads it.
    public static func uri(code: HAPSetupCode, setupID: String, category: Int = televisionCategory) -> String {
        // Flags (4 bits at 27): 2 = IP. Version 0, reserved 0.
        var value = UInt64(category) << 31 | UInt64(2) << 27 | UInt64(code.digits)!
        let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ")
        var encoded: [Character] = []
        while value > 0 {
            encoded.append(alphabet[Int(value % 36)])
            value /= 36
        }
        while encoded.count < 9 { encoded.append("0") }
        return "X-HM://" + String(encoded.reversed()) + setupID
    }

    /// A random setup id: four characters of 0–9 and A–Z.
    public static func randomSetupID() throws -> String {
        let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ")
        var id = ""
        while id.count < 4 {
            let byte = try SecureRandom.bytes(1)[0]
            guard byte < 252 else { continue }
            id.append(alphabet[Int(byte) % 36])
        }
        return id
    }

    /// A random device id, six bytes written as `AA:BB:CC:DD:EE:FF`.
    public static func randomDeviceID() throws -> String {
        try SecureRandom.bytes(6).map { String(format: "%02X", $0) }.joined(separator: ":")
    }

    /// The `sh` TXT value: base64 of the first four bytes of SHA-512(setupID ‖ deviceID),
    /// how a controller matches a scanned code to an announced accessory.
    public static func setupHash(setupID: String, deviceID: String) -> String {
        Data(Digest.sha512(Array((setupID + deviceID).utf8)).prefix(4)).base64EncodedString()
    }

    /// The `_hap._tcp` TXT record.
    public static func txtRecord(
        deviceID: String, model: String, configurationNumber: Int, paired: Bool, setupID: String, category: Int = televisionCategory
    ) -> [(key: String, value: String)] {
        [
            ("c#", String(configurationNumber)), ("ff", "0"), ("id", deviceID), ("md", model), ("pv", "1.1"), ("s#", "1"),
            ("sf", paired ? "0" : "1"), ("ci", String(category)), ("sh", setupHash(setupID: setupID, deviceID: deviceID)),
        ]
    }
}
