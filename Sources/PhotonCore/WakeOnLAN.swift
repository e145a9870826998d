/// Wake-on-LAN magic packets: 6 × 0xFF, then the MAC 16 times (102 bytes).
public enum WakeOnLAN {
    /// The standard ports: 9 (discard) and 7 (echo).
    public static let defaultPorts: [UInt16] = [9, 7]

    /// Parses a MAC written as 12 hex digits, `aa:bb:cc:dd:ee:ff` / `aa-bb-…`, or
    /// `aabb.ccdd.eeff`, into 6 bytes.
    public static func parseMAC(_ text: String) throws -> [UInt8] {
        let trimmed = text.trimmingSpaces
        let chars = Array(trimmed)
        var hex = ""
        switch chars.count {
        case 12: hex = trimmed
        case 17 where [2, 5, 8, 11, 14].allSatisfy({ chars[$0] == ":" || chars[$0] == "-" }) && Set([2, 5, 8, 11, 14].map { chars[$0] }).count == 1:
            hex = trimmed.filter { $0 != ":" && $0 != "-" }
        case 14 where chars[4] == "." && chars[9] == ".":
            hex = trimmed.filter { $0 != "." }
        default: break
        }
        guard hex.count == 12, hex.allSatisfy(\.isHexDigit) else {
            throw PhotonError(
                .usage, "'\(Redaction.sanitize(text))' is not a MAC address",
                hint: "write it as AA:BB:CC:DD:EE:FF (the TV's MAC is stored when you pair)")
        }
        var bytes: [UInt8] = []
        var index = hex.startIndex
        for _ in 0..<6 {
            let next = hex.index(index, offsetBy: 2)
            bytes.append(UInt8(hex[index..<next], radix: 16)!)
            index = next
        }
        guard bytes != [UInt8](repeating: 0, count: 6), bytes != [UInt8](repeating: 0xFF, count: 6) else {
            throw PhotonError(.usage, "\(text) is not a device's MAC address")
        }
        return bytes
    }

    public static func magicPacket(mac: [UInt8]) -> [UInt8] {
        precondition(mac.count == 6, "a MAC has 6 bytes")
        return [UInt8](repeating: 0xFF, count: 6) + Array([[UInt8]](repeating: mac, count: 16).joined())
    }

    public static func format(_ mac: [UInt8]) -> String { mac.map { hexByte($0) }.joined(separator: ":") }
}
