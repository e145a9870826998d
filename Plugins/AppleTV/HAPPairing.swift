import Foundation
import PhotonCore
import PhotonCrypto
import PhotonHAP

/// What pairing with an Apple TV leaves: our long-term Ed25519 key and identifier, and the
/// Apple TV's identifier and long-term public key — the key every later connection must
/// prove it holds (this brand's pin).
public struct HAPCredentials: Sendable, Equatable {
    public var clientID: [UInt8]
    public var clientKey: [UInt8]
    public var tvID: [UInt8]
    public var tvPublicKey: [UInt8]

    public init(clientID: [UInt8], clientKey: [UInt8], tvID: [UInt8], tvPublicKey: [UInt8]) {
        self.clientID = clientID
        self.clientKey = clientKey
        self.tvID = tvID
        self.tvPublicKey = tvPublicKey
    }
}

/// How a controller reads the Apple TV's pairing messages: its refusals as errors a user
/// can act on, and the items each message must carry.
enum HAPLabels {
    /// The error a peer's error item means.
    static func refusal(_ tlv: TLV8, during what: String) -> PhotonError? {
        guard let code = tlv.byte(.error) else { return nil }
        switch TLV8.ErrorCode(rawValue: code) {
        case .authentication?:
            return PhotonError(.authenticationRefused, "the Apple TV refused the PIN during \(what)", hint: "check the PIN on the TV and pair again")
        case .backOff?, .maxTries?:
            return PhotonError(
                .pairingRefused, "the Apple TV is refusing pairing attempts for a while (too many tries)", hint: "wait a minute, then pair again")
        case .maxPeers?: return PhotonError(.pairingRefused, "the Apple TV has no room for another paired device")
        case .busy?: return PhotonError(.pairingRefused, "the Apple TV is busy pairing with another device", hint: "try again in a moment")
        default: return PhotonError(.pairingRefused, "the Apple TV ended \(what) with error \(code)")
        }
    }

    static func expect(_ tlv: TLV8, state: UInt8, during what: String) throws {
        if let refusal = refusal(tlv, during: what) { throw refusal }
        guard tlv.byte(.state) == state else {
            throw PhotonError(
                .protocolViolation, "the Apple TV sent pairing state \(tlv.byte(.state).map(String.init) ?? "none") during \(what), expected \(state)"
            )
        }
    }

    static func require(_ tlv: TLV8, _ tag: TLV8.Tag, count: Int? = nil, during what: String) throws -> [UInt8] {
        guard let value = tlv[tag], count.map({ value.count == $0 }) ?? !value.isEmpty else {
            throw PhotonError(.protocolViolation, "a pairing message of \(what) lacks a valid \(tag)")
        }
        return value
    }
}

/// Pair-setup as a controller (Photon): M1, then M3 from the Apple TV's salt and SRP
/// public value and the PIN, then M5 once the TV's M4 proof checks out, then the TV's
/// long-term key from M6 — whose signature is checked too.
public struct PairSetupClient: Sendable {
    public let clientID: [UInt8]
    let signingKey: Ed25519PrivateKey
    var srp: SRPClient?
    var clientProof: [UInt8] = []
    var sessionKey: [UInt8] = []

    public init(clientID: [UInt8] = Array(UUID().uuidString.utf8), signingKey: Ed25519PrivateKey? = nil) throws {
        self.clientID = clientID
        self.signingKey = try signingKey ?? Ed25519PrivateKey()
    }

    public func m1() -> TLV8 { TLV8([(.method, [0]), (.state, [1])]) }

    public mutating func m3(answering m2: TLV8, pin: String) throws -> TLV8 {
        try HAPLabels.expect(m2, state: 2, during: "pairing")
        let salt = try HAPLabels.require(m2, .salt, during: "M2")
        let serverPublic = try HAPLabels.require(m2, .publicKey, during: "M2")
        let client = try SRPClient(username: PairingKeys.username, password: pin)
        let (proof, key) = try client.respond(salt: salt, serverPublic: serverPublic)
        srp = client
        clientProof = proof
        sessionKey = key
        return TLV8([(.state, [3]), (.publicKey, client.publicValue), (.proof, proof)])
    }

    public mutating func m5(answering m4: TLV8, name: String? = nil) throws -> TLV8 {
        try HAPLabels.expect(m4, state: 4, during: "the PIN check")
        let serverProof = try HAPLabels.require(m4, .proof, during: "M4")
        guard let srp, srp.isValid(serverProof: serverProof, clientProof: clientProof, key: sessionKey) else {
            throw PhotonError(
                .authenticationRefused, "the Apple TV's proof does not match: it does not know the PIN (not the TV it claims to be?)")
        }
        let signInput = try PairingKeys.derive(sessionKey, PairingKeys.controllerSign) + clientID + signingKey.publicKey
        var items: [(TLV8.Tag, [UInt8])] = [
            (.identifier, clientID), (.publicKey, signingKey.publicKey), (.signature, try signingKey.signature(for: signInput)),
        ]
        if let name { items.append((.name, OPACK.object([("name", .string(name))]).encoded)) }
        let encrypted = try ChaChaPoly.seal(
            TLV8(items).encoded, key: try PairingKeys.derive(sessionKey, PairingKeys.setupEncrypt), nonce: ChaChaPoly.nonce(label: "PS-Msg05"))
        return TLV8([(.state, [5]), (.encryptedData, encrypted)])
    }

    public func credentials(from m6: TLV8) throws -> HAPCredentials {
        try HAPLabels.expect(m6, state: 6, during: "the key exchange")
        let encrypted = try HAPLabels.require(m6, .encryptedData, during: "M6")
        let plain: [UInt8]
        do {
            plain = try ChaChaPoly.open(
                encrypted, key: try PairingKeys.derive(sessionKey, PairingKeys.setupEncrypt), nonce: ChaChaPoly.nonce(label: "PS-Msg06"))
        } catch { throw PhotonError(.authenticationRefused, "the Apple TV's M6 does not decrypt") }
        let inner = try TLV8.decode(plain)
        let tvID = try HAPLabels.require(inner, .identifier, during: "M6")
        let tvKey = try HAPLabels.require(inner, .publicKey, count: 32, during: "M6")
        let signature = try HAPLabels.require(inner, .signature, count: 64, during: "M6")
        let signed = try PairingKeys.derive(sessionKey, PairingKeys.accessorySign) + tvID + tvKey
        guard Ed25519.isValid(signature: signature, for: signed, publicKey: tvKey) else {
            throw PhotonError(.authenticationRefused, "the Apple TV's signature in M6 does not verify", hint: "nothing was stored; pair again")
        }
        return HAPCredentials(clientID: clientID, clientKey: signingKey.rawRepresentation, tvID: tvID, tvPublicKey: tvKey)
    }
}

/// Pair-verify as a controller, on every connection: an X25519 exchange in which the Apple
/// TV signs with the long-term key learned at pairing. Another key fails closed
/// (`pinMismatch`, exit 5) before anything is sent. Gives the session's keys.
public struct PairVerifyClient: Sendable {
    let credentials: HAPCredentials
    let ephemeral: X25519PrivateKey
    var shared: [UInt8] = []

    public init(credentials: HAPCredentials) throws {
        self.credentials = credentials
        ephemeral = try X25519PrivateKey()
    }

    public func m1() -> TLV8 { TLV8([(.state, [1]), (.publicKey, ephemeral.publicKey)]) }

    public mutating func m3(answering m2: TLV8) throws -> TLV8 {
        try HAPLabels.expect(m2, state: 2, during: "verification")
        let tvEphemeral = try HAPLabels.require(m2, .publicKey, count: 32, during: "M2")
        let encrypted = try HAPLabels.require(m2, .encryptedData, during: "M2")
        shared = try ephemeral.sharedSecret(with: tvEphemeral)
        let key = try PairingKeys.derive(shared, PairingKeys.verifyEncrypt)
        let inner: TLV8
        do {
            inner = try TLV8.decode(try ChaChaPoly.open(encrypted, key: key, nonce: ChaChaPoly.nonce(label: "PV-Msg02")))
        } catch {
            throw PhotonError(.pinMismatch, "the Apple TV's verification message does not decrypt", hint: Self.hint)
        }
        let tvID = try HAPLabels.require(inner, .identifier, during: "M2")
        let signature = try HAPLabels.require(inner, .signature, count: 64, during: "M2")
        guard tvID == credentials.tvID else {
            throw PhotonError(.pinMismatch, "another Apple TV answers at this address (its identifier differs)", hint: Self.hint)
        }
        guard Ed25519.isValid(signature: signature, for: tvEphemeral + tvID + ephemeral.publicKey, publicKey: credentials.tvPublicKey) else {
            throw PhotonError(.pinMismatch, "the Apple TV did not prove it holds the key it was paired with; nothing was sent", hint: Self.hint)
        }
        let ours = try Ed25519PrivateKey(rawRepresentation: credentials.clientKey)
        let proof = try ours.signature(for: ephemeral.publicKey + credentials.clientID + tvEphemeral)
        let sealed = try ChaChaPoly.seal(
            TLV8([(.identifier, credentials.clientID), (.signature, proof)]).encoded, key: key, nonce: ChaChaPoly.nonce(label: "PV-Msg03"))
        return TLV8([(.state, [3]), (.encryptedData, sealed)])
    }

    /// Checks the TV's M4 and gives the session's (outgoing, incoming) keys.
    public func sessionKeys(from m4: TLV8) throws -> (outgoing: [UInt8], incoming: [UInt8]) {
        if let refusal = HAPLabels.refusal(m4, during: "verification") {
            throw PhotonError(.authenticationRefused, refusal.message + ": the Apple TV no longer knows this client", hint: "pair it again")
        }
        guard m4.byte(.state) == 4 else { throw PhotonError(.protocolViolation, "the Apple TV did not finish verification") }
        return (
            try HKDF.sha512(secret: shared, salt: "", info: "ClientEncrypt-main"),
            try HKDF.sha512(secret: shared, salt: "", info: "ServerEncrypt-main")
        )
    }

    static let hint = "if the Apple TV was reset or replaced, pair it again; otherwise something else answers at its address"
}
