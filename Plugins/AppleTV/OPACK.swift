import Foundation
import PhotonCore
import PhotonCrypto

/// Apple's OPACK object encoding, which Companion messages use: small integers inline,
/// strings and data with their length in the tag or after it, arrays and dictionaries with
/// a count (or an end marker past 14 items), and back-references to values already seen.
/// A value is a tree of these cases; dictionaries keep their order.
public indirect enum OPACK: Sendable, Equatable, CustomStringConvertible {
    case bool(Bool)
    case null
    case uuid([UInt8])
    /// Integers; the encoder writes the smallest form.
    case int(Int64)
    case double(Double)
    case string(String)
    case data([UInt8])
    case array([OPACK])
    case dictionary([(key: OPACK, value: OPACK)])

    public static func == (a: OPACK, b: OPACK) -> Bool {
        switch (a, b) {
        case (.bool(let x), .bool(let y)): return x == y
        case (.null, .null): return true
        case (.uuid(let x), .uuid(let y)): return x == y
        case (.int(let x), .int(let y)): return x == y
        case (.double(let x), .double(let y)): return x == y || (x.isNaN && y.isNaN)
        case (.string(let x), .string(let y)): return x == y
        case (.data(let x), .data(let y)): return x == y
        case (.array(let x), .array(let y)): return x == y
        case (.dictionary(let x), .dictionary(let y)):
            return x.count == y.count && zip(x, y).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        default: return false
        }
    }

    /// A dictionary with string keys, in the given order.
    public static func object(_ fields: [(String, OPACK)]) -> OPACK { .dictionary(fields.map { (.string($0.0), $0.1) }) }

    /// The value under a string key of a dictionary.
    public subscript(key: String) -> OPACK? {
        guard case .dictionary(let fields) = self else { return nil }
        return fields.first { $0.key == .string(key) }?.value
    }

    public var stringValue: String? { if case .string(let s) = self { return s } else { return nil } }
    public var intValue: Int64? { if case .int(let i) = self { return i } else { return nil } }
    public var dataValue: [UInt8]? { if case .data(let d) = self { return d } else { return nil } }
    public var arrayValue: [OPACK]? { if case .array(let a) = self { return a } else { return nil } }
    public var doubleValue: Double? {
        switch self {
        case .double(let d): return d
        case .int(let i): return Double(i)
        default: return nil
        }
    }
    public var boolValue: Bool? { if case .bool(let b) = self { return b } else { return nil } }

    public var description: String {
        switch self {
        case .bool(let b): return b ? "true" : "false"
        case .null: return "null"
        case .uuid(let u): return "uuid(\(Hex.encode(u)))"
        case .int(let i): return String(i)
        case .double(let d): return String(d)
        case .string(let s): return "\"\(Redaction.sanitize(s))\""
        case .data(let d): return "<\(d.count) bytes>"
        case .array(let items): return "[" + items.map(\.description).joined(separator: ", ") + "]"
        case .dictionary(let fields): return "{" + fields.map { "\($0.key): \($0.value)" }.joined(separator: ", ") + "}"
        }
    }
}

// MARK: encoding

extension OPACK {
    /// The encoded bytes. A string, data, UUID, float or non-inline integer met again is
    /// written as a reference to its first occurrence (indexes count those values only, in
    /// the order they were first written, as a decoder builds its table).
    public var encoded: [UInt8] {
        var table: [OPACKReader.TableKey: Int] = [:]
        var out: [UInt8] = []
        Self.encode(self, into: &out, table: &table)
        return out
    }

    /// `table`: each value written so far that a reference may point at, with its index
    /// (found in constant time, so encoding is linear too).
    private static func encode(_ value: OPACK, into out: inout [UInt8], table: inout [OPACKReader.TableKey: Int]) {
        switch value {
        case .bool(let b): out.append(b ? 0x01 : 0x02)
        case .null: out.append(0x04)
        case .int(let i) where (0..<0x28).contains(i): out.append(UInt8(i) + 8)
        case .array(let items):
            out.append(0xD0 + UInt8(min(items.count, 0xF)))
            for item in items { encode(item, into: &out, table: &table) }
            if items.count >= 0xF { out.append(0x03) }
        case .dictionary(let fields):
            out.append(0xE0 + UInt8(min(fields.count, 0xF)))
            for field in fields {
                encode(field.key, into: &out, table: &table)
                encode(field.value, into: &out, table: &table)
            }
            if fields.count >= 0xF { out.append(0x03) }
        default:
            guard let key = OPACKReader.TableKey(value) else {
                out += literal(value)
                return
            }
            if let index = table[key] {
                out += reference(index)
                return
            }
            table[key] = table.count
            out += literal(value)
        }
    }

    private static func reference(_ index: Int) -> [UInt8] {
        switch index {
        case 0...0x20: return [0xA0 + UInt8(index)]
        case 0...0xFF: return [0xC1, UInt8(index)]
        case 0...0xFFFF: return [0xC2] + littleEndian(UInt64(index), 2)
        case 0...0xFF_FFFF: return [0xC3] + littleEndian(UInt64(index), 3)
        default: return [0xC4] + littleEndian(UInt64(index), 4)
        }
    }

    private static func literal(_ value: OPACK) -> [UInt8] {
        switch value {
        case .uuid(let bytes): return [0x05] + bytes.prefix(16) + [UInt8](repeating: 0, count: max(0, 16 - bytes.count))
        case .int(let i):
            if i < 0 { return [0x33] + littleEndian(UInt64(bitPattern: i), 8) }
            let u = UInt64(i)
            switch u {
            case 0...0xFF: return [0x30, UInt8(u)]
            case 0...0xFFFF: return [0x31] + littleEndian(u, 2)
            case 0...0xFFFF_FFFF: return [0x32] + littleEndian(u, 4)
            default: return [0x33] + littleEndian(u, 8)
            }
        case .double(let d): return [0x36] + littleEndian(d.bitPattern, 8)
        case .string(let s):
            let bytes = Array(s.utf8)
            return sized(bytes, inlineBase: 0x40, inlineLimit: 0x20, lengthTags: [(0x61, 1), (0x62, 2), (0x63, 3), (0x64, 4)])
        case .data(let bytes):
            return sized(bytes, inlineBase: 0x70, inlineLimit: 0x20, lengthTags: [(0x91, 1), (0x92, 2), (0x93, 4), (0x94, 8)])
        default: return []
        }
    }

    private static func sized(_ bytes: [UInt8], inlineBase: UInt8, inlineLimit: Int, lengthTags: [(UInt8, Int)]) -> [UInt8] {
        if bytes.count <= inlineLimit { return [inlineBase + UInt8(bytes.count)] + bytes }
        for (tag, width) in lengthTags where width >= 8 || bytes.count < 1 << (8 * width) {
            return [tag] + littleEndian(UInt64(bytes.count), width) + bytes
        }
        return []
    }

    static func littleEndian(_ value: UInt64, _ width: Int) -> [UInt8] { (0..<width).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
}

// MARK: decoding

extension OPACK {
    /// Decodes one value that fills `bytes` exactly; malformed, truncated, too deep or too
    /// large input is a `protocolViolation`.
    public static func decode(_ bytes: [UInt8], maximumDepth: Int = 32) throws -> OPACK {
        var reader = OPACKReader(bytes: bytes, maximumDepth: maximumDepth)
        let value = try reader.value(depth: 0)
        guard reader.position == bytes.count else {
            throw PhotonError(.protocolViolation, "an OPACK message has \(bytes.count - reader.position) bytes after its value")
        }
        return value
    }
}

struct OPACKReader {
    let bytes: [UInt8]
    let maximumDepth: Int
    var position = 0
    var table: [OPACK] = []
    /// The values in `table`, to find one in constant time: a frame of many distinct
    /// strings must decode in time linear in its length (round 4, M3: a linear search
    /// here let one 196 KB frame keep a process busy for a minute).
    var remembered: Set<TableKey> = []
    /// Values decoded so far (references count too), so a small input cannot expand into
    /// an enormous tree.
    var produced = 0
    static let maximumValues = 100_000

    init(bytes: [UInt8], maximumDepth: Int) {
        self.bytes = bytes
        self.maximumDepth = maximumDepth
    }

    static func bad(_ message: String) -> PhotonError { PhotonError(.protocolViolation, "malformed OPACK: \(message)") }

    mutating func take(_ count: Int) throws -> ArraySlice<UInt8> {
        guard count >= 0, count <= bytes.count - position else { throw Self.bad("truncated") }
        defer { position += count }
        return bytes[position..<(position + count)]
    }

    mutating func integer(_ width: Int) throws -> UInt64 {
        try take(width).reversed().reduce(0) { $0 << 8 | UInt64($1) }
    }

    mutating func value(depth: Int) throws -> OPACK {
        guard depth <= maximumDepth else { throw Self.bad("nested deeper than \(maximumDepth)") }
        produced += 1
        guard produced <= Self.maximumValues else { throw Self.bad("more than \(Self.maximumValues) values") }
        let tag = try take(1).first!
        var remember = true
        let value: OPACK
        switch tag {
        case 0x01: (value, remember) = (.bool(true), false)
        case 0x02: (value, remember) = (.bool(false), false)
        case 0x04: (value, remember) = (.null, false)
        case 0x05: value = .uuid(Array(try take(16)))
        case 0x06: value = .int(Int64(bitPattern: try integer(8)))
        case 0x08...0x2F: (value, remember) = (.int(Int64(tag) - 8), false)
        case 0x30...0x33:
            let raw = try integer(1 << Int(tag & 0x0F))
            value = .int(tag == 0x33 ? Int64(bitPattern: raw) : Int64(raw))
        case 0x35: value = .double(Double(Float(bitPattern: UInt32(try integer(4)))))
        case 0x36: value = .double(Double(bitPattern: try integer(8)))
        case 0x40...0x60: value = try string(Int(tag - 0x40))
        case 0x61...0x64: value = try string(Int(try integer(Int(tag & 0x0F))))
        case 0x70...0x90: value = .data(Array(try take(Int(tag - 0x70))))
        case 0x91...0x94:
            let length = try integer(1 << Int((tag & 0x0F) - 1))
            guard length <= UInt64(bytes.count) else { throw Self.bad("a data length past the message") }
            value = .data(Array(try take(Int(length))))
        case 0xA0...0xC0: (value, remember) = (try referenced(Int(tag - 0xA0)), false)
        case 0xC1...0xC4: (value, remember) = (try referenced(Int(try integer(Int(tag - 0xC0)))), false)
        case 0xD0...0xDF:
            var items: [OPACK] = []
            if tag == 0xDF {
                while try peek() != 0x03 { items.append(try self.value(depth: depth + 1)) }
                position += 1
            } else {
                for _ in 0..<Int(tag & 0x0F) { items.append(try self.value(depth: depth + 1)) }
            }
            (value, remember) = (.array(items), false)
        case 0xE0...0xEF:
            var fields: [(key: OPACK, value: OPACK)] = []
            if tag == 0xEF {
                while try peek() != 0x03 { fields.append((try self.value(depth: depth + 1), try self.value(depth: depth + 1))) }
                position += 1
            } else {
                for _ in 0..<Int(tag & 0x0F) { fields.append((try self.value(depth: depth + 1), try self.value(depth: depth + 1))) }
            }
            (value, remember) = (.dictionary(fields), false)
        default: throw Self.bad("unknown tag 0x\(String(tag, radix: 16))")
        }
        if remember, let key = TableKey(value), remembered.insert(key).inserted { table.append(value) }
        return value
    }

    /// A value the table remembers (the leaves: uuids, integers, doubles, strings, data),
    /// equal exactly when the values are `==`.
    enum TableKey: Hashable {
        case uuid([UInt8])
        case int(Int64)
        case double(UInt64)
        case string(String)
        case data([UInt8])

        init?(_ value: OPACK) {
            switch value {
            case .uuid(let bytes): self = .uuid(bytes)
            case .int(let n): self = .int(n)
            // -0 equals 0 and every NaN equals every NaN, as `OPACK.==` says.
            case .double(let d): self = .double(d.isNaN ? Double.nan.bitPattern : d == 0 ? 0 : d.bitPattern)
            case .string(let text): self = .string(text)
            case .data(let bytes): self = .data(bytes)
            case .bool, .null, .array, .dictionary: return nil
            }
        }
    }

    func peek() throws -> UInt8 {
        guard position < bytes.count else { throw Self.bad("a list or dictionary without its end") }
        return bytes[position]
    }

    mutating func string(_ length: Int) throws -> OPACK {
        guard let text = String(validating: try take(length), as: UTF8.self) else { throw Self.bad("a string that is not UTF-8") }
        return .string(text)
    }

    func referenced(_ index: Int) throws -> OPACK {
        guard index < table.count else { throw Self.bad("a reference to value \(index) of \(table.count)") }
        return table[index]
    }
}
