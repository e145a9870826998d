/// Wake-on-LAN magic packets: 6 × 0xFF, then the MAC 16 times (102 bytes).
public enum WakeOnLAN {
    /// The standard ports: 9 (discard) and 7 (echo).
    public static let defaultPorts: [UInt16] = [9, 7]

    /// Parses a MAC written as 12 hex digits, `aa:bb:cc:dd:ee:ff` / `aa-bb-…`, or
    /// `aabb.ccdd.eeff`, into 6 bytes.
    public static func parseMAC(_ text: String) throws -> [UInt8] {
        guard let bytes = MACAddress.bytes(text) else {
            throw PhotonError(
                .usage, "'\(Redaction.sanitize(text))' is not a MAC address",
                hint: "write it as AA:BB:CC:DD:EE:FF (the TV's MAC is stored when you pair)")
        }
        guard bytes != [UInt8](repeating: 0, count: 6), bytes != [UInt8](repeating: 0xFF, count: 6) else {
            throw PhotonError(
                .usage, "\(Redaction.sanitize(text)) is not a device's MAC address", hint: "write the TV's own MAC as AA:BB:CC:DD:EE:FF")
        }
        return bytes
    }

    public static func magicPacket(mac: [UInt8]) throws -> [UInt8] {
        guard mac.count == 6 else { throw PhotonError(.usage, "a MAC address has 6 bytes, not \(mac.count)") }
        return [UInt8](repeating: 0xFF, count: 6) + Array([[UInt8]](repeating: mac, count: 16).joined())
    }

    public static func format(_ mac: [UInt8]) -> String {
        // Built by hand: `joined(separator:)` on the array of parts looks a conformance up
        // at run time, a scan of every conformance record (~40 µs of a cold key that reads
        // the TV's MAC).
        var text = ""
        text.reserveCapacity(mac.count * 3)
        for (index, byte) in mac.enumerated() {
            if index > 0 { text += ":" }
            text += hexByte(byte)
        }
        return text
    }
}

/// MAC addresses as people and TVs write them. Only ASCII hex digits count: Swift's
/// `Character.isHexDigit` also accepts fullwidth digits (`０`, `Ａ`), and a MAC comes from
/// the TV (certificate subject, REST `wifiMac`), so such text must never pass as a MAC.
public enum MACAddress {
    /// The 6 bytes of `aa:bb:cc:dd:ee:ff`, `aa-bb-…`, `aabb.ccdd.eeff` or 12 hex digits
    /// (one kind of separator throughout), or nil.
    public static func bytes(_ text: String) -> [UInt8]? {
        let chars = Array(text.trimmingSpaces.utf8)
        let digits: [UInt8]
        switch chars.count {
        case 12:
            digits = chars
        case 17:
            let separator = chars[2]
            guard separator == UInt8(ascii: ":") || separator == UInt8(ascii: "-"),
                [2, 5, 8, 11, 14].allSatisfy({ chars[$0] == separator })
            else { return nil }
            digits = chars.enumerated().filter { ($0.offset + 1) % 3 != 0 }.map(\.element)
        case 14:
            guard chars[4] == 46, chars[9] == 46 else { return nil }
            digits = chars.filter { $0 != 46 }
        default:
            return nil
        }
        guard digits.count == 12 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(6)
        for i in stride(from: 0, to: 12, by: 2) {
            guard let high = asciiHexValue(digits[i]), let low = asciiHexValue(digits[i + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }

    /// `AA:BB:CC:DD:EE:FF`, or nil for text that is not a MAC or is all zeros / all ones
    /// (placeholders some TVs report).
    public static func normalized(_ text: String) -> String? {
        guard let bytes = bytes(text), bytes != [UInt8](repeating: 0, count: 6), bytes != [UInt8](repeating: 0xFF, count: 6) else {
            return nil
        }
        return WakeOnLAN.format(bytes)
    }

    /// Whether `text` is shaped like a MAC (groups of one or two letters or digits
    /// joined by ':' or '-', three groups of four joined by '.', or 12 hex digits of any
    /// script), so a typo — a missing group, a 'G', fullwidth digits — is reported as a
    /// malformed MAC rather than as an unknown TV.
    public static func looksLikeAttempt(_ text: String) -> Bool {
        let trimmed = text.trimmingSpaces
        let isAlphanumeric: (Character) -> Bool = { $0.isLetter || $0.isNumber }
        for separator: Character in [":", "-"] where trimmed.contains(separator) {
            let groups = trimmed.split(separator: separator, omittingEmptySubsequences: false)
            return groups.count >= 4 && groups.count <= 8 && groups.allSatisfy { (1...2).contains($0.count) && $0.allSatisfy(isAlphanumeric) }
        }
        let dotted = trimmed.split(separator: ".", omittingEmptySubsequences: false)
        if dotted.count == 3 { return dotted.allSatisfy { $0.count == 4 && $0.allSatisfy(isAlphanumeric) && !$0.allSatisfy(\.isNumber) } }
        return trimmed.count == 12 && trimmed.allSatisfy(\.isHexDigit)
    }
}
