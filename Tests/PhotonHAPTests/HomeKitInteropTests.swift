import Foundation
import PhotonCore
import PhotonCrypto
import PhotonHAP
import PhotonTestSupport
import Testing

/// Photon's accessory side of HomeKit pairing against aiohomekit 4.0.1 as the controller
/// (it pairs as iOS does), run live: SRP byte for byte where A, B or S starts with a zero
/// byte, then pair-setup and pair-verify message by message, ending with the same Control
/// keys on both sides.
@Suite(.serialized) struct HomeKitInteropTests {
    static let code = "518-08-582"
    static let salt = "00a1b2c3d4e5f60718293a4b5c6d7e8f"
    static let plainA = "8000000000000000000000000000000000000000000000000000000000000001"
    static let plainB = "1122334455667788990011223344556677889900112233445566778899001122"
    /// Private values whose A, S or B has a leading zero byte (`homekit_peer.py search`).
    static let zeroA = "8000000000000000000000000000000000000000000000000000000000000044"
    static let zeroS = "8000000000000000000000000000000000000000000000000000000000000244"
    static let zeroB = "8000000000000000000000000000000000000000000000000000000000000084"

    let accessoryID = Array("1A:2B:3C:4D:5E:6F".utf8)
    let accessoryKey = try! Ed25519PrivateKey()

    @Test func srpMatchesAiohomekitWhereValuesStartWithZero() throws {
        for (a, b) in [(Self.zeroA, Self.plainB), (Self.zeroS, Self.plainB), (Self.plainA, Self.zeroB), (Self.plainA, Self.plainB)] {
            let (status, output) = try TestEnvironment.run(
                try TestEnvironment.python, [TestEnvironment.peerScript("homekit_peer.py"), "srp", Self.code, Self.salt, a, b])
            guard status == 0 else { throw TestFailure("homekit_peer.py srp failed: \(output)") }
            let expected = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: String])
            let salt = try Hex.decode(Self.salt)
            let client = try SRPClient(username: PairingKeys.username, password: Self.code, privateValue: try Hex.decode(a), convention: .padded)
            let server = try SRPServer(
                username: PairingKeys.username, password: Self.code, salt: salt, privateValue: try Hex.decode(b), convention: .padded)
            #expect(Hex.encode(client.publicValue) == expected["A"])
            #expect(Hex.encode(server.publicValue) == expected["B"])
            let (proof, key) = try client.respond(salt: salt, serverPublic: server.publicValue)
            #expect(Hex.encode(key) == expected["K"])
            #expect(Hex.encode(proof) == expected["M1"])
            let (_, serverProof) = try server.verify(clientPublic: client.publicValue, clientProof: proof)
            #expect(Hex.encode(serverProof) == expected["M2"])
        }
    }

    /// What one run of aiohomekit's controller did.
    struct Outcome {
        var keys: [String: String]?
        var error: String?
        var controller: (id: [UInt8], publicKey: [UInt8])?
        var ours: (write: [UInt8], read: [UInt8])?
    }

    /// Runs aiohomekit's pair-setup and pair-verify against `PairSetupAccessory` and
    /// `PairVerifyAccessory`, relaying each TLV8 message.
    func pair(
        code: String, shown: String = HomeKitInteropTests.code, controllerPrivate: String? = nil, convention: SRP.Convention = .padded,
        accessoryPrivate: String? = nil
    ) async throws -> Outcome {
        let pairingID = UUID().uuidString.uppercased()
        let peer = try TestProcess(
            try TestEnvironment.python,
            [TestEnvironment.peerScript("homekit_peer.py"), "controller", code, pairingID] + (controllerPrivate.map { [$0] } ?? []))
        defer { peer.terminate() }
        var setup = try PairSetupAccessory(
            code: shown, accessoryID: accessoryID, signingKey: accessoryKey, convention: convention, salt: try Hex.decode(Self.salt),
            privateValue: try accessoryPrivate.map { try Hex.decode($0) })
        var verify: PairVerifyAccessory?
        var outcome = Outcome()
        var sent = 0
        while let request = try await nextRequest(from: peer, index: sent) {
            sent += 1
            let answer: TLV8
            switch sent {
            case 1: answer = try setup.m2(answering: request)
            case 2: answer = setup.m4(answering: request)
            case 3:
                answer = try setup.m6(answering: request)
                outcome.controller = setup.controller
            case 4:
                let known = setup.controller
                var verifying = try PairVerifyAccessory(
                    accessoryID: accessoryID, signingKey: accessoryKey, knows: { id in id == known?.id ? known?.publicKey : nil })
                answer = try verifying.m2(answering: request)
                verify = verifying
            default:
                let (reply, verified) = try #require(verify).m4(answering: request)
                answer = reply
                if let shared = verified?.sharedSecret {
                    #expect(verified?.controllerID == Array(pairingID.utf8), "the controller's id is kept exactly as sent")
                    outcome.ours = (
                        try PairingKeys.derive(shared, PairingKeys.controllerToAccessory),
                        try PairingKeys.derive(shared, PairingKeys.accessoryToController)
                    )
                }
            }
            peer.writeToStandardInput(Hex.encode(answer.encoded) + "\n")
        }
        await peer.waitForExit(timeout: .seconds(20))
        for line in peer.standardOutput.split(separator: "\n") {
            if line.hasPrefix("keys ") {
                outcome.keys = try JSONSerialization.jsonObject(with: Data(line.dropFirst(5).utf8)) as? [String: String]
            } else if line.hasPrefix("error ") {
                outcome.error = String(line.dropFirst(6))
            }
        }
        return outcome
    }

    /// The peer's `index`th request, or nil once it has finished (keys or an error).
    func nextRequest(from peer: TestProcess, index: Int) async throws -> TLV8? {
        let end = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < end {
            let lines = peer.standardOutput.split(separator: "\n")
            let requests = lines.filter { $0.hasPrefix("send ") }
            if requests.count > index { return try TLV8.decode(try Hex.decode(String(requests[index].dropFirst(5)))) }
            if peer.status != nil || lines.contains(where: { $0.hasPrefix("keys ") || $0.hasPrefix("error ") }) { return nil }
            try await Task.sleep(for: .milliseconds(5))
        }
        throw TestFailure("aiohomekit sent no request \(index + 1).\nstdout: \(peer.standardOutput)\nstderr: \(peer.standardError)")
    }

    @Test func aiohomekitPairsAndVerifiesEvenWhereTheSecretStartsWithZero() async throws {
        // S with a leading zero byte (the case one pairing in 85 meets), then fresh values.
        for controllerPrivate in [Self.zeroS, nil] {
            let outcome = try await pair(
                code: Self.code, controllerPrivate: controllerPrivate, accessoryPrivate: controllerPrivate == nil ? nil : Self.plainB)
            #expect(outcome.error == nil)
            let keys = try #require(outcome.keys)
            #expect(keys["accessory"] == String(decoding: accessoryID, as: UTF8.self))
            #expect(keys["write"] == outcome.ours.map { Hex.encode($0.write) })
            #expect(keys["read"] == outcome.ours.map { Hex.encode($0.read) })
            #expect(keys["write"] != keys["read"])
        }
    }

    @Test func theMinimalConventionFailsAiohomekitWhereTheSecretStartsWithZero() async throws {
        // Why HomeKit needs its own convention: Companion's hashing, reused, fails at M4.
        let outcome = try await pair(code: Self.code, controllerPrivate: Self.zeroS, convention: .minimal, accessoryPrivate: Self.plainB)
        #expect(outcome.keys == nil)
        #expect(outcome.error?.hasPrefix("AuthenticationError") == true, "\(outcome.error ?? "no error")")
        #expect(outcome.controller == nil)
    }

    @Test func aWrongCodeEndsPairingAtM4WithAnAuthenticationError() async throws {
        let outcome = try await pair(code: "518-08-583")
        #expect(outcome.keys == nil)
        #expect(outcome.error?.hasPrefix("AuthenticationError") == true, "\(outcome.error ?? "no error")")
        #expect(outcome.controller == nil)
    }

    @Test func framesAndMessagesMatchAiohomekitsSessionBothWays() throws {
        let secret = try SecureRandom.bytes(32)
        var accessory = try HAPSessionCipher(accessoryWithSharedSecret: secret)
        var controller = try HAPSessionCipher(controllerWithSharedSecret: secret)
        let readKey = try PairingKeys.derive(secret, PairingKeys.accessoryToController)
        let writeKey = try PairingKeys.derive(secret, PairingKeys.controllerToAccessory)
        // Two requests, the second spanning two frames.
        let body = "{\"characteristics\":[{\"aid\":1,\"iid\":10,\"value\":\"\(String(repeating: "x", count: 1500))\"}]}"
        let requests = [
            "GET /accessories HTTP/1.1\r\nHost: tv.local\r\n\r\n",
            "PUT /characteristics HTTP/1.1\r\nHost: tv.local\r\nContent-Type: application/hap+json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)",
        ].map { Array($0.utf8) }
        // The answers and an event between them, the first answer spanning three frames.
        let accessories = Array("{\"accessories\":[{\"aid\":1,\"services\":[]}],\"pad\":\"\(String(repeating: "y", count: 2500))\"}".utf8)
        let event = Array("{\"characteristics\":[{\"aid\":1,\"iid\":9,\"value\":1}]}".utf8)
        var frames = try accessory.seal(HAPResponse.json(200, accessories).encoded)
        frames += try accessory.seal(HAPResponse.event(event).encoded)
        frames += try accessory.seal(HAPResponse(status: 204).encoded)
        let arguments = ["session", Hex.encode(readKey), Hex.encode(writeKey)] + requests.map { Hex.encode($0) } + ["--", Hex.encode(frames)]
        let (status, output) = try TestEnvironment.run(try TestEnvironment.python, [TestEnvironment.peerScript("homekit_peer.py")] + arguments)
        guard status == 0 else { throw TestFailure("homekit_peer.py session failed: \(output)") }
        let result = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])
        // aiohomekit seals byte for byte as Photon's controller side does, and the accessory
        // reads its requests back.
        let sent = try #require(result["sent"] as? [String])
        #expect(sent == (try requests.map { Hex.encode(try controller.seal($0)) }))
        var reader = HAPRequestReader()
        reader.append(try accessory.open(try Hex.decode(sent.joined())))
        #expect(try reader.next()?.path == "/accessories")
        #expect(try reader.next()?.body == Array(body.utf8))
        // aiohomekit reads the answers in order and the event apart.
        let responses = try #require(result["responses"] as? [[String: Any]])
        #expect(responses.map { $0["code"] as? Int } == [200, 204])
        #expect(responses.first?["body"] as? String == Hex.encode(accessories))
        let events = try #require(result["events"] as? [[String: Any]])
        #expect(events.count == 1)
        #expect(events.first?["body"] as? String == Hex.encode(event))
    }
}
