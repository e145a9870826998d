import Foundation
import PhotonCore
import PhotonJSON

/// Reads the store's two files straight from their parsed JSON into the records, without
/// the `Decodable` machinery: a cold `photon key` reads both, and in a new process the
/// generic containers of `Decodable` cost ~0.4 ms before the first field is read (the same
/// file decodes in a quarter of that the second time). It reads only what it expects —
/// every field of the right type, numbers in range, dates in the store's ISO 8601 form —
/// and says nil to anything else, which `StoreFileDecoder` then decodes through the
/// types' own `init(from:)`, so a damaged file gets exactly the error it always got. Tests
/// check that both paths give equal records for the same files.
enum StoreFileReader {
    /// `T` read from `value`, when `T` is a file this reader knows and `value` is well formed.
    static func read<T>(_ type: T.Type, from value: JSONValue) -> T? {
        if type == DeviceFile.self { return deviceFile(value) as? T }
        if type == SecretFile.self { return secretFile(value) as? T }
        return nil
    }

    static func deviceFile(_ value: JSONValue) -> DeviceFile? {
        guard let fields = Fields(value), let schemaVersion = fields.int("schemaVersion"),
            case .array(let items)? = fields["devices"]
        else { return nil }
        var devices: [DeviceRecord] = []
        devices.reserveCapacity(items.count)
        for item in items {
            guard let device = deviceRecord(item) else { return nil }
            devices.append(device)
        }
        var file = DeviceFile(devices: devices)
        file.schemaVersion = schemaVersion
        return file
    }

    static func deviceRecord(_ value: JSONValue) -> DeviceRecord? {
        guard let fields = Fields(value), let id = fields.string("id"), let nickname = fields.string("nickname"),
            let brand = fields.string("brand"), let host = fields.string("host"),
            let port = fields.int("port").flatMap(UInt16.init(exactly:)), let ports = fields.ports("ports"),
            let name = fields.optionalString("name"), let model = fields.optionalString("model"), let mac = fields.optionalString("mac"),
            let capabilities = fields.strings("capabilities"), let pairedAt = fields.date("pairedAt"),
            let otherMACs = fields.optional("otherMACs", { Fields.strings($0) }),
            let unencrypted = fields.optional("unencrypted", { if case .bool(let flag) = $0 { flag } else { nil } })
        else { return nil }
        var device = DeviceRecord(
            id: id, nickname: nickname, brand: brand, host: host, port: port, ports: ports, name: name, model: model, mac: mac,
            capabilities: capabilities, pairedAt: pairedAt)
        device.otherMACs = otherMACs
        device.unencrypted = unencrypted
        return device
    }

    static func secretFile(_ value: JSONValue) -> SecretFile? {
        guard let fields = Fields(value), let schemaVersion = fields.int("schemaVersion"),
            let identity = fields.optional("identity", { storedIdentity($0) }), let devicesValue = fields["devices"],
            let byDevice = Fields(devicesValue)
        else { return nil }
        var devices: [String: DeviceSecrets] = [:]
        for (id, entry) in byDevice.values {
            guard let secrets = deviceSecrets(entry) else { return nil }
            devices[id] = secrets
        }
        var file = SecretFile(identity: identity, devices: devices)
        file.schemaVersion = schemaVersion
        return file
    }

    static func storedIdentity(_ value: JSONValue) -> StoredIdentity? {
        guard let fields = Fields(value), let certificate = fields.string("certificatePEM"),
            let key = fields.string("privateKeyPEM"), let createdAt = fields.date("createdAt")
        else { return nil }
        return StoredIdentity(certificatePEM: certificate, privateKeyPEM: key, createdAt: createdAt)
    }

    /// The pin, and every other field that is a string (others are skipped, as
    /// `DeviceSecrets.init(from:)` skips them).
    static func deviceSecrets(_ value: JSONValue) -> DeviceSecrets? {
        guard let fields = Fields(value), let pin = fields.optional("pin", { Fields.text($0).flatMap { try? CertificateFingerprint(hex: $0) } })
        else { return nil }
        var secrets = DeviceSecrets(pin: pin)
        for (name, field) in fields.values where name != "pin" {
            if case .string(let text) = field { secrets.values[name] = text }
        }
        return secrets
    }

    /// An object's fields by name, the last of repeated names winning (as the decoder's).
    struct Fields {
        let values: [String: JSONValue]

        init?(_ value: JSONValue) {
            guard case .object(let fields) = value else { return nil }
            var values: [String: JSONValue] = [:]
            values.reserveCapacity(fields.count)
            for (name, field) in fields { values[name] = field }
            self.values = values
        }

        subscript(name: String) -> JSONValue? { values[name] }

        static func text(_ value: JSONValue) -> String? {
            if case .string(let text) = value { return text }
            return nil
        }

        static func strings(_ value: JSONValue) -> [String]? {
            guard case .array(let items) = value else { return nil }
            var strings: [String] = []
            strings.reserveCapacity(items.count)
            for item in items {
                guard case .string(let text) = item else { return nil }
                strings.append(text)
            }
            return strings
        }

        func string(_ name: String) -> String? { values[name].flatMap(Self.text) }
        func strings(_ name: String) -> [String]? { values[name].flatMap(Self.strings) }

        func int(_ name: String) -> Int? {
            if case .int(let number)? = values[name] { return number }
            return nil
        }

        func date(_ name: String) -> Date? { string(name).flatMap(ISO8601Date.parse) }

        func ports(_ name: String) -> [String: UInt16]? {
            guard let value = values[name], let fields = Fields(value) else { return nil }
            var ports: [String: UInt16] = [:]
            for (port, number) in fields.values {
                guard case .int(let raw) = number, let exact = UInt16(exactly: raw) else { return nil }
                ports[port] = exact
            }
            return ports
        }

        /// `.some(nil)` when the field is absent or null, `.some(value)` when `read` takes
        /// it, nil (give up) when it is there but not what `read` takes.
        func optional<Value>(_ name: String, _ read: (JSONValue) -> Value?) -> Value?? {
            guard let value = values[name] else { return .some(nil) }
            if case .null = value { return .some(nil) }
            guard let read = read(value) else { return nil }
            return .some(read)
        }

        func optionalString(_ name: String) -> String?? { optional(name, Self.text) }
    }
}

/// The store's two file formats decoded from bytes the way `Store` decodes them (the reader
/// first, `Decodable` for anything it does not take), and through `Decodable` alone: the
/// fuzz target `FuzzStoreFiles` checks that the two always agree, value or failure.
public enum StoreFileFormat {
    public static func devices(from bytes: [UInt8]) throws -> DeviceFile { try StoreFileDecoder.decode(DeviceFile.self, from: bytes) }

    public static func devicesThroughDecodable(from bytes: [UInt8]) throws -> DeviceFile {
        try StoreFileDecoder.decodeThroughDecodable(DeviceFile.self, from: try JSONValue.parse(bytes, maximumDepth: 64))
    }

    public static func secrets(from bytes: [UInt8]) throws -> SecretFile { try StoreFileDecoder.decode(SecretFile.self, from: bytes) }

    public static func secretsThroughDecodable(from bytes: [UInt8]) throws -> SecretFile {
        try StoreFileDecoder.decodeThroughDecodable(SecretFile.self, from: try JSONValue.parse(bytes, maximumDepth: 64))
    }
}
