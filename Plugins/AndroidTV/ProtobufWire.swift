import PhotonCore

/// A minimal protobuf wire-format writer: varints, length-delimited fields, nested
/// messages. Enough for the two Android TV schemas; written here, no code generator.
struct ProtoWriter {
    private(set) var bytes: [UInt8] = []

    init() {}

    static func varint(_ value: UInt64) -> [UInt8] {
        var out: [UInt8] = []
        var v = value
        while v >= 0x80 {
            out.append(UInt8(v & 0x7F) | 0x80)
            v >>= 7
        }
        out.append(UInt8(v))
        return out
    }

    mutating func appendVarint(_ value: UInt64) { bytes += Self.varint(value) }

    mutating func tag(_ field: Int, _ wireType: Int) { appendVarint(UInt64(field << 3 | wireType)) }

    /// A varint field; proto3 omits zero unless `always`.
    mutating func uint(_ field: Int, _ value: UInt64, always: Bool = false) {
        guard value != 0 || always else { return }
        tag(field, 0)
        appendVarint(value)
    }

    /// An int32 field: negative values are sign-extended to 64 bits (10 bytes), as
    /// protobuf requires.
    mutating func int32(_ field: Int, _ value: Int32, always: Bool = false) {
        uint(field, UInt64(bitPattern: Int64(value)), always: always)
    }

    mutating func bool(_ field: Int, _ value: Bool, always: Bool = false) { uint(field, value ? 1 : 0, always: always) }

    mutating func bytes(_ field: Int, _ value: [UInt8], always: Bool = false) {
        guard !value.isEmpty || always else { return }
        tag(field, 2)
        appendVarint(UInt64(value.count))
        bytes += value
    }

    mutating func string(_ field: Int, _ value: String, always: Bool = false) {
        bytes(field, Array(value.utf8), always: always)
    }

    /// A nested message, written even when empty (presence is what selects a message).
    mutating func message(_ field: Int, _ build: (inout ProtoWriter) -> Void) {
        var inner = ProtoWriter()
        build(&inner)
        bytes(field, inner.bytes, always: true)
    }
}

/// One field read from the wire.
enum ProtoValue {
    case varint(UInt64)
    case fixed64(UInt64)
    case fixed32(UInt32)
    case bytes(ArraySlice<UInt8>)
}

/// A strict protobuf reader over a complete message. Every length is checked against
/// the bytes that are there before anything is sliced; unknown fields are skipped;
/// groups (wire types 3 and 4) and malformed varints are errors.
struct ProtoReader {
    private let data: ArraySlice<UInt8>
    private var index: Int

    init(_ data: ArraySlice<UInt8>) {
        self.data = data
        self.index = data.startIndex
    }

    init(_ data: [UInt8]) { self.init(data[...]) }

    static func malformed(_ what: String) -> PhotonError {
        PhotonError(.protocolViolation, "malformed protobuf from the TV: \(what)")
    }

    mutating func readVarint() throws -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard index < data.endIndex else { throw Self.malformed("truncated varint") }
            let byte = data[index]
            index += 1
            if shift == 63 && byte > 1 { throw Self.malformed("varint longer than 64 bits") }
            result |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return result }
            shift += 7
            guard shift <= 63 else { throw Self.malformed("varint longer than 10 bytes") }
        }
    }

    /// The next field, or nil at the end of the message.
    mutating func next() throws -> (field: Int, value: ProtoValue)? {
        guard index < data.endIndex else { return nil }
        let key = try readVarint()
        let field = Int(truncatingIfNeeded: key >> 3)
        guard field > 0, field < 1 << 29 else { throw Self.malformed("invalid field number \(key >> 3)") }
        switch key & 7 {
        case 0:
            return (field, .varint(try readVarint()))
        case 1:
            guard data.endIndex - index >= 8 else { throw Self.malformed("truncated fixed64") }
            var v: UInt64 = 0
            for i in 0..<8 { v |= UInt64(data[index + i]) << (8 * UInt64(i)) }
            index += 8
            return (field, .fixed64(v))
        case 2:
            let length = try readVarint()
            guard length <= UInt64(data.endIndex - index) else {
                throw Self.malformed("field \(field) declares \(length) bytes but only \(data.endIndex - index) remain")
            }
            let slice = data[index..<(index + Int(length))]
            index += Int(length)
            return (field, .bytes(slice))
        case 5:
            guard data.endIndex - index >= 4 else { throw Self.malformed("truncated fixed32") }
            var v: UInt32 = 0
            for i in 0..<4 { v |= UInt32(data[index + i]) << (8 * UInt32(i)) }
            index += 4
            return (field, .fixed32(v))
        default:
            throw Self.malformed("unsupported wire type \(key & 7) for field \(field)")
        }
    }
}

extension ProtoValue {
    var uint: UInt64 {
        get throws {
            guard case .varint(let v) = self else { throw ProtoReader.malformed("expected a varint") }
            return v
        }
    }
    var int32: Int32 { get throws { Int32(truncatingIfNeeded: try uint) } }
    var bool: Bool { get throws { try uint != 0 } }
    var bytes: ArraySlice<UInt8> {
        get throws {
            guard case .bytes(let b) = self else { throw ProtoReader.malformed("expected a length-delimited field") }
            return b
        }
    }
    /// A string, with invalid UTF-8 repaired rather than trusted.
    var string: String { get throws { String(decoding: try bytes, as: UTF8.self) } }
}

/// The varint length prefix that frames every message on both Android TV ports.
enum VarintFraming {
    /// Frames one message.
    static func frame(_ message: [UInt8]) -> [UInt8] { ProtoWriter.varint(UInt64(message.count)) + message }
}

/// Splits a byte stream into messages as bytes arrive, split anywhere or many at once.
/// A declared length over `maxMessageSize` or a corrupt prefix is an error before
/// anything is buffered for it (the stream cannot be resynchronised after one).
public struct VarintFrameDecoder: Sendable {
    public let maxMessageSize: Int
    private var queue = ByteQueue()

    public init(maxMessageSize: Int) { self.maxMessageSize = maxMessageSize }

    public var bufferedCount: Int { queue.count }

    public mutating func append(_ bytes: [UInt8]) { queue.append(bytes) }

    public mutating func next() throws -> [UInt8]? {
        var length: UInt64 = 0
        var shift: UInt64 = 0
        var i = 0
        while true {
            guard i < queue.count else { return nil }
            let byte = queue[i]
            i += 1
            length |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { break }
            shift += 7
            guard shift < 35 else {
                throw PhotonError(.protocolViolation, "corrupt message length prefix from the TV")
            }
        }
        guard length <= UInt64(maxMessageSize) else {
            throw PhotonError(
                .messageTooLarge, "the TV announced a \(length)-byte message; the limit is \(maxMessageSize)")
        }
        guard queue.count - i >= Int(length) else { return nil }
        let message = queue.bytes(i..<(i + Int(length)))
        queue.consume(i + Int(length))
        return message
    }
}
