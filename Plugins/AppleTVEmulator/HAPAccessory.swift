import AppleTV
import PhotonCore
import PhotonCrypto

/// The emulated Apple TV's side of pair-setup: M2 with its salt and SRP value for the
/// PIN it shows, M4 once the controller proves the PIN, M6 with its long-term key once the
/// controller's own key and signature check out. Misbehaviour hooks let tests see the
/// client's checks fail closed.
public struct PairSetupAccessory: Sendable {
    public enum Misbehaviour: Sendable, Equatable {
        /// M4 with a proof that does not match.
        case wrongProof
        /// M6 signed by another key than the one it carries.
        case wrongSignature
    }

    public let tvID: [UInt8]
    let signingKey: Ed25519PrivateKey
    let srp: SRPServer
    var misbehaviour: Misbehaviour?
    var sessionKey: [UInt8] = []
    /// The controller that finished pairing: its identifier and long-term key.
    public private(set) var controller: (id: [UInt8], publicKey: [UInt8])?

    public init(pin: String, tvID: [UInt8], signingKey: Ed25519PrivateKey, misbehaviour: Misbehaviour? = nil) throws {
        self.tvID = tvID
        self.signingKey = signingKey
        self.misbehaviour = misbehaviour
        srp = try SRPServer(username: "Pair-Setup", password: pin)
    }

    public func m2(answering m1: TLV8) throws -> TLV8 {
        guard m1.byte(.state) == 1, m1.byte(.method) == 0 else { return Self.error(state: 2, .unknown) }
        return TLV8([(.state, [2]), (.salt, srp.salt), (.publicKey, srp.publicValue), (.appleFlags, [1])])
    }

    public mutating func m4(answering m3: TLV8) -> TLV8 {
        guard m3.byte(.state) == 3, let clientPublic = m3[.publicKey], let proof = m3[.proof],
            let (key, serverProof) = try? srp.verify(clientPublic: clientPublic, clientProof: proof)
        else { return Self.error(state: 4, .authentication) }
        sessionKey = key
        var answer = serverProof
        if misbehaviour == .wrongProof { answer[0] ^= 0xFF }
        return TLV8([(.state, [4]), (.proof, answer)])
    }

    public mutating func m6(answering m5: TLV8) throws -> TLV8 {
        let encryptKey = try HKDF.sha512(secret: sessionKey, salt: "Pair-Setup-Encrypt-Salt", info: "Pair-Setup-Encrypt-Info")
        guard m5.byte(.state) == 5, !sessionKey.isEmpty, let sealed = m5[.encryptedData],
            let plain = try? ChaChaPoly.open(sealed, key: encryptKey, nonce: ChaChaPoly.nonce(label: "PS-Msg05")),
            let inner = try? TLV8.decode(plain), let id = inner[.identifier], let key = inner[.publicKey], key.count == 32,
            let signature = inner[.signature]
        else { return Self.error(state: 6, .authentication) }
        let signed = try HKDF.sha512(secret: sessionKey, salt: "Pair-Setup-Controller-Sign-Salt", info: "Pair-Setup-Controller-Sign-Info") + id + key
        guard Ed25519.isValid(signature: signature, for: signed, publicKey: key) else { return Self.error(state: 6, .authentication) }
        controller = (id, key)
        let ourSigned =
            try HKDF.sha512(secret: sessionKey, salt: "Pair-Setup-Accessory-Sign-Salt", info: "Pair-Setup-Accessory-Sign-Info") + tvID
            + signingKey.publicKey
        var signature6 = try signingKey.signature(for: ourSigned)
        if misbehaviour == .wrongSignature { signature6 = try Ed25519PrivateKey().signature(for: ourSigned) }
        let reply = TLV8([(.identifier, tvID), (.publicKey, signingKey.publicKey), (.signature, signature6)])
        let encrypted = try ChaChaPoly.seal(reply.encoded, key: encryptKey, nonce: ChaChaPoly.nonce(label: "PS-Msg06"))
        return TLV8([(.state, [6]), (.encryptedData, encrypted)])
    }

    static func error(state: UInt8, _ code: TLV8.ErrorCode) -> TLV8 { TLV8([(.state, [state]), (.error, [code.rawValue])]) }
}

/// The emulated Apple TV's side of pair-verify: it signs the exchange with its long-term
/// key and accepts only controllers it paired with.
public struct PairVerifyAccessory: Sendable {
    public let tvID: [UInt8]
    let signingKey: Ed25519PrivateKey
    let ephemeral: X25519PrivateKey
    let knows: @Sendable ([UInt8]) -> [UInt8]?
    var shared: [UInt8] = []
    var clientEphemeral: [UInt8] = []
    /// Signs with another key (a TV that is not the one paired).
    let impostor: Bool

    /// `knows` gives a paired controller's long-term public key by its identifier.
    public init(tvID: [UInt8], signingKey: Ed25519PrivateKey, impostor: Bool = false, knows: @escaping @Sendable ([UInt8]) -> [UInt8]?) throws {
        self.tvID = tvID
        self.signingKey = signingKey
        self.impostor = impostor
        self.knows = knows
        ephemeral = try X25519PrivateKey()
    }

    public mutating func m2(answering m1: TLV8) throws -> TLV8 {
        guard m1.byte(.state) == 1, let clientKey = m1[.publicKey], clientKey.count == 32,
            let secret = try? ephemeral.sharedSecret(with: clientKey)
        else { return PairSetupAccessory.error(state: 2, .authentication) }
        shared = secret
        clientEphemeral = clientKey
        let signer = impostor ? try Ed25519PrivateKey() : signingKey
        let signature = try signer.signature(for: ephemeral.publicKey + tvID + clientKey)
        let key = try HKDF.sha512(secret: shared, salt: "Pair-Verify-Encrypt-Salt", info: "Pair-Verify-Encrypt-Info")
        let sealed = try ChaChaPoly.seal(
            TLV8([(.identifier, tvID), (.signature, signature)]).encoded, key: key, nonce: ChaChaPoly.nonce(label: "PV-Msg02"))
        return TLV8([(.state, [2]), (.publicKey, ephemeral.publicKey), (.encryptedData, sealed)])
    }

    /// M4, and the session's (outgoing, incoming) keys from the TV's side when the
    /// controller proved itself.
    public func m4(answering m3: TLV8) throws -> (TLV8, keys: (outgoing: [UInt8], incoming: [UInt8])?) {
        let key = try HKDF.sha512(secret: shared, salt: "Pair-Verify-Encrypt-Salt", info: "Pair-Verify-Encrypt-Info")
        guard m3.byte(.state) == 3, !shared.isEmpty, let sealed = m3[.encryptedData],
            let plain = try? ChaChaPoly.open(sealed, key: key, nonce: ChaChaPoly.nonce(label: "PV-Msg03")),
            let inner = try? TLV8.decode(plain), let id = inner[.identifier], let signature = inner[.signature], let known = knows(id),
            Ed25519.isValid(signature: signature, for: clientEphemeral + id + ephemeral.publicKey, publicKey: known)
        else { return (PairSetupAccessory.error(state: 4, .authentication), nil) }
        let keys = (
            try HKDF.sha512(secret: shared, salt: "", info: "ServerEncrypt-main"),
            try HKDF.sha512(secret: shared, salt: "", info: "ClientEncrypt-main")
        )
        return (TLV8([(.state, [4])]), keys)
    }
}
