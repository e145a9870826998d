/// Unicast DNS-SD (RFC 6762 §5.5, RFC 6763): a query for service types sent straight to a
/// host's mDNS port, and the answer it sends back to the asking port. It finds a TV at a
/// typed address with the name, port and TXT record it announces — what an Apple TV's
/// Companion port needs, since that port is not fixed — without multicast or avahi.
/// Answers are untrusted: names are bounded and compression pointers may only point
/// backwards, so a message cannot loop; every failure is a `protocolViolation`.
public enum DNSSD {
    public static let port: UInt16 = 5353
    /// The largest message read or written (RFC 6762 §17).
    public static let maximumMessageSize = 9000
    /// The most records one answer is read for.
    public static let maximumRecords = 256
    /// Apple's device-information pseudo-service (its TXT carries the model).
    public static let deviceInfoType = "_device-info._tcp"

    enum RecordType: UInt16 {
        case a = 1
        case ptr = 12
        case txt = 16
        case aaaa = 28
        case srv = 33
    }

    // MARK: queries

    /// A query for PTR records of each of `types` (`_companion-link._tcp`), asking for a
    /// unicast answer (the QU bit).
    public static func query(types: [String], id: UInt16) throws -> [UInt8] {
        var out = header(id: id, flags: 0, questions: types.count, answers: 0, additional: 0)
        for type in types {
            out += try encodeName(type + ".local")
            out += bigEndian(RecordType.ptr.rawValue) + bigEndian(0x8001)
        }
        return out
    }

    /// The service types a query asks for (the emulated TVs' side), without `.local`.
    public static func questions(in message: [UInt8]) throws -> (id: UInt16, types: [String]) {
        var reader = try Reader(message)
        guard reader.flags & 0x8000 == 0 else { throw failure("an answer where a query was expected") }
        var types: [String] = []
        for _ in 0..<reader.counts[0] {
            let name = try reader.name()
            let type = try reader.uint16()
            _ = try reader.uint16()
            if type == RecordType.ptr.rawValue || type == 255, name.lowercased().hasSuffix(".local") {
                types.append(String(name.dropLast(".local".count)))
            }
        }
        return (reader.id, types)
    }

    // MARK: answers

    /// One service to announce in an answer.
    public struct Announcement: Sendable, Equatable {
        public var instance: String
        public var type: String
        public var hostname: String
        public var port: UInt16
        public var txt: [(String, String)]
        public var addresses: [[UInt8]]
        public init(instance: String, type: String, hostname: String, port: UInt16, txt: [(String, String)], addresses: [[UInt8]]) {
            self.instance = instance
            self.type = type
            self.hostname = hostname
            self.port = port
            self.txt = txt
            self.addresses = addresses
        }
        public static func == (a: Self, b: Self) -> Bool {
            a.instance == b.instance && a.type == b.type && a.hostname == b.hostname && a.port == b.port && a.addresses == b.addresses
                && a.txt.map { "\($0.0)=\($0.1)" } == b.txt.map { "\($0.0)=\($0.1)" }
        }
    }

    /// The answer to query `id`: a PTR record per service, with its SRV, TXT and address
    /// records as additional records (a legacy unicast answer, TTL 10 s).
    public static func answer(id: UInt16, services: [Announcement]) throws -> [UInt8] {
        var answers: [[UInt8]] = []
        var additional: [[UInt8]] = []
        for service in services {
            let type = service.type + ".local"
            let instance = try encodeLabel(service.instance) + encodeName(type)
            let host = try encodeName(service.hostname + ".local")
            answers.append(try record(encodeName(type), .ptr, instance))
            additional.append(try record(instance, .srv, bigEndian(0) + bigEndian(0) + bigEndian(service.port) + host))
            var txt: [UInt8] = []
            for (key, value) in service.txt {
                let entry = Array("\(key)=\(value)".utf8)
                guard entry.count <= 255 else { throw PhotonError(.usage, "a TXT entry longer than 255 bytes") }
                txt += [UInt8(entry.count)] + entry
            }
            additional.append(try record(instance, .txt, txt.isEmpty ? [0] : txt))
            for address in service.addresses where address.count == 4 || address.count == 16 {
                additional.append(try record(host, address.count == 4 ? .a : .aaaa, address))
            }
        }
        let out =
            header(id: id, flags: 0x8400, questions: 0, answers: answers.count, additional: additional.count) + answers.joined()
            + additional.joined()
        guard out.count <= maximumMessageSize else { throw PhotonError(.usage, "an answer over \(maximumMessageSize) bytes") }
        return out
    }

    /// The services an answer describes: each PTR record's instance with its SRV (port and
    /// host), TXT and addresses. `sender` stands in for the addresses when the answer
    /// gives none. Services without an SRV record are left out.
    public static func services(in message: [UInt8], sender: String) throws -> [DiscoveredService] {
        var reader = try Reader(message)
        guard reader.flags & 0x8000 != 0 else { throw failure("a query where an answer was expected") }
        for _ in 0..<reader.counts[0] {
            _ = try reader.name()
            try reader.skip(4)
        }
        let total = reader.counts[1] + reader.counts[2] + reader.counts[3]
        guard total <= maximumRecords else { throw failure("\(total) records") }
        var pointers: [(type: String, instance: String)] = []
        var srv: [String: (port: UInt16, host: String)] = [:]
        var txt: [String: [String: String]] = [:]
        var addresses: [String: [String]] = [:]
        for _ in 0..<total {
            let owner = try reader.name()
            let type = try reader.uint16()
            try reader.skip(6)  // class, TTL
            let length = Int(try reader.uint16())
            let end = reader.position + length
            guard end <= message.count else { throw failure("a record longer than the message") }
            switch RecordType(rawValue: type) {
            case .ptr: pointers.append((owner.lowercased(), try reader.name()))
            case .srv:
                try reader.skip(4)
                let port = try reader.uint16()
                srv[owner.lowercased()] = (port, try reader.name())
            case .txt: txt[owner.lowercased()] = MDNSTXT.decode(wire: Array(message[reader.position..<end]))
            case .a where length == 4:
                addresses[owner.lowercased(), default: []].append(message[reader.position..<end].map(String.init).joined(separator: "."))
            case .aaaa where length == 16: addresses[owner.lowercased(), default: []].append(ipv6Text(Array(message[reader.position..<end])))
            default: break
            }
            guard reader.position <= end else { throw failure("a record whose data runs past its length") }
            reader.position = end
        }
        var services: [DiscoveredService] = []
        for pointer in pointers {
            let instance = pointer.instance
            guard let location = srv[instance.lowercased()], instance.lowercased().hasSuffix("." + pointer.type),
                pointer.type.hasSuffix(".local")
            else { continue }
            let name = String(instance.dropLast(pointer.type.count + 1))
            let type = String(pointer.type.dropLast(".local".count))
            let host = location.host.hasSuffix(".local") ? String(location.host.dropLast(".local".count)) : location.host
            let service = DiscoveredService(
                name: Redaction.sanitize(name, limit: 64), type: type, host: Redaction.sanitize(host, limit: 64),
                addresses: addresses[location.host.lowercased()] ?? [sender], port: location.port, txt: txt[instance.lowercased()] ?? [:])
            if !services.contains(service) { services.append(service) }
        }
        return services
    }

    // MARK: wire helpers

    static func failure(_ what: String) -> PhotonError {
        PhotonError(.protocolViolation, "a malformed DNS-SD message: \(what)")
    }

    static func header(id: UInt16, flags: UInt16, questions: Int, answers: Int, additional: Int) -> [UInt8] {
        bigEndian(id) + bigEndian(flags) + bigEndian(UInt16(questions)) + bigEndian(UInt16(answers)) + bigEndian(0)
            + bigEndian(UInt16(additional))
    }

    static func record(_ owner: [UInt8], _ type: RecordType, _ data: [UInt8]) throws -> [UInt8] {
        // Class IN with the cache-flush bit for unique records; PTR records are shared.
        owner + bigEndian(type.rawValue) + bigEndian(type == .ptr ? 1 : 0x8001) + [0, 0, 0, 10] + bigEndian(UInt16(data.count)) + data
    }

    /// A dotted name whose labels are plain (service types, host names).
    static func encodeName(_ name: String) throws -> [UInt8] {
        try name.split(separator: ".", omittingEmptySubsequences: false).flatMap { try encodeLabel(String($0)) } + [0]
    }

    /// One label (an instance name may hold dots and spaces).
    static func encodeLabel(_ label: String) throws -> [UInt8] {
        let bytes = Array(label.utf8)
        guard !bytes.isEmpty, bytes.count <= 63 else { throw PhotonError(.usage, "a DNS label of \(bytes.count) bytes: '\(label)'") }
        return [UInt8(bytes.count)] + bytes
    }

    static func bigEndian(_ value: UInt16) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xFF)] }

    static func ipv6Text(_ bytes: [UInt8]) -> String {
        stride(from: 0, to: 16, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }.joined(separator: ":")
    }

    struct Reader {
        let bytes: [UInt8]
        var position = 12
        let id: UInt16
        let flags: UInt16
        /// Questions, answers, authority, additional.
        let counts: [Int]

        init(_ bytes: [UInt8]) throws {
            guard bytes.count >= 12 else { throw DNSSD.failure("\(bytes.count) bytes, shorter than a header") }
            guard bytes.count <= DNSSD.maximumMessageSize else { throw DNSSD.failure("over \(DNSSD.maximumMessageSize) bytes") }
            self.bytes = bytes
            id = UInt16(bytes[0]) << 8 | UInt16(bytes[1])
            flags = UInt16(bytes[2]) << 8 | UInt16(bytes[3])
            counts = stride(from: 4, to: 12, by: 2).map { Int(bytes[$0]) << 8 | Int(bytes[$0 + 1]) }
            // Each question takes at least 5 bytes and each record 11: counts past that are lies.
            guard counts[0] * 5 + (counts[1] + counts[2] + counts[3]) * 11 <= bytes.count - 12 else {
                throw DNSSD.failure("counts \(counts) in \(bytes.count) bytes")
            }
        }

        mutating func uint16() throws -> UInt16 {
            guard position + 2 <= bytes.count else { throw DNSSD.failure("it ends inside a field") }
            defer { position += 2 }
            return UInt16(bytes[position]) << 8 | UInt16(bytes[position + 1])
        }

        mutating func skip(_ count: Int) throws {
            guard position + count <= bytes.count else { throw DNSSD.failure("it ends inside a field") }
            position += count
        }

        /// A name, following compression pointers, which must point before the label
        /// that holds them (so they cannot loop); at most 255 bytes.
        mutating func name() throws -> String {
            var labels: [String] = []
            var length = 0
            var cursor = position
            var jumped = false
            var lowest = position
            while true {
                guard cursor < bytes.count else { throw DNSSD.failure("a name runs past the end") }
                let byte = bytes[cursor]
                if byte & 0xC0 == 0xC0 {
                    guard cursor + 1 < bytes.count else { throw DNSSD.failure("a name runs past the end") }
                    let target = Int(byte & 0x3F) << 8 | Int(bytes[cursor + 1])
                    guard target < lowest else { throw DNSSD.failure("a compression pointer forward or to itself") }
                    if !jumped { position = cursor + 2 }
                    jumped = true
                    lowest = target
                    cursor = target
                    continue
                }
                guard byte & 0xC0 == 0 else { throw DNSSD.failure("a label type 0x\(hexByte(byte))") }
                let count = Int(byte)
                if count == 0 {
                    if !jumped { position = cursor + 1 }
                    return labels.joined(separator: ".")
                }
                guard cursor + 1 + count <= bytes.count else { throw DNSSD.failure("a label runs past the end") }
                length += count + 1
                guard length <= 255 else { throw DNSSD.failure("a name over 255 bytes") }
                labels.append(String(decoding: bytes[(cursor + 1)...(cursor + count)], as: UTF8.self))
                cursor += 1 + count
            }
        }
    }
}
