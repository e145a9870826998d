/// DNS-SD TXT records (RFC 6763 §6) decoded into key/value pairs, with the limits a
/// record from anyone on the network needs: at most 64 entries, entries up to 255 bytes
/// (one length byte), keys of printable ASCII without '=', the first occurrence of a key
/// kept, values sanitised for display. Pure, so the discovery layer and the fuzzer use
/// the same code.
public enum MDNSTXT {
    public static let maximumEntries = 64

    /// Decodes entries as the resolver hands them over (each `key=value` or `key`).
    public static func decode(entries: [[UInt8]]) -> [String: String] {
        var records: [String: String] = [:]
        for entry in entries.prefix(maximumEntries) where !entry.isEmpty && entry.count <= 255 {
            let equals = entry.firstIndex(of: 0x3D) ?? entry.endIndex
            let keyBytes = entry[..<equals]
            // RFC 6763 §6.4: printable US-ASCII (0x20–0x7E) without '='; an entry without a
            // key is ignored.
            guard !keyBytes.isEmpty, keyBytes.count <= 64, keyBytes.allSatisfy({ (0x20...0x7E).contains($0) }) else { continue }
            let key = String(decoding: keyBytes, as: UTF8.self).lowercased()
            guard records[key] == nil else { continue }
            let value = equals < entry.endIndex ? entry[(equals + 1)...] : []
            records[key] = Redaction.sanitize(String(decoding: value, as: UTF8.self), limit: 255)
        }
        return records
    }

    /// Decodes a TXT record's wire form: a sequence of length-prefixed strings. A
    /// length that runs past the end ends the record there.
    public static func decode(wire: [UInt8]) -> [String: String] {
        var entries: [[UInt8]] = []
        var index = 0
        while index < wire.count, entries.count < maximumEntries {
            let length = Int(wire[index])
            index += 1
            guard length <= wire.count - index else { break }
            entries.append(Array(wire[index..<(index + length)]))
            index += length
        }
        return decode(entries: entries)
    }
}
