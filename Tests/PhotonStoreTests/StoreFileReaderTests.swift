import Foundation
import PhotonCore
import PhotonJSON
import Testing

@testable import PhotonStore

/// The store's files read without `Decodable` give exactly what `Decodable` gives, and
/// anything the reader does not expect goes to `Decodable` (and its errors).
@Suite struct StoreFileReaderTests {
    static let pin = String(repeating: "ab", count: 32)

    static let devicesFile = """
        {"schemaVersion": 1, "devices": [
          {"id": "roku-1", "nickname": "tv", "brand": "roku", "host": "127.0.0.1", "port": 8060, "ports": {"ecp": 8060},
           "name": "Living room", "model": "Roku Ultra", "mac": "02:00:00:00:00:01", "capabilities": ["keys", "text"],
           "pairedAt": "2026-12-06T20:56:40Z", "otherMACs": ["02:00:00:00:00:02"], "unencrypted": true},
          {"id": "lg-2", "nickname": "bedroom", "brand": "lg", "host": "::1", "port": 3001, "ports": {},
           "name": null, "capabilities": [], "pairedAt": "2026-12-06T20:56:40.250Z", "extra": {"ignored": [1, 2]}},
          {"id": "x", "nickname": "dup", "nickname": "last wins", "brand": "sony", "host": "h", "port": 80, "ports": {"a": 1, "a": 2},
           "capabilities": ["c"], "pairedAt": "2026-01-01T00:00:00+01:00"}
        ]}
        """

    static let secretsFile = """
        {"schemaVersion": 1,
         "identity": {"certificatePEM": "-----BEGIN CERTIFICATE-----", "privateKeyPEM": "-----BEGIN PRIVATE KEY-----",
                      "createdAt": "2026-12-06T20:56:40Z"},
         "devices": {"roku-1": {}, "lg-2": {"pin": "\(pin)", "clientKey": "k", "ignoredNumber": 3, "nothing": null},
                     "sam": {"pin": null, "token": "t", "token": "t2"}}}
        """

    func both<T: Decodable & Equatable>(_ type: T.Type, _ text: String) throws -> (reader: T?, decodable: Result<T, any Error>) {
        let value = try JSONValue.parse(Array(text.utf8), maximumDepth: 64)
        return (StoreFileReader.read(type, from: value), Result { try StoreFileDecoder.decodeThroughDecodable(type, from: value) })
    }

    /// `file` with `original` replaced: the reader refuses it, and what the store gets is
    /// Decodable's answer — the same records, or an error of `failure`'s kind.
    func expectDecodableDecides<T: Decodable & Equatable, E: Error>(
        _ type: T.Type, in file: String, replacing original: String, with replacement: String, failure: E.Type,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let text = file.replacingOccurrences(of: original, with: replacement)
        #expect(text != file, sourceLocation: sourceLocation)
        let result = try both(type, text)
        #expect(result.reader == nil, "the reader took \(replacement)", sourceLocation: sourceLocation)
        switch result.decodable {
        case .success(let decoded):
            #expect(try StoreFileDecoder.decode(type, from: Array(text.utf8)) == decoded, sourceLocation: sourceLocation)
        case .failure:
            #expect(throws: failure, sourceLocation: sourceLocation) { try StoreFileDecoder.decode(type, from: Array(text.utf8)) }
        }
    }

    @Test func wellFormedFilesReadAsDecodableReadsThem() throws {
        let devices = try both(DeviceFile.self, Self.devicesFile)
        let read = try #require(devices.reader, "the reader gave up on a well-formed devices.json")
        #expect(read == (try devices.decodable.get()))
        #expect(read.devices.count == 3)
        #expect(read.devices[2].nickname == "last wins" && read.devices[2].ports == ["a": 2])
        #expect(read.devices[0].otherMACs == ["02:00:00:00:00:02"] && read.devices[0].unencrypted == true)

        let secrets = try both(SecretFile.self, Self.secretsFile)
        let readSecrets = try #require(secrets.reader, "the reader gave up on a well-formed secrets.json")
        #expect(readSecrets == (try secrets.decodable.get()))
        #expect(readSecrets.devices["lg-2"]?.values == ["clientKey": "k"])
        #expect(readSecrets.devices["sam"]?["token"] == "t2")
        #expect(readSecrets.identity != nil)
        #expect(try both(SecretFile.self, #"{"schemaVersion": 1, "devices": {}}"#).reader == SecretFile())
    }

    @Test(arguments: [
        (#""port": 8060"#, #""port": 70000"#),
        (#""port": 8060"#, #""port": 8060.0"#),
        (#""port": 8060"#, #""port": "8060""#),
        (#""nickname": "tv", "#, ""),
        (#""capabilities": ["keys", "text"]"#, #""capabilities": ["keys", 1]"#),
        (#""ports": {"ecp": 8060}"#, #""ports": {"ecp": -1}"#),
        (#""pairedAt": "2026-12-06T20:56:40Z""#, #""pairedAt": "yesterday""#),
        (#""otherMACs": ["02:00:00:00:00:02"]"#, #""otherMACs": "02:00:00:00:00:02""#),
        (#""unencrypted": true"#, #""unencrypted": "yes""#),
        (#""mac": "02:00:00:00:00:01""#, #""mac": 2"#),
        (#""schemaVersion": 1"#, #""schemaVersion": "1""#),
    ])
    func anUnexpectedDeviceFieldGoesToDecodable(original: String, replacement: String) throws {
        try expectDecodableDecides(DeviceFile.self, in: Self.devicesFile, replacing: original, with: replacement, failure: DecodingError.self)
    }

    @Test(arguments: [
        (#""pin": "\#(pin)""#, #""pin": "not hex""#),
        (#""pin": "\#(pin)""#, #""pin": 5"#),
        (#""createdAt": "2026-12-06T20:56:40Z""#, #""createdAt": 5"#),
        (#""privateKeyPEM": "-----BEGIN PRIVATE KEY-----""#, #""privateKeyPEM": null"#),
        (#""roku-1": {}"#, #""roku-1": []"#),
    ])
    func anUnexpectedSecretGoesToDecodable(original: String, replacement: String) throws {
        try expectDecodableDecides(SecretFile.self, in: Self.secretsFile, replacing: original, with: replacement, failure: (any Error).self)
    }
}
