import Foundation
import PhotonCore
import PhotonJSON
import Testing

@testable import PhotonStore

/// The store's own decoder reads what the store writes exactly as Foundation's
/// `JSONDecoder` did, and refuses what it refused, with the same kind of error.
@Suite struct StoreFileDecoderTests {
    /// What `Store.write` produces.
    func encoded<T: Encodable>(_ value: T) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        return Array(try encoder.encode(value))
    }

    func foundation<T: Decodable>(_ type: T.Type, _ bytes: [UInt8]) throws -> T {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try decoder.decode(type, from: Data(bytes))
    }

    @Test func readsWhatTheStoreWritesAsJSONDecoderDid() throws {
        var full = DeviceRecord(
            id: "lg-1f2e3d4c5b6a", nickname: "Living room \u{1F4FA} \"quoted\"", brand: "lg", host: "fe80::1%eth0", port: 3001,
            ports: ["plain": 3000, "pairing": 65535], name: "OLED55", model: "C3", mac: "AA:BB:CC:DD:EE:FF",
            capabilities: ["keys", "volume"], pairedAt: Date(timeIntervalSince1970: 1_796_537_861))
        full.otherMACs = ["11:22:33:44:55:66"]
        full.unencrypted = true
        let bare = DeviceRecord(id: "roku-yn00", nickname: "tv", brand: "roku", host: "127.0.0.1", port: 8060, pairedAt: .wholeSecondsNow)
        let devices = DeviceFile(devices: [full, bare])
        let devicesBytes = try encoded(devices)
        #expect(try StoreFileDecoder.decode(DeviceFile.self, from: devicesBytes) == foundation(DeviceFile.self, devicesBytes))
        #expect(try StoreFileDecoder.decode(DeviceFile.self, from: devicesBytes) == devices)

        let pin = try CertificateFingerprint(bytes: Array(0..<32))
        let secrets = SecretFile(
            identity: StoredIdentity(
                certificatePEM: "-----BEGIN CERTIFICATE-----\nMII\n", privateKeyPEM: "key", createdAt: Date(timeIntervalSince1970: 0)),
            devices: ["lg-1f2e3d4c5b6a": DeviceSecrets(pin: pin, values: ["client-key": "abc"]), "roku-yn00": DeviceSecrets()])
        let secretsBytes = try encoded(secrets)
        #expect(try StoreFileDecoder.decode(SecretFile.self, from: secretsBytes) == foundation(SecretFile.self, secretsBytes))
        #expect(try StoreFileDecoder.decode(SecretFile.self, from: secretsBytes) == secrets)
    }

    @Test func readsTheDatesISO8601Allows() throws {
        struct Stamp: Decodable { var at: Date }
        func date(_ text: String) throws -> Date? {
            try? StoreFileDecoder.decode(Stamp.self, from: Array(#"{"at":"\#(text)"}"#.utf8)).at
        }
        #expect(try date("1970-01-01T00:00:00Z") == Date(timeIntervalSince1970: 0))
        #expect(try date("2026-12-06T06:10:26Z") == Date(timeIntervalSince1970: 1_796_537_426))
        #expect(try date("2026-12-06T07:10:26+01:00") == Date(timeIntervalSince1970: 1_796_537_426))
        #expect(try date("2026-12-05T21:40:26-08:30") == Date(timeIntervalSince1970: 1_796_537_426))
        #expect(try date("2024-02-29T12:00:00.5Z") == Date(timeIntervalSince1970: 1_709_208_000.5))
        #expect(try date("1969-12-31T23:59:59Z") == Date(timeIntervalSince1970: -1))
        // Each agrees with Foundation's reading of the same text.
        for text in ["2000-03-01T00:00:00Z", "2100-12-31T23:59:59Z", "2026-06-30T12:34:56+05:45"] {
            #expect(try date(text) == foundation(Stamp.self, Array(#"{"at":"\#(text)"}"#.utf8)).at)
        }
        for bad in [
            "2026-12-06", "2026-12-06T06:10:26", "2023-02-29T00:00:00Z", "2026-13-01T00:00:00Z", "2026-12-06T24:00:00Z",
            "2026-12-06T06:60:00Z", "2026-12-06 06:10:26Z", "2026-12-06T06:10:26Zjunk", "2026-12-06T06:10:26+1:00", "2026-12-06T06:10:26.Z",
            "",
        ] {
            #expect(try date(bad) == nil, "\(bad)")
        }
    }

    @Test func refusesWhatJSONDecoderRefusedWithTheSameKindOfError() throws {
        struct Port: Decodable { var port: UInt16 }
        struct Name: Decodable { var name: String }
        struct Names: Decodable { var names: [String] }
        func kind(_ error: any Error) -> String {
            switch error {
            case DecodingError.typeMismatch: return "typeMismatch"
            case DecodingError.keyNotFound: return "keyNotFound"
            case DecodingError.valueNotFound: return "valueNotFound"
            case DecodingError.dataCorrupted: return "dataCorrupted"
            default: return "other"
            }
        }
        func both<T: Decodable>(_ type: T.Type, _ text: String) -> (ours: String, foundation: String) {
            var ours = "decoded"
            var theirs = "decoded"
            do { _ = try StoreFileDecoder.decode(type, from: Array(text.utf8)) } catch { ours = kind(error) }
            do { _ = try foundation(type, Array(text.utf8)) } catch { theirs = kind(error) }
            return (ours, theirs)
        }
        let cases: [(String, (ours: String, foundation: String))] = [
            ("port out of range", both(Port.self, #"{"port":70000}"#)),
            ("negative port", both(Port.self, #"{"port":-1}"#)),
            ("port as text", both(Port.self, #"{"port":"80"}"#)),
            ("missing key", both(Name.self, #"{"nom":"x"}"#)),
            ("null value", both(Name.self, #"{"name":null}"#)),
            ("number for text", both(Name.self, #"{"name":1}"#)),
            ("object for array", both(Names.self, #"{"names":{}}"#)),
            ("null in array", both(Names.self, #"{"names":["a",null]}"#)),
            ("array at top", both(Name.self, #"["name"]"#)),
        ]
        for (label, result) in cases {
            #expect(result.ours == result.foundation, "\(label): ours \(result.ours), JSONDecoder \(result.foundation)")
            #expect(result.ours != "decoded", "\(label)")
        }
        // A coding path names where: the second device's port.
        func device(_ id: String, port: String) -> String {
            #"{"id":"\#(id)","nickname":"\#(id)","brand":"roku","host":"h","port":\#(port),"ports":{},"capabilities":[],"#
                + #""pairedAt":"2026-01-01T00:00:00Z"}"#
        }
        let text = #"{"schemaVersion":1,"devices":["# + device("a", port: "1") + "," + device("b", port: #""x""#) + "]}"
        do {
            _ = try StoreFileDecoder.decode(DeviceFile.self, from: Array(text.utf8))
            Issue.record("a text port decoded")
        } catch DecodingError.typeMismatch(_, let context) {
            #expect(context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue } == ["devices", "1", "port"])
        }
        // Malformed JSON is a parse error that says where.
        #expect(throws: JSONParseError.self) { try StoreFileDecoder.decode(DeviceFile.self, from: Array(#"{"schemaVersion":1,"#.utf8)) }
    }

    @Test func aRepeatedKeyTakesTheLastValueAndAManyDeviceFileDecodesWhole() throws {
        struct Name: Decodable { var name: String }
        #expect(try StoreFileDecoder.decode(Name.self, from: Array(#"{"name":"first","name":"last"}"#.utf8)).name == "last")
        let pairedAt = Date.wholeSecondsNow
        let many = DeviceFile(
            devices: (0..<2000).map {
                DeviceRecord(
                    id: "roku-\($0)", nickname: "tv\($0)", brand: "roku", host: "10.0.\($0 / 256).\($0 % 256)", port: 8060, pairedAt: pairedAt)
            })
        let decoded = try StoreFileDecoder.decode(DeviceFile.self, from: try encoded(many))
        #expect(decoded.devices.count == 2000 && decoded == many)
    }
}
