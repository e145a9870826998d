import AppleTVEmulator
import PhotonCore
import PhotonCrypto
import PhotonHAP
import Testing

@testable import AppleTV

/// Pair-setup and pair-verify between Photon's controller and the emulated Apple TV's
/// accessory, message by message, and every way the controller must fail closed.
@Suite struct HAPPairingTests {
    let tvKey = try! Ed25519PrivateKey()
    let tvID = Array("AA:BB:CC:DD:EE:FF".utf8)

    /// Runs pair-setup through the TLV8 wire form both ways.
    func pair(pin: String, shown: String = "1234", misbehaviour: PairSetupAccessory.Misbehaviour? = nil) throws -> (
        HAPCredentials, PairSetupAccessory
    ) {
        var accessory = try PairSetupAccessory(code: shown, accessoryID: tvID, signingKey: tvKey, misbehaviour: misbehaviour)
        var client = try PairSetupClient()
        func wire(_ tlv: TLV8) throws -> TLV8 { try TLV8.decode(tlv.encoded) }
        let m2 = try wire(try accessory.m2(answering: try wire(client.m1()), appleFlags: true))
        #expect(m2.byte(.appleFlags) == 1)
        let m4 = try wire(accessory.m4(answering: try wire(try client.m3(answering: m2, pin: pin))))
        let m6 = try wire(try accessory.m6(answering: try wire(try client.m5(answering: m4, name: "Photon"))))
        return (try client.credentials(from: m6), accessory)
    }

    @Test func pairingWithTheRightPINGivesBothSidesEachOthersKeys() throws {
        let (credentials, accessory) = try pair(pin: "1234")
        #expect(credentials.tvID == tvID)
        #expect(credentials.tvPublicKey == tvKey.publicKey)
        #expect(accessory.controller?.id == credentials.clientID)
        #expect(accessory.controller?.publicKey == (try Ed25519PrivateKey(rawRepresentation: credentials.clientKey)).publicKey)
    }

    @Test func aWrongPINIsRefusedWithItsReason() throws {
        let error = #expect(throws: PhotonError.self) { _ = try pair(pin: "4321") }
        #expect(error?.code == .authenticationRefused)
        #expect(error?.message.contains("PIN") == true)
        // A PIN keeps its leading zeros.
        #expect(throws: Never.self) { _ = try pair(pin: "0042", shown: "0042") }
        #expect(throws: PhotonError.self) { _ = try pair(pin: "42", shown: "0042") }
    }

    @Test func aTVThatDoesNotKnowThePINOrSignsWithAnotherKeyIsRefused() throws {
        let proof = #expect(throws: PhotonError.self) { _ = try pair(pin: "1234", misbehaviour: .wrongProof) }
        #expect(proof?.code == .authenticationRefused)
        let signature = #expect(throws: PhotonError.self) { _ = try pair(pin: "1234", misbehaviour: .wrongSignature) }
        #expect(signature?.message.contains("signature") == true)
    }

    func verify(_ credentials: HAPCredentials, accessoryKey: Ed25519PrivateKey? = nil, tvID: [UInt8]? = nil, impostor: Bool = false, known: [UInt8]?)
        throws -> ((outgoing: [UInt8], incoming: [UInt8]), (outgoing: [UInt8], incoming: [UInt8])?)
    {
        var accessory = try PairVerifyAccessory(
            accessoryID: tvID ?? self.tvID, signingKey: accessoryKey ?? tvKey, impostor: impostor,
            knows: { id in id == credentials.clientID ? known : nil })
        var client = try PairVerifyClient(credentials: credentials)
        let m2 = try TLV8.decode(try accessory.m2(answering: try TLV8.decode(client.m1().encoded)).encoded)
        let m3 = try client.m3(answering: m2)
        let (m4, verified) = try accessory.m4(answering: try TLV8.decode(m3.encoded))
        let tvKeys = try verified.map {
            (
                outgoing: try HKDF.sha512(secret: $0.sharedSecret, salt: "", info: "ServerEncrypt-main"),
                incoming: try HKDF.sha512(secret: $0.sharedSecret, salt: "", info: "ClientEncrypt-main")
            )
        }
        return (try client.sessionKeys(from: m4), tvKeys)
    }

    @Test func verifyDerivesMatchingKeysAndFailsClosedOnAnotherTV() throws {
        let (credentials, accessory) = try pair(pin: "1234")
        let clientKey = accessory.controller!.publicKey
        let (ours, theirs) = try verify(credentials, known: clientKey)
        #expect(ours.outgoing == theirs?.incoming)
        #expect(ours.incoming == theirs?.outgoing)
        #expect(ours.outgoing != ours.incoming)
        // Another key (a reset or replaced TV, an impostor): exit 5, before anything is sent.
        for (key, id, impostor) in [(try Ed25519PrivateKey(), tvID, false), (tvKey, Array("other".utf8), false), (tvKey, tvID, true)] {
            let error = #expect(throws: PhotonError.self) {
                _ = try verify(credentials, accessoryKey: key, tvID: id, impostor: impostor, known: clientKey)
            }
            #expect(error?.code == .pinMismatch)
        }
        // A TV that forgot us answers M4 with an error: exit 4, pair again.
        let forgotten = #expect(throws: PhotonError.self) { _ = try verify(credentials, known: nil) }
        #expect(forgotten?.code == .authenticationRefused)
    }

    @Test func tlv8SplitsAndJoinsLongValues() throws {
        let long = Array(repeating: UInt8(7), count: 600)
        let tlv = TLV8([(.state, [3]), (.publicKey, long), (.proof, [])])
        let bytes = tlv.encoded
        #expect(bytes.count == 3 + (2 + 255) * 2 + (2 + 90) + 2)
        #expect(try TLV8.decode(bytes) == tlv)
        #expect(throws: PhotonError.self) { try TLV8.decode([6, 5, 1]) }
        #expect(throws: PhotonError.self) { try TLV8.decode([6]) }
        #expect(throws: PhotonError.self) { try TLV8.decode([UInt8](repeating: 0, count: 70_000)) }
    }
}
