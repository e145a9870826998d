import PhotonCore
import PhotonJSON

/// A characteristic's value as HAP's JSON carries it.
public enum HAPValue: Sendable, Equatable, CustomStringConvertible {
    case bool(Bool)
    case int(Int)
    case float(Double)
    case string(String)

    var json: JSONValue {
        switch self {
        case .bool(let value): .bool(value)
        case .int(let value): .int(value)
        case .float(let value): .double(value)
        case .string(let value): .string(value)
        }
    }

    public var description: String { json.encoded }

    public var intValue: Int? {
        switch self {
        case .int(let value): value
        case .bool(let value): value ? 1 : 0
        default: nil
        }
    }
}

/// HAP's status codes in a 207 answer or a refusal.
public enum HAPStatus: Int, Sendable, Equatable {
    case success = 0
    case insufficientPrivileges = -70401
    case unableToCommunicate = -70402
    case busy = -70403
    case readOnly = -70404
    case writeOnly = -70405
    case notificationNotSupported = -70406
    case outOfResources = -70407
    case timedOut = -70408
    case doesNotExist = -70409
    case invalidValue = -70410
    case insufficientAuthorization = -70411
}

/// One characteristic of a service: its type (HAP's short UUID, `B0` for Active), its
/// instance id, format, permissions and limits, and its current value.
public struct HAPCharacteristic: Sendable, Equatable {
    public enum Format: String, Sendable {
        case bool, uint8, uint16, uint32, int, float, string, tlv8
    }

    /// Permissions: paired read, paired write, events, hidden.
    public struct Permissions: OptionSet, Sendable, Equatable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        public static let read = Permissions(rawValue: 1)
        public static let write = Permissions(rawValue: 2)
        public static let events = Permissions(rawValue: 4)
        public static let hidden = Permissions(rawValue: 8)

        var names: [String] {
            [(Self.read, "pr"), (.write, "pw"), (.events, "ev"), (.hidden, "hd")].filter { contains($0.0) }.map(\.1)
        }
    }

    public var type: String
    public var iid: Int
    public var format: Format
    public var permissions: Permissions
    public var value: HAPValue?
    public var minimum: Double?
    public var maximum: Double?
    public var step: Double?
    public var validValues: [Int]?
    public var maximumLength: Int?

    public init(
        _ type: String, iid: Int, format: Format, permissions: Permissions, value: HAPValue? = nil, minimum: Double? = nil,
        maximum: Double? = nil, step: Double? = nil, validValues: [Int]? = nil, maximumLength: Int? = nil
    ) {
        self.type = type
        self.iid = iid
        self.format = format
        self.permissions = permissions
        self.value = value
        self.minimum = minimum
        self.maximum = maximum
        self.step = step
        self.validValues = validValues
        self.maximumLength = maximumLength
    }

    /// The value a controller wrote, checked against the format and limits: nil when it
    /// does not fit (HAP answers -70410). Booleans come as `true`/`false` or `1`/`0`.
    public func accepting(_ json: JSONValue) -> HAPValue? {
        switch format {
        case .bool:
            if let bool = json.boolValue { return .bool(bool) }
            if let int = json.intValue, int == 0 || int == 1 { return .bool(int == 1) }
            return nil
        case .uint8, .uint16, .uint32, .int:
            guard let int = json.intValue ?? json.boolValue.map({ $0 ? 1 : 0 }) else { return nil }
            let range: ClosedRange<Int> =
                switch format {
                case .uint8: 0...255
                case .uint16: 0...65_535
                case .uint32: 0...4_294_967_295
                default: Int(Int32.min)...Int(Int32.max)
                }
            guard range.contains(int), minimum.map({ Double(int) >= $0 }) ?? true, maximum.map({ Double(int) <= $0 }) ?? true,
                validValues.map({ $0.contains(int) }) ?? true
            else { return nil }
            return .int(int)
        case .float:
            guard let double = json.doubleValue ?? json.intValue.map(Double.init), double.isFinite,
                minimum.map({ double >= $0 }) ?? true, maximum.map({ double <= $0 }) ?? true
            else { return nil }
            return .float(double)
        case .string:
            guard let string = json.stringValue, string.utf8.count <= (maximumLength ?? 64) else { return nil }
            return .string(string)
        case .tlv8:
            return json.stringValue.map { .string($0) }
        }
    }

    /// The characteristic in `/accessories` (and a read with `meta`, `perms`, `type`).
    func json(aid: Int, value include: Bool = true, meta: Bool = true, permissions includePermissions: Bool = true, type includeType: Bool = true)
        -> JSONValue
    {
        var fields: [(String, JSONValue)] = [("aid", .int(aid)), ("iid", .int(iid))]
        if includeType { fields.append(("type", .string(Self.fullType(type)))) }
        if includePermissions { fields.append(("perms", .array(permissions.names.map { .string($0) }))) }
        if meta {
            fields.append(("format", .string(format.rawValue)))
            if let minimum { fields.append(("minValue", Self.number(minimum))) }
            if let maximum { fields.append(("maxValue", Self.number(maximum))) }
            if let step { fields.append(("minStep", Self.number(step))) }
            if let validValues { fields.append(("valid-values", .array(validValues.map { .int($0) }))) }
            if let maximumLength { fields.append(("maxLen", .int(maximumLength))) }
        }
        if include, permissions.contains(.read) { fields.append(("value", value?.json ?? .null)) }
        return .object(fields)
    }

    static func number(_ value: Double) -> JSONValue { value == value.rounded() && abs(value) < 1e15 ? .int(Int(value)) : .double(value) }

    /// A short type (`B0`) as the full UUID HAP lists (`000000B0-0000-1000-8000-0026BB765291`).
    static func fullType(_ short: String) -> String {
        String(repeating: "0", count: max(0, 8 - short.count)) + short + "-0000-1000-8000-0026BB765291"
    }
}

/// A service: its type, instance id, characteristics, and the services it links to
/// (a Television links its InputSources and its Speaker).
public struct HAPService: Sendable, Equatable {
    public var type: String
    public var iid: Int
    public var characteristics: [HAPCharacteristic]
    public var isPrimary: Bool
    public var linked: [Int]

    public init(_ type: String, iid: Int, characteristics: [HAPCharacteristic], isPrimary: Bool = false, linked: [Int] = []) {
        self.type = type
        self.iid = iid
        self.characteristics = characteristics
        self.isPrimary = isPrimary
        self.linked = linked
    }

    func json(aid: Int) -> JSONValue {
        var fields: [(String, JSONValue)] = [
            ("iid", .int(iid)), ("type", .string(HAPCharacteristic.fullType(type))),
            ("characteristics", .array(characteristics.map { $0.json(aid: aid) })),
        ]
        if isPrimary { fields.append(("primary", .bool(true))) }
        if !linked.isEmpty { fields.append(("linked", .array(linked.map { .int($0) }))) }
        return .object(fields)
    }
}

/// One accessory (Photon publishes one per server: aid 1) and its services.
public struct HAPAccessory: Sendable, Equatable {
    public var aid: Int
    public var services: [HAPService]

    public init(aid: Int = 1, services: [HAPService]) {
        self.aid = aid
        self.services = services
    }

    /// The characteristic with instance id `iid`.
    public func characteristic(_ iid: Int) -> HAPCharacteristic? {
        for service in services { if let found = service.characteristics.first(where: { $0.iid == iid }) { return found } }
        return nil
    }

    /// Changes a characteristic's value; false if there is none with that id.
    @discardableResult
    public mutating func set(_ iid: Int, to value: HAPValue) -> Bool {
        for s in services.indices {
            if let c = services[s].characteristics.firstIndex(where: { $0.iid == iid }) {
                services[s].characteristics[c].value = value
                return true
            }
        }
        return false
    }

    /// The `/accessories` document.
    public var document: JSONValue {
        .object([("accessories", .array([.object([("aid", .int(aid)), ("services", .array(services.map { $0.json(aid: aid) }))])]))])
    }
}
