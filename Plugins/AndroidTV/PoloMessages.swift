import PhotonCore

/// The Polo pairing messages of port 6467 (`polo.wire.protobuf.OuterMessage`, proto2),
/// as one typed value. Only what pairing uses is modelled; unknown fields are skipped.
public struct PoloMessage: Sendable, Hashable {
    public enum Status: UInt64, Sendable {
        case ok = 200
        case error = 400
        case badConfiguration = 401
        case badSecret = 402
    }

    /// The sub-message a frame carries (a oneof by convention).
    public enum Body: Sendable, Hashable {
        case pairingRequest(serviceName: String, clientName: String)
        case pairingRequestAck(serverName: String?)
        case options(inputEncodings: [Encoding], outputEncodings: [Encoding], preferredRole: Role)
        case configuration(encoding: Encoding, clientRole: Role)
        case configurationAck
        case secret([UInt8])
        case secretAck([UInt8])
        /// A status-only message (TVs send these with an error status).
        case none
    }

    public struct Encoding: Sendable, Hashable {
        public var type: UInt64  // 3 = hexadecimal
        public var symbolLength: UInt64
        public static let hexadecimal6 = Encoding(type: 3, symbolLength: 6)
    }

    public enum Role: UInt64, Sendable {
        case unknown = 0
        case input = 1
        case output = 2
    }

    public var protocolVersion: UInt64 = 2
    public var status: UInt64 = Status.ok.rawValue
    public var body: Body

    public init(_ body: Body, status: UInt64 = Status.ok.rawValue) {
        self.body = body
        self.status = status
    }

    public func encoded() -> [UInt8] {
        var w = ProtoWriter()
        w.uint(1, protocolVersion, always: true)
        w.uint(2, status, always: true)
        func encoding(_ e: Encoding, _ w: inout ProtoWriter) {
            w.uint(1, e.type, always: true)
            w.uint(2, e.symbolLength, always: true)
        }
        switch body {
        case .pairingRequest(let service, let client):
            w.message(10) {
                $0.string(1, service, always: true)
                $0.string(2, client)
            }
        case .pairingRequestAck(let name):
            w.message(11) { if let name { $0.string(1, name, always: true) } }
        case .options(let inputs, let outputs, let role):
            w.message(20) { m in
                for e in inputs { m.message(1) { encoding(e, &$0) } }
                for e in outputs { m.message(2) { encoding(e, &$0) } }
                m.uint(3, role.rawValue, always: true)
            }
        case .configuration(let e, let role):
            w.message(30) { m in
                m.message(1) { encoding(e, &$0) }
                m.uint(2, role.rawValue, always: true)
            }
        case .configurationAck:
            w.message(31) { _ in }
        case .secret(let bytes):
            w.message(40) { $0.bytes(1, bytes, always: true) }
        case .secretAck(let bytes):
            w.message(41) { $0.bytes(1, bytes, always: true) }
        case .none:
            break
        }
        return w.bytes
    }

    public static func decode(_ bytes: [UInt8]) throws -> PoloMessage {
        var reader = ProtoReader(bytes)
        var version: UInt64 = 1
        var status: UInt64?
        var body: Body = .none
        func encoding(_ slice: ArraySlice<UInt8>) throws -> Encoding {
            var r = ProtoReader(slice)
            var e = Encoding(type: 0, symbolLength: 0)
            while let (f, v) = try r.next() {
                if f == 1 { e.type = try v.uint } else if f == 2 { e.symbolLength = try v.uint }
            }
            return e
        }
        while let (field, value) = try reader.next() {
            switch field {
            case 1: version = try value.uint
            case 2: status = try value.uint
            case 10:
                var r = ProtoReader(try value.bytes)
                var service = ""
                var client = ""
                while let (f, v) = try r.next() {
                    if f == 1 { service = try v.string } else if f == 2 { client = try v.string }
                }
                body = .pairingRequest(serviceName: service, clientName: client)
            case 11:
                var r = ProtoReader(try value.bytes)
                var name: String?
                while let (f, v) = try r.next() { if f == 1 { name = try v.string } }
                body = .pairingRequestAck(serverName: name)
            case 20:
                var r = ProtoReader(try value.bytes)
                var inputs: [Encoding] = []
                var outputs: [Encoding] = []
                var role = Role.unknown
                while let (f, v) = try r.next() {
                    switch f {
                    case 1: inputs.append(try encoding(try v.bytes))
                    case 2: outputs.append(try encoding(try v.bytes))
                    case 3: role = Role(rawValue: try v.uint) ?? .unknown
                    default: break
                    }
                }
                body = .options(inputEncodings: inputs, outputEncodings: outputs, preferredRole: role)
            case 30:
                var r = ProtoReader(try value.bytes)
                var e = Encoding(type: 0, symbolLength: 0)
                var role = Role.unknown
                while let (f, v) = try r.next() {
                    if f == 1 { e = try encoding(try v.bytes) } else if f == 2 { role = Role(rawValue: try v.uint) ?? .unknown }
                }
                body = .configuration(encoding: e, clientRole: role)
            case 31: body = .configurationAck
            case 40, 41:
                var r = ProtoReader(try value.bytes)
                var secret: [UInt8] = []
                while let (f, v) = try r.next() { if f == 1 { secret = Array(try v.bytes) } }
                body = field == 40 ? .secret(secret) : .secretAck(secret)
            default: break
            }
        }
        guard let status else { throw ProtoReader.malformed("pairing message without a status") }
        var message = PoloMessage(body, status: status)
        message.protocolVersion = version
        return message
    }
}
