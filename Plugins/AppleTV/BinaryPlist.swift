import PhotonCore

/// A value of Apple's binary property list (`bplist00`). The Apple TV's text-input session
/// carries NSKeyedArchiver archives in this format, and Foundation on Linux can read it but
/// not write it, so Photon has its own small codec: what the archives need (no dates in
/// them, no sets) plus enough of the rest to read whatever a TV sends without failing.
public indirect enum PlistValue: Sendable, Equatable {
    case bool(Bool)
    case int(Int64)
    case real(Double)
    /// Seconds since 2001-01-01 (Apple's reference date).
    case date(Double)
    case string(String)
    case data([UInt8])
    /// A reference into an NSKeyedArchiver archive's `$objects`.
    case uid(UInt64)
    case array([PlistValue])
    /// Keys in the order they were written (archives are compared by content, not order).
    case dictionary([PlistEntry])

    public subscript(key: String) -> PlistValue? {
        guard case .dictionary(let entries) = self else { return nil }
        return entries.first { $0.key == key }?.value
    }

    public var stringValue: String? { if case .string(let s) = self { return s } else { return nil } }
    public var dataValue: [UInt8]? { if case .data(let d) = self { return d } else { return nil } }
    public var uidValue: UInt64? { if case .uid(let u) = self { return u } else { return nil } }
    public var arrayValue: [PlistValue]? { if case .array(let a) = self { return a } else { return nil } }

    /// A dictionary from pairs, in order.
    public static func dictionary(_ pairs: KeyValuePairs<String, PlistValue>) -> PlistValue {
        .dictionary(pairs.map { PlistEntry(key: $0.key, value: $0.value) })
    }
}

extension PlistValue: ExpressibleByStringLiteral {
    public init(stringLiteral value: String) { self = .string(value) }
}

/// One key and value of a `PlistValue.dictionary`.
public struct PlistEntry: Sendable, Equatable {
    public var key: String
    public var value: PlistValue
    public init(key: String, value: PlistValue) {
        self.key = key
        self.value = value
    }
}

/// Writes and reads `bplist00`. Reading takes untrusted bytes: every count and offset is
/// checked against the input, references may not loop, nesting and the number of values
/// read are bounded (a small archive whose objects share children cannot expand without
/// limit), and every failure is a `protocolViolation` that says what was wrong.
public enum BinaryPlist {
    /// The deepest nesting read (NSKeyedArchiver archives are flat: three or four levels).
    public static let maximumDepth = 32
    /// The most values one read produces, shared children counted each time they are met.
    public static let maximumValues = 20_000

    // MARK: writing

    /// The value as a binary property list. Objects are not shared (each value is written
    /// where it occurs), which every reader accepts.
    public static func encode(_ top: PlistValue) -> [UInt8] {
        var objects: [PlistValue] = []
        var children: [[Int]] = []
        // Numbering: each value gets the next index, its children after it (depth first).
        func number(_ value: PlistValue) -> Int {
            let index = objects.count
            objects.append(value)
            children.append([])
            switch value {
            case .array(let items): children[index] = items.map { number($0) }
            case .dictionary(let entries):
                let keys = entries.map { number(.string($0.key)) }
                let values = entries.map { number($0.value) }
                children[index] = keys + values
            default: break
            }
            return index
        }
        _ = number(top)
        let referenceSize = byteCount(UInt64(objects.count - 1))
        var out: [UInt8] = Array("bplist00".utf8)
        var offsets: [Int] = []
        for (index, value) in objects.enumerated() {
            offsets.append(out.count)
            out += encodeObject(value, children: children[index], referenceSize: referenceSize)
        }
        let tableStart = out.count
        let offsetSize = byteCount(UInt64(tableStart))
        for offset in offsets { out += bigEndian(UInt64(offset), size: offsetSize) }
        out += [0, 0, 0, 0, 0, 0, UInt8(offsetSize), UInt8(referenceSize)]
        out += bigEndian(UInt64(objects.count), size: 8) + bigEndian(0, size: 8) + bigEndian(UInt64(tableStart), size: 8)
        return out
    }

    private static func encodeObject(_ value: PlistValue, children: [Int], referenceSize: Int) -> [UInt8] {
        func references() -> [UInt8] { children.flatMap { bigEndian(UInt64($0), size: referenceSize) } }
        switch value {
        case .bool(let b): return [b ? 0x09 : 0x08]
        case .int(let i): return encodeInteger(i)
        case .real(let d): return [0x23] + bigEndian(d.bitPattern, size: 8)
        case .date(let d): return [0x33] + bigEndian(d.bitPattern, size: 8)
        case .data(let bytes): return header(0x40, count: bytes.count) + bytes
        case .string(let s):
            if s.utf8.allSatisfy({ $0 < 0x80 }) { return header(0x50, count: s.utf8.count) + Array(s.utf8) }
            let units = Array(s.utf16)
            return header(0x60, count: units.count) + units.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        case .uid(let u):
            let size = byteCount(u)
            return [0x80 | UInt8(size - 1)] + bigEndian(u, size: size)
        case .array: return header(0xA0, count: children.count) + references()
        case .dictionary: return header(0xD0, count: children.count / 2) + references()
        }
    }

    /// Non-negative integers in the fewest of 1, 2, 4 bytes; the rest (and negatives, as
    /// two's complement) in 8.
    private static func encodeInteger(_ i: Int64) -> [UInt8] {
        switch i {
        case 0...0xFF: return [0x10, UInt8(i)]
        case 0x100...0xFFFF: return [0x11] + bigEndian(UInt64(i), size: 2)
        case 0x1_0000...0xFFFF_FFFF: return [0x12] + bigEndian(UInt64(i), size: 4)
        default: return [0x13] + bigEndian(UInt64(bitPattern: i), size: 8)
        }
    }

    private static func header(_ marker: UInt8, count: Int) -> [UInt8] {
        count < 15 ? [marker | UInt8(count)] : [marker | 0x0F] + encodeInteger(Int64(count))
    }

    /// 1, 2, 4 or 8: the bytes `value` needs.
    private static func byteCount(_ value: UInt64) -> Int {
        value <= 0xFF ? 1 : value <= 0xFFFF ? 2 : value <= 0xFFFF_FFFF ? 4 : 8
    }

    private static func bigEndian(_ value: UInt64, size: Int) -> [UInt8] {
        (0..<size).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64(size - 1 - $0))) }
    }

    // MARK: reading

    /// The value a binary property list holds.
    public static func decode(_ bytes: [UInt8]) throws -> PlistValue {
        var reader = try Reader(bytes)
        return try reader.value(at: reader.top, depth: 0)
    }

    static func failure(_ what: String) -> PhotonError {
        PhotonError(.protocolViolation, "the Apple TV sent a malformed binary property list: \(what)")
    }

    private struct Reader {
        let bytes: [UInt8]
        let offsetSize: Int
        let referenceSize: Int
        let count: Int
        let top: Int
        let tableStart: Int
        var produced = 0
        var path: Set<Int> = []

        init(_ bytes: [UInt8]) throws {
            guard bytes.count >= 8 + 32, bytes.starts(with: Array("bplist00".utf8)) else {
                throw BinaryPlist.failure("it does not start with bplist00 or is too short")
            }
            self.bytes = bytes
            let trailer = bytes.count - 32
            offsetSize = Int(bytes[trailer + 6])
            referenceSize = Int(bytes[trailer + 7])
            guard [1, 2, 4, 8].contains(offsetSize), [1, 2, 4, 8].contains(referenceSize) else {
                throw BinaryPlist.failure("offset size \(offsetSize) or reference size \(referenceSize)")
            }
            let count = Self.unsigned(bytes[(trailer + 8)..<(trailer + 16)])
            let top = Self.unsigned(bytes[(trailer + 16)..<(trailer + 24)])
            let tableStart = Self.unsigned(bytes[(trailer + 24)..<(trailer + 32)])
            // Every object takes at least a byte before the table, so the count is bounded
            // by the input before anything is multiplied.
            guard count >= 1, count <= UInt64(trailer), top < count, tableStart >= 8, tableStart <= UInt64(trailer),
                UInt64(trailer) - tableStart >= count * UInt64(offsetSize)
            else { throw BinaryPlist.failure("its trailer (\(count) objects, top \(top), table at \(tableStart))") }
            self.count = Int(count)
            self.top = Int(top)
            self.tableStart = Int(tableStart)
        }

        static func unsigned(_ slice: ArraySlice<UInt8>) -> UInt64 { slice.reduce(0) { $0 << 8 | UInt64($1) } }

        func offset(of object: Int) throws -> Int {
            let at = tableStart + object * offsetSize
            let offset = Self.unsigned(bytes[at..<(at + offsetSize)])
            guard offset >= 8, offset < UInt64(tableStart) else { throw BinaryPlist.failure("object \(object) at offset \(offset)") }
            return Int(offset)
        }

        /// `size` bytes at `at`, within the objects' area.
        func slice(_ at: Int, _ size: Int) throws -> ArraySlice<UInt8> {
            guard size >= 0, at <= tableStart, size <= tableStart - at else { throw BinaryPlist.failure("an object runs past its end") }
            return bytes[at..<(at + size)]
        }

        /// The count in a marker's low nibble, or the integer after it; and where the
        /// content starts.
        func length(_ marker: UInt8, at position: Int) throws -> (Int, Int) {
            let nibble = Int(marker & 0x0F)
            guard nibble == 0x0F else { return (nibble, position + 1) }
            let intMarker = try slice(position + 1, 1).first!
            guard intMarker & 0xF0 == 0x10, intMarker & 0x0F <= 3 else { throw BinaryPlist.failure("a length that is not an integer") }
            let size = 1 << Int(intMarker & 0x0F)
            let value = Self.unsigned(try slice(position + 2, size))
            guard value <= UInt64(tableStart) else { throw BinaryPlist.failure("a length of \(value)") }
            return (Int(value), position + 2 + size)
        }

        mutating func value(at object: Int, depth: Int) throws -> PlistValue {
            guard object >= 0, object < count else { throw BinaryPlist.failure("a reference to object \(object) of \(count)") }
            guard depth < BinaryPlist.maximumDepth else { throw BinaryPlist.failure("nesting deeper than \(BinaryPlist.maximumDepth)") }
            guard !path.contains(object) else { throw BinaryPlist.failure("object \(object) contains itself") }
            produced += 1
            guard produced <= BinaryPlist.maximumValues else { throw BinaryPlist.failure("more than \(BinaryPlist.maximumValues) values") }
            let position = try offset(of: object)
            let marker = bytes[position]
            switch marker >> 4 {
            case 0x0:
                switch marker {
                case 0x08: return .bool(false)
                case 0x09: return .bool(true)
                default: throw BinaryPlist.failure("marker 0x" + hexByte(marker))
                }
            case 0x1:
                let size = 1 << Int(marker & 0x0F)
                guard size <= 16 else { throw BinaryPlist.failure("an integer of \(size) bytes") }
                let content = try slice(position + 1, size)
                if size == 16 {
                    // 128-bit: only values that fit in 64 bits are taken.
                    guard content.prefix(8).allSatisfy({ $0 == 0 }) else { throw BinaryPlist.failure("an integer beyond 64 bits") }
                    let low = Self.unsigned(content.suffix(8))
                    guard low <= UInt64(Int64.max) else { throw BinaryPlist.failure("an integer beyond 64 bits") }
                    return .int(Int64(low))
                }
                let raw = Self.unsigned(content)
                return .int(size == 8 ? Int64(bitPattern: raw) : Int64(raw))
            case 0x2:
                switch marker & 0x0F {
                case 2: return .real(Double(Float(bitPattern: UInt32(Self.unsigned(try slice(position + 1, 4))))))
                case 3: return .real(Double(bitPattern: Self.unsigned(try slice(position + 1, 8))))
                default: throw BinaryPlist.failure("marker 0x" + hexByte(marker))
                }
            case 0x3:
                guard marker == 0x33 else { throw BinaryPlist.failure("marker 0x" + hexByte(marker)) }
                return .date(Double(bitPattern: Self.unsigned(try slice(position + 1, 8))))
            case 0x4:
                let (n, start) = try length(marker, at: position)
                return .data(Array(try slice(start, n)))
            case 0x5:
                let (n, start) = try length(marker, at: position)
                let content = try slice(start, n)
                guard content.allSatisfy({ $0 < 0x80 }), let s = String(validating: content, as: UTF8.self) else {
                    throw BinaryPlist.failure("an ASCII string with other bytes")
                }
                return .string(s)
            case 0x6:
                let (n, start) = try length(marker, at: position)
                guard n <= tableStart / 2 else { throw BinaryPlist.failure("a string of \(n) characters") }
                let content = try slice(start, 2 * n)
                let units = stride(from: content.startIndex, to: content.endIndex, by: 2).map { UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]) }
                guard let s = String(validating: units, as: UTF16.self) else { throw BinaryPlist.failure("a UTF-16 string that is not valid") }
                return .string(s)
            case 0x8:
                let size = Int(marker & 0x0F) + 1
                guard size <= 8 else { throw BinaryPlist.failure("a reference of \(size) bytes") }
                return .uid(Self.unsigned(try slice(position + 1, size)))
            case 0xA, 0xC:
                let (n, start) = try length(marker, at: position)
                let references = try self.references(n, at: start)
                path.insert(object)
                defer { path.remove(object) }
                var items: [PlistValue] = []
                for reference in references { items.append(try value(at: reference, depth: depth + 1)) }
                return .array(items)
            case 0xD:
                let (n, start) = try length(marker, at: position)
                guard n <= tableStart / 2 else { throw BinaryPlist.failure("a dictionary of \(n) entries") }
                let references = try self.references(2 * n, at: start)
                path.insert(object)
                defer { path.remove(object) }
                var entries: [PlistEntry] = []
                for i in 0..<n {
                    guard case .string(let key) = try value(at: references[i], depth: depth + 1) else {
                        throw BinaryPlist.failure("a dictionary key that is not a string")
                    }
                    entries.append(PlistEntry(key: key, value: try value(at: references[n + i], depth: depth + 1)))
                }
                return .dictionary(entries)
            default: throw BinaryPlist.failure("marker 0x" + hexByte(marker))
            }
        }

        func references(_ n: Int, at start: Int) throws -> [Int] {
            guard n <= tableStart / referenceSize else { throw BinaryPlist.failure("\(n) references") }
            let content = try slice(start, n * referenceSize)
            return stride(from: content.startIndex, to: content.endIndex, by: referenceSize).map {
                let raw = Self.unsigned(bytes[$0..<($0 + referenceSize)])
                return raw > UInt64(Int.max) ? Int.max : Int(raw)
            }
        }
    }
}
