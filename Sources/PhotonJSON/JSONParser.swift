extension JSONValue {
    /// Parses one JSON text strictly (RFC 8259: one value, no trailing data, valid UTF-8,
    /// no raw control characters in strings), nesting at most `maximumDepth` levels.
    /// Input comes from other processes, so every failure is a `JSONParseError` that says
    /// where and why.
    public static func parse(_ bytes: [UInt8], maximumDepth: Int = 32) throws -> JSONValue {
        var parser = JSONParser(bytes: bytes, maximumDepth: maximumDepth)
        parser.skipSpace()
        let value = try parser.value(depth: 0)
        parser.skipSpace()
        guard parser.position == bytes.count else { throw parser.failure("unexpected data after the value") }
        return value
    }

    public static func parse(_ text: String) throws -> JSONValue { try parse(Array(text.utf8)) }

    /// The field `key` of an object (the last one if repeated), or nil.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let fields) = self else { return nil }
        return fields.last(where: { $0.0 == key })?.1
    }

    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// Integers, and doubles that are whole numbers within range.
    public var intValue: Int? {
        switch self {
        case .int(let i): return i
        case .double(let d) where d.rounded() == d && abs(d) < 9.0e15: return Int(d)
        default: return nil
        }
    }

    public var doubleValue: Double? {
        switch self {
        case .int(let i): return Double(i)
        case .double(let d): return d
        default: return nil
        }
    }

    public var boolValue: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    public var arrayValue: [JSONValue]? {
        if case .array(let items) = self { return items }
        return nil
    }

    public var isObject: Bool {
        if case .object = self { return true }
        return false
    }
}

/// Why a JSON text was refused, and where.
public struct JSONParseError: Error, Sendable, CustomStringConvertible {
    public let offset: Int
    public let reason: String
    public var description: String { "invalid JSON at byte \(offset): \(reason)" }
}

/// A recursive-descent JSON reader over UTF-8 bytes.
struct JSONParser {
    let bytes: [UInt8]
    let maximumDepth: Int
    var position = 0

    init(bytes: [UInt8], maximumDepth: Int) {
        self.bytes = bytes
        self.maximumDepth = maximumDepth
    }

    func failure(_ reason: String) -> JSONParseError { JSONParseError(offset: position, reason: reason) }

    mutating func skipSpace() {
        while position < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[position]) { position += 1 }
    }

    var current: UInt8? { position < bytes.count ? bytes[position] : nil }

    mutating func expect(_ literal: String, _ value: JSONValue) throws -> JSONValue {
        let expected = Array(literal.utf8)
        guard bytes.count - position >= expected.count, Array(bytes[position..<position + expected.count]) == expected else {
            throw failure("expected \(literal)")
        }
        position += expected.count
        return value
    }

    mutating func value(depth: Int) throws -> JSONValue {
        guard depth <= maximumDepth else { throw failure("nested deeper than \(maximumDepth) levels") }
        guard let byte = current else { throw failure("unexpected end of input") }
        switch byte {
        case UInt8(ascii: "{"): return try object(depth: depth)
        case UInt8(ascii: "["): return try array(depth: depth)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): return try expect("true", .bool(true))
        case UInt8(ascii: "f"): return try expect("false", .bool(false))
        case UInt8(ascii: "n"): return try expect("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
        default: throw failure("unexpected character")
        }
    }

    mutating func object(depth: Int) throws -> JSONValue {
        position += 1
        var fields: [(String, JSONValue)] = []
        skipSpace()
        if current == UInt8(ascii: "}") {
            position += 1
            return .object(fields)
        }
        while true {
            skipSpace()
            guard current == UInt8(ascii: "\"") else { throw failure("expected a field name") }
            let key = try string()
            skipSpace()
            guard current == UInt8(ascii: ":") else { throw failure("expected ':'") }
            position += 1
            skipSpace()
            fields.append((key, try value(depth: depth + 1)))
            skipSpace()
            switch current {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "}"):
                position += 1
                return .object(fields)
            default: throw failure("expected ',' or '}'")
            }
        }
    }

    mutating func array(depth: Int) throws -> JSONValue {
        position += 1
        var items: [JSONValue] = []
        skipSpace()
        if current == UInt8(ascii: "]") {
            position += 1
            return .array(items)
        }
        while true {
            skipSpace()
            items.append(try value(depth: depth + 1))
            skipSpace()
            switch current {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "]"):
                position += 1
                return .array(items)
            default: throw failure("expected ',' or ']'")
            }
        }
    }

    mutating func number() throws -> JSONValue {
        let start = position
        func digits(_ p: inout Int) -> Int {
            let s = p
            while p < bytes.count, bytes[p] >= 0x30, bytes[p] <= 0x39 { p += 1 }
            return p - s
        }
        var p = position
        if bytes[p] == UInt8(ascii: "-") { p += 1 }
        let integerStart = p
        guard digits(&p) > 0 else { throw failure("a number needs digits") }
        if bytes[integerStart] == UInt8(ascii: "0"), p - integerStart > 1 { throw failure("numbers do not start with 0") }
        var isInteger = true
        if p < bytes.count, bytes[p] == UInt8(ascii: ".") {
            p += 1
            isInteger = false
            guard digits(&p) > 0 else { throw failure("expected digits after '.'") }
        }
        if p < bytes.count, bytes[p] == UInt8(ascii: "e") || bytes[p] == UInt8(ascii: "E") {
            p += 1
            isInteger = false
            if p < bytes.count, bytes[p] == UInt8(ascii: "+") || bytes[p] == UInt8(ascii: "-") { p += 1 }
            guard digits(&p) > 0 else { throw failure("expected digits in the exponent") }
        }
        position = p
        let text = String(decoding: bytes[start..<p], as: UTF8.self)
        if isInteger, let int = Int(text) { return .int(int) }
        guard let double = Double(text), double.isFinite else { throw failure("number out of range") }
        return .double(double)
    }

    mutating func hex4() throws -> UInt32 {
        guard bytes.count - position >= 4 else { throw failure("short \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[position]
            let digit: UInt8
            switch byte {
            case 0x30...0x39: digit = byte - 0x30
            case 0x61...0x66: digit = byte - 0x57
            case 0x41...0x46: digit = byte - 0x37
            default: throw failure("bad \\u escape")
            }
            value = value << 4 | UInt32(digit)
            position += 1
        }
        return value
    }

    mutating func string() throws -> String {
        position += 1
        var out: [UInt8] = []
        while true {
            guard let byte = current else { throw failure("unterminated string") }
            position += 1
            switch byte {
            case UInt8(ascii: "\""):
                guard let text = String(validating: out, as: UTF8.self) else { throw failure("the string is not valid UTF-8") }
                return text
            case UInt8(ascii: "\\"):
                guard let escape = current else { throw failure("unterminated escape") }
                position += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(escape)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    var code = try hex4()
                    if (0xD800...0xDBFF).contains(code) {
                        guard bytes.count - position >= 6, bytes[position] == UInt8(ascii: "\\"),
                            bytes[position + 1] == UInt8(ascii: "u")
                        else { throw failure("unpaired surrogate") }
                        position += 2
                        let low = try hex4()
                        guard (0xDC00...0xDFFF).contains(low) else { throw failure("unpaired surrogate") }
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let scalar = Unicode.Scalar(code) else { throw failure("unpaired surrogate") }
                    out.append(contentsOf: Array(String(Character(scalar)).utf8))
                default: throw failure("unknown escape")
                }
            case 0..<0x20: throw failure("raw control character in a string")
            default: out.append(byte)
            }
        }
    }
}
