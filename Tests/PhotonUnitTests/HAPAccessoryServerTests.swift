import PhotonCore
import PhotonJSON
import Testing

@testable import PhotonHAP

/// The accessory server's rules without a socket: setup codes and the setup payload, what
/// a controller may do before pair-verify, pair-setup while another runs or after too many
/// wrong codes, and how written values are checked. HomeKitAccessoryTests drives the same
/// server with aiohomekit over TCP.
@Suite struct HAPAccessoryServerTests {
    final class Television: HAPAccessoryDelegate {
        func perform(_ request: HAPTelevision.Request, controller: String) async -> HAPStatus { .success }
        func store(_ identity: HAPAccessoryIdentity) async throws {}
        func log(_ line: String) {}
    }

    func server() throws -> HAPAccessoryServer {
        let model = HAPTelevision(
            name: "TV", manufacturer: "Photon", model: "Test", serialNumber: "1", inputs: [.init(identifier: 1, name: "HDMI 1", kind: 3)],
            hasVolumeLevel: false)
        return HAPAccessoryServer(
            identity: try .fresh(setupCode: try HAPSetupCode("518-08-582")), accessory: model.accessory, delegate: Television())
    }

    /// A connection whose written bytes are collected.
    func connect(_ server: HAPAccessoryServer) -> (HAPConnection, Locked<[UInt8]>) {
        let written = Locked<[UInt8]>([])
        return (server.connect(write: { bytes in written.withLock { $0 += bytes } }, close: {}), written)
    }

    func request(_ method: String, _ path: String, body: [UInt8] = []) -> [UInt8] {
        Array("\(method) \(path) HTTP/1.1\r\nHost: tv\r\nContent-Length: \(body.count)\r\n\r\n".utf8) + body
    }

    /// The status line and the body of the last answer written.
    func answer(_ written: Locked<[UInt8]>) throws -> (status: String, body: [UInt8]) {
        let bytes = written.withLock { $0 }
        let text = String(decoding: bytes, as: UTF8.self)
        let status = String(text.split(separator: "\r\n").first ?? "")
        let headEnd = try #require(HAPRequestReader.endOfHead(in: bytes))
        return (status, Array(bytes[(headEnd + 4)...]))
    }

    @Test func setupCodesRefuseTrivialOnesAndTheSetupPayloadIsHAPs() throws {
        #expect(try HAPSetupCode("51808582").formatted == "518-08-582")
        #expect(try HAPSetupCode("518-08-582").digits == "51808582")
        for bad in ["111-11-111", "123-45-678", "876-54-321", "5180858", "518-085-82", "abc-de-fgh", "000-00-000"] {
            #expect(throws: PhotonError.self, "\(bad)") { try HAPSetupCode(bad) }
        }
        for _ in 0..<50 {
            let code = try HAPSetupCode.random()
            #expect(code.digits.count == 8 && !HAPSetupCode.isTrivial(code.digits))
        }
        // Computed independently: base36(31 << 31 | 2 << 27 | 51808582), and
        // base64(SHA-512("7OSX" + "1A:2B:3C:4D:5E:6F")[0..<4]).
        #expect(HAPSetupPayload.uri(code: try HAPSetupCode("518-08-582"), setupID: "7OSX") == "X-HM://00UQ9WSHY7OSX")
        #expect(HAPSetupPayload.setupHash(setupID: "7OSX", deviceID: "1A:2B:3C:4D:5E:6F") == "fGnuZQ==")
        let txt = Dictionary(
            uniqueKeysWithValues: HAPSetupPayload.txtRecord(
                deviceID: "1A:2B:3C:4D:5E:6F", model: "Photon", configurationNumber: 3, paired: false, setupID: "7OSX"
            ).map { ($0.key, $0.value) })
        #expect(
            txt == ["c#": "3", "ff": "0", "id": "1A:2B:3C:4D:5E:6F", "md": "Photon", "pv": "1.1", "s#": "1", "sf": "1", "ci": "31", "sh": "fGnuZQ=="])
        let id = try HAPSetupPayload.randomDeviceID()
        #expect(id.count == 17 && id.split(separator: ":").count == 6)
        var identity = try HAPAccessoryIdentity.fresh()
        identity.configurationNumber = 65_535
        identity.bumpConfiguration()
        #expect(identity.configurationNumber == 1)
    }

    @Test func beforePairVerifyOnlyPairingAndIdentifyAreAnswered() async throws {
        let server = try server()
        for (method, path) in [("GET", "/accessories"), ("GET", "/characteristics?id=1.11"), ("PUT", "/characteristics"), ("POST", "/pairings")] {
            let (connection, written) = connect(server)
            try await connection.receive(request(method, path))
            let (status, body) = try answer(written)
            #expect(status == "HTTP/1.1 470 Connection Authorization Required", "\(path)")
            #expect(try JSONValue.parse(body)["status"]?.intValue == -70411)
        }
        let (connection, written) = connect(server)
        try await connection.receive(request("POST", "/identify"))
        #expect(try answer(written).status == "HTTP/1.1 204 No Content")
        // A pair-verify from a controller nobody paired ends at M4 with error 2: see
        // HomeKitAccessoryTests (an impostor, an unknown id).
    }

    @Test func pairSetupIsOneAtATimeAndStopsAfterTooManyWrongCodes() async throws {
        let server = try server()
        let m1 = request("POST", "/pair-setup", body: TLV8([(.state, [1]), (.method, [0])]).encoded)
        let (first, firstWritten) = connect(server)
        try await first.receive(m1)
        #expect(try TLV8.decode(try answer(firstWritten).body).byte(.state) == 2)
        #expect(try TLV8.decode(try answer(firstWritten).body)[.publicKey]?.count == 384, "B is sent padded")
        let (second, secondWritten) = connect(server)
        try await second.receive(m1)
        #expect(try TLV8.decode(try answer(secondWritten).body).byte(.error) == TLV8.ErrorCode.busy.rawValue)
        // The first one closes: the next may pair.
        first.closed()
        let (third, thirdWritten) = connect(server)
        try await third.receive(m1)
        #expect(try TLV8.decode(try answer(thirdWritten).body).byte(.error) == nil)
        third.closed()
        // Ten wrong codes, then MaxTries for everyone.
        server.state.withLock { $0.wrongCodes = HAPAccessoryServer.maximumWrongCodes }
        let (late, lateWritten) = connect(server)
        try await late.receive(m1)
        #expect(try TLV8.decode(try answer(lateWritten).body).byte(.error) == TLV8.ErrorCode.maxTries.rawValue)
    }

    @Test func aCopyOfTheStoreReadWhileTheServerChangedIsNotAdopted() throws {
        let server = try server()
        var paired = server.identity
        paired.pairings = [HAPPairing(id: "ADMIN", publicKey: [UInt8](repeating: 1, count: 32), isAdmin: true)]
        // A copy read before the server's own change (its generation moved since): left alone.
        let before = server.generation
        server.state.withLock { s in
            s.identity = paired
            s.generation += 1
        }
        var stale = paired
        stale.pairings = []
        server.adopt(stale, since: before)
        #expect(server.identity.isPaired)
        // A copy read after it (a revoke from the CLI): taken.
        server.adopt(stale, since: server.generation)
        #expect(!server.identity.isPaired)
    }

    @Test func writtenValuesAreCheckedAgainstTheirFormat() {
        let active = HAPCharacteristic("B0", iid: 11, format: .uint8, permissions: [.read, .write], minimum: 0, maximum: 1, validValues: [0, 1])
        #expect(active.accepting(.int(1)) == .int(1))
        #expect(active.accepting(.bool(true)) == .int(1))
        #expect(active.accepting(.int(2)) == nil)
        #expect(active.accepting(.string("1")) == nil)
        let mute = HAPCharacteristic("11A", iid: 31, format: .bool, permissions: [.read, .write])
        #expect(mute.accepting(.int(1)) == .bool(true))
        #expect(mute.accepting(.bool(false)) == .bool(false))
        #expect(mute.accepting(.int(2)) == nil)
        let volume = HAPCharacteristic("119", iid: 35, format: .uint8, permissions: [.read, .write], minimum: 0, maximum: 100)
        #expect(volume.accepting(.int(100)) == .int(100))
        #expect(volume.accepting(.int(101)) == nil)
        #expect(volume.accepting(.int(-1)) == nil)
        let name = HAPCharacteristic("E3", iid: 13, format: .string, permissions: [.read, .write])
        #expect(name.accepting(.string(String(repeating: "a", count: 64))) != nil)
        #expect(name.accepting(.string(String(repeating: "a", count: 65))) == nil)
        #expect(HAPTelevision.request(writing: .int(1), to: HAPTelevision.IIDs.active) == .power(on: true))
        #expect(HAPTelevision.request(writing: .int(1), to: HAPTelevision.IIDs.volumeSelector) == .volumeStep(up: false))
        #expect(HAPTelevision.request(writing: .int(0), to: HAPTelevision.IIDs.targetMediaState) == .media(play: true))
        #expect(HAPTelevision.request(writing: .string("Den"), to: HAPTelevision.IIDs.configuredName) == nil)
    }

    @Test func theTelevisionAccessoryHasAtMostNinetyInputsAndStableIDs() throws {
        let inputs = (1...120).map { HAPTelevision.Input(identifier: $0, name: "Input \($0)", kind: 3) }
        let television = HAPTelevision(name: "TV", manufacturer: "P", model: "M", serialNumber: "S", inputs: inputs, hasVolumeLevel: true)
        let accessory = television.accessory
        #expect(accessory.services.count <= 100)
        #expect(accessory.services.filter { $0.type == "D9" }.count == 90)
        let iids = accessory.services.flatMap { [$0.iid] + $0.characteristics.map(\.iid) }
        #expect(Set(iids).count == iids.count, "instance ids are unique")
        let document = try JSONValue.parse(accessory.document.encoded)
        #expect(document["accessories"]?.arrayValue?.first?["aid"]?.intValue == 1)
    }
}
