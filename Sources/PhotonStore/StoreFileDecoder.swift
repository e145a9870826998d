import Foundation
import PhotonJSON

/// Decodes the store's files (`Decodable` types, ISO 8601 dates) from a parsed
/// `JSONValue`. Foundation's `JSONDecoder` spends most of a millisecond setting itself up
/// the first time a process uses it, which every cold `photon key` paid to read two small
/// files; this one costs what the parse and the types' own `init(from:)` cost. It throws
/// the `DecodingError`s `JSONDecoder` throws, with the same coding paths.
struct StoreFileDecoder {
    /// Decodes `type` from `bytes`; a parse failure is a `JSONParseError` saying where.
    static func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) throws -> T {
        let value = try JSONValue.parse(bytes, maximumDepth: 64)
        // The store's own files, well formed, are read without `Decodable` (StoreFileReader).
        if let read = StoreFileReader.read(type, from: value) { return read }
        return try decodeThroughDecodable(type, from: value)
    }

    /// `type` through its `init(from:)` (what a file the reader does not take gets).
    static func decodeThroughDecodable<T: Decodable>(_ type: T.Type, from value: JSONValue) throws -> T {
        try ValueDecoder(value: value, codingPath: []).decode(type)
    }
}

/// One value and where it sits in the file.
private struct ValueDecoder: Decoder {
    let value: JSONValue
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let fields) = value else { throw mismatch([String: Any].self, at: codingPath, found: value) }
        return KeyedDecodingContainer(KeyedContainer<Key>(fields: fields, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let items) = value else { throw mismatch([Any].self, at: codingPath, found: value) }
        return UnkeyedContainer(items: items, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    /// `type` from this value: the scalars and dates here, everything else by its own
    /// `init(from:)`.
    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        if type == Date.self {
            let text = try decode(String.self)
            guard let date = ISO8601Date.parse(text) else {
                throw DecodingError.dataCorrupted(
                    DecodingError.Context(codingPath: codingPath, debugDescription: "Expected date string to be ISO8601-formatted."))
            }
            return date as! T
        }
        switch type {
        case is String.Type: return try decode(String.self) as! T
        case is Bool.Type: return try decode(Bool.self) as! T
        case is Int.Type: return try decode(Int.self) as! T
        case is UInt16.Type: return try decode(UInt16.self) as! T
        case is Double.Type: return try decode(Double.self) as! T
        default: return try T(from: self)
        }
    }

    /// A whole number of `type`'s range, or the error `JSONDecoder` gives.
    func integer<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
        guard case .int(let number) = value else {
            if case .double(let number) = value, number.rounded() == number, let exact = T(exactly: number) { return exact }
            throw mismatch(type, at: codingPath, found: value)
        }
        guard let exact = T(exactly: number) else {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(codingPath: codingPath, debugDescription: "Number \(number) does not fit in \(type)."))
        }
        return exact
    }
}

extension ValueDecoder: SingleValueDecodingContainer {
    func decodeNil() -> Bool { value.isNull }

    func decode(_ type: String.Type) throws -> String {
        guard case .string(let text) = value else { throw mismatch(type, at: codingPath, found: value) }
        return text
    }

    func decode(_ type: Bool.Type) throws -> Bool {
        guard case .bool(let flag) = value else { throw mismatch(type, at: codingPath, found: value) }
        return flag
    }

    func decode(_ type: Double.Type) throws -> Double {
        guard let number = value.doubleValue else { throw mismatch(type, at: codingPath, found: value) }
        return number
    }

    func decode(_ type: Float.Type) throws -> Float { Float(try decode(Double.self)) }
    func decode(_ type: Int.Type) throws -> Int { try integer(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try integer(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try integer(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try integer(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try integer(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try integer(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try integer(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try integer(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try integer(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try integer(type) }
}

/// An object's fields, found by name (the last of repeated names, as `JSONDecoder` does).
private struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let codingPath: [any CodingKey]
    let allKeys: [Key]
    private let values: [String: JSONValue]

    init(fields: [(String, JSONValue)], codingPath: [any CodingKey]) {
        var values: [String: JSONValue] = [:]
        values.reserveCapacity(fields.count)
        var names: [String] = []
        for (name, value) in fields {
            if values.updateValue(value, forKey: name) == nil { names.append(name) }
        }
        self.values = values
        self.codingPath = codingPath
        allKeys = names.compactMap { Key(stringValue: $0) }
    }

    func contains(_ key: Key) -> Bool { values[key.stringValue] != nil }

    private func field(_ key: Key) throws -> ValueDecoder {
        guard let value = values[key.stringValue] else {
            throw DecodingError.keyNotFound(
                key, DecodingError.Context(codingPath: codingPath, debugDescription: "No value associated with key \(key.stringValue)."))
        }
        return ValueDecoder(value: value, codingPath: codingPath + [key])
    }

    func decodeNil(forKey key: Key) throws -> Bool { try field(key).decodeNil() }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        let field = try field(key)
        if field.value.isNull {
            throw DecodingError.valueNotFound(
                type, DecodingError.Context(codingPath: field.codingPath, debugDescription: "Expected \(type) value but found null instead."))
        }
        return try field.decode(type)
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try field(key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer { try field(key).unkeyedContainer() }

    func superDecoder() throws -> any Decoder {
        ValueDecoder(value: values["super"] ?? .null, codingPath: codingPath + [IndexKey(name: "super")])
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        ValueDecoder(value: values[key.stringValue] ?? .null, codingPath: codingPath + [key])
    }
}

/// An array's items, in order.
private struct UnkeyedContainer: UnkeyedDecodingContainer {
    let items: [JSONValue]
    let codingPath: [any CodingKey]
    var currentIndex = 0

    init(items: [JSONValue], codingPath: [any CodingKey]) {
        self.items = items
        self.codingPath = codingPath
    }

    var count: Int? { items.count }
    var isAtEnd: Bool { currentIndex >= items.count }

    private mutating func next<T>(_ type: T.Type) throws -> ValueDecoder {
        let path = codingPath + [IndexKey(index: currentIndex)]
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(type, DecodingError.Context(codingPath: path, debugDescription: "Unkeyed container is at end."))
        }
        defer { currentIndex += 1 }
        return ValueDecoder(value: items[currentIndex], codingPath: path)
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd, items[currentIndex].isNull else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let item = try next(type)
        if item.value.isNull {
            throw DecodingError.valueNotFound(
                type, DecodingError.Context(codingPath: item.codingPath, debugDescription: "Expected \(type) value but found null instead."))
        }
        return try item.decode(type)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        try next([String: Any].self).container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { try next([Any].self).unkeyedContainer() }

    mutating func superDecoder() throws -> any Decoder { try next(Any.self) }
}

/// An array index or a fixed name in a coding path.
private struct IndexKey: CodingKey {
    let stringValue: String
    let intValue: Int?
    init(index: Int) {
        stringValue = "Index \(index)"
        intValue = index
    }
    init(name: String) {
        stringValue = name
        intValue = nil
    }
    init?(stringValue: String) { self.init(name: stringValue) }
    init?(intValue: Int) { self.init(index: intValue) }
}

private func mismatch(_ type: Any.Type, at path: [any CodingKey], found value: JSONValue) -> DecodingError {
    let found: String
    switch value {
    case .string: found = "a string"
    case .int, .double: found = "a number"
    case .bool: found = "bool"
    case .null: found = "null"
    case .array: found = "an array"
    case .object: found = "a dictionary"
    }
    return DecodingError.typeMismatch(
        type, DecodingError.Context(codingPath: path, debugDescription: "Expected to decode \(type) but found \(found) instead."))
}

/// The ISO 8601 internet date-time the store writes (`2026-12-06T06:10:26Z`, or with an
/// offset such as `+01:00`; fractions of a second allowed), without a date formatter.
enum ISO8601Date {
    static func parse(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        var position = 0
        func number(_ digits: Int) -> Int? {
            guard position + digits <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[position..<position + digits] {
                guard (0x30...0x39).contains(byte) else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            position += digits
            return value
        }
        func expect(_ character: Character) -> Bool {
            guard position < bytes.count, bytes[position] == character.asciiValue! else { return false }
            position += 1
            return true
        }
        guard let year = number(4), expect("-"), let month = number(2), expect("-"), let day = number(2), expect("T"),
            let hour = number(2), expect(":"), let minute = number(2), expect(":"), let second = number(2)
        else { return nil }
        var fraction = 0.0
        if expect(".") {
            var scale = 0.1
            let start = position
            while position < bytes.count, (0x30...0x39).contains(bytes[position]) {
                fraction += Double(bytes[position] - 0x30) * scale
                scale /= 10
                position += 1
            }
            guard position > start else { return nil }
        }
        var offset = 0
        if expect("Z") {
            offset = 0
        } else if position < bytes.count, bytes[position] == 0x2B || bytes[position] == 0x2D {
            let sign = bytes[position] == 0x2D ? -1 : 1
            position += 1
            guard let hours = number(2), expect(":"), let minutes = number(2), hours <= 23, minutes <= 59 else { return nil }
            offset = sign * (hours * 3600 + minutes * 60)
        } else {
            return nil
        }
        guard position == bytes.count, (1...12).contains(month), hour <= 23, minute <= 59, second <= 59,
            (1...daysIn(month: month, year: year)).contains(day)
        else { return nil }
        let seconds = daysSinceEpoch(year: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60 + second - offset
        return Date(timeIntervalSince1970: Double(seconds) + fraction)
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days from 1970-01-01 to the civil date (proleptic Gregorian).
    private static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}

extension JSONValue {
    /// Whether this is `null` (without comparing encodings, which `==` does).
    fileprivate var isNull: Bool {
        if case .null = self { return true }
        return false
    }
}
