import PhotonCore
import PhotonCrypto

/// The accessory's side of pair-setup (M2, M4, M6): its salt and SRP value for the setup
/// code, the check of the controller's proof, then the exchange of long-term keys, each
/// signed. The emulated Apple TV (SRP's `minimal` convention, as Companion peers hash)
/// and the HomeKit door (`padded`, as iOS and aiohomekit do) both run it. Misbehaviour
/// hooks let tests see a controller's checks fail closed.
public struct PairSetupAccessory: Sendable {
    public enum Misbehaviour: Sendable, Equatable {
        /// M4 with a proof that does not match.
        case wrongProof
        /// M6 signed by another key than the one it carries.
        case wrongSignature
    }

    public let accessoryID: [UInt8]
    let signingKey: Ed25519PrivateKey
    let srp: SRPServer
    var misbehaviour: Misbehaviour?
    var sessionKey: [UInt8] = []
    /// The controller that finished pairing: its identifier and long-term key.
    public private(set) var controller: (id: [UInt8], publicKey: [UInt8])?

    public init(
        code: String, accessoryID: [UInt8], signingKey: Ed25519PrivateKey, convention: SRP.Convention = .minimal,
        misbehaviour: Misbehaviour? = nil, salt: [UInt8]? = nil, privateValue: [UInt8]? = nil
    ) throws {
        self.accessoryID = accessoryID
        self.signingKey = signingKey
        self.misbehaviour = misbehaviour
        srp = try SRPServer(username: PairingKeys.username, password: code, salt: salt, privateValue: privateValue, convention: convention)
    }

    /// M2. Both methods are answered alike: 0 (pair-setup) and 1 (with MFi authentication,
    /// which an accessory without Apple's chip does as plain pair-setup, as HAP-python does).
    public func m2(answering m1: TLV8, appleFlags: Bool = false) throws -> TLV8 {
        guard m1.byte(.state) == 1, let method = m1.byte(.method), method <= 1 else { return Self.error(state: 2, .unknown) }
        var items: [(TLV8.Tag, [UInt8])] = [(.state, [2]), (.salt, srp.salt), (.publicKey, srp.publicValue)]
        if appleFlags { items.append((.appleFlags, [1])) }
        return TLV8(items)
    }

    /// M4: the accessory's proof, or error 2 (authentication) for a wrong code.
    public mutating func m4(answering m3: TLV8) -> TLV8 {
        guard m3.byte(.state) == 3, let clientPublic = m3[.publicKey], let proof = m3[.proof],
            let (key, serverProof) = try? srp.verify(clientPublic: clientPublic, clientProof: proof)
        else { return Self.error(state: 4, .authentication) }
        sessionKey = key
        var answer = serverProof
        if misbehaviour == .wrongProof { answer[0] ^= 0xFF }
        return TLV8([(.state, [4]), (.proof, answer)])
    }

    /// M6: checks the controller's identifier, key and signature (error 2 if any is wrong),
    /// then sends the accessory's own, encrypted.
    public mutating func m6(answering m5: TLV8) throws -> TLV8 {
        let encryptKey = try PairingKeys.derive(sessionKey, PairingKeys.setupEncrypt)
        guard m5.byte(.state) == 5, !sessionKey.isEmpty, let sealed = m5[.encryptedData],
            let plain = try? ChaChaPoly.open(sealed, key: encryptKey, nonce: ChaChaPoly.nonce(label: "PS-Msg05")),
            let inner = try? TLV8.decode(plain), let id = inner[.identifier], !id.isEmpty, let key = inner[.publicKey], key.count == 32,
            let signature = inner[.signature]
        else { return Self.error(state: 6, .authentication) }
        let signed = try PairingKeys.derive(sessionKey, PairingKeys.controllerSign) + id + key
        guard Ed25519.isValid(signature: signature, for: signed, publicKey: key) else { return Self.error(state: 6, .authentication) }
        controller = (id, key)
        let ourSigned = try PairingKeys.derive(sessionKey, PairingKeys.accessorySign) + accessoryID + signingKey.publicKey
        var signature6 = try signingKey.signature(for: ourSigned)
        if misbehaviour == .wrongSignature { signature6 = try Ed25519PrivateKey().signature(for: ourSigned) }
        let reply = TLV8([(.identifier, accessoryID), (.publicKey, signingKey.publicKey), (.signature, signature6)])
        let encrypted = try ChaChaPoly.seal(reply.encoded, key: encryptKey, nonce: ChaChaPoly.nonce(label: "PS-Msg06"))
        return TLV8([(.state, [6]), (.encryptedData, encrypted)])
    }

    /// A refusal at `state`.
    public static func error(state: UInt8, _ code: TLV8.ErrorCode) -> TLV8 { TLV8([(.state, [state]), (.error, [code.rawValue])]) }
}

/// The accessory's side of pair-verify: an X25519 exchange it signs with its long-term
/// key, accepting only controllers it paired with. Gives the shared secret, from which
/// each protocol derives its own session keys (HAP's `Control-Salt` keys, Companion's
/// `ServerEncrypt-main`/`ClientEncrypt-main`).
public struct PairVerifyAccessory: Sendable {
    public let accessoryID: [UInt8]
    let signingKey: Ed25519PrivateKey
    let ephemeral: X25519PrivateKey
    let knows: @Sendable ([UInt8]) -> [UInt8]?
    var shared: [UInt8] = []
    var controllerEphemeral: [UInt8] = []
    /// Signs with another key (an accessory that is not the one paired).
    let impostor: Bool

    /// `knows` gives a paired controller's long-term public key by its identifier.
    public init(
        accessoryID: [UInt8], signingKey: Ed25519PrivateKey, impostor: Bool = false, knows: @escaping @Sendable ([UInt8]) -> [UInt8]?
    ) throws {
        self.accessoryID = accessoryID
        self.signingKey = signingKey
        self.impostor = impostor
        self.knows = knows
        ephemeral = try X25519PrivateKey()
    }

    public mutating func m2(answering m1: TLV8) throws -> TLV8 {
        guard m1.byte(.state) == 1, let controllerKey = m1[.publicKey], controllerKey.count == 32,
            let secret = try? ephemeral.sharedSecret(with: controllerKey)
        else { return PairSetupAccessory.error(state: 2, .authentication) }
        shared = secret
        controllerEphemeral = controllerKey
        let signer = impostor ? try Ed25519PrivateKey() : signingKey
        let signature = try signer.signature(for: ephemeral.publicKey + accessoryID + controllerKey)
        let key = try PairingKeys.derive(shared, PairingKeys.verifyEncrypt)
        let sealed = try ChaChaPoly.seal(
            TLV8([(.identifier, accessoryID), (.signature, signature)]).encoded, key: key, nonce: ChaChaPoly.nonce(label: "PV-Msg02"))
        return TLV8([(.state, [2]), (.publicKey, ephemeral.publicKey), (.encryptedData, sealed)])
    }

    /// M4, with the verified controller's identifier and the shared secret when it proved
    /// itself; error 2 (authentication) for an unknown controller or a bad signature.
    public func m4(answering m3: TLV8) throws -> (TLV8, verified: (controllerID: [UInt8], sharedSecret: [UInt8])?) {
        let key = try PairingKeys.derive(shared, PairingKeys.verifyEncrypt)
        guard m3.byte(.state) == 3, !shared.isEmpty, let sealed = m3[.encryptedData],
            let plain = try? ChaChaPoly.open(sealed, key: key, nonce: ChaChaPoly.nonce(label: "PV-Msg03")),
            let inner = try? TLV8.decode(plain), let id = inner[.identifier], let signature = inner[.signature], let known = knows(id),
            Ed25519.isValid(signature: signature, for: controllerEphemeral + id + ephemeral.publicKey, publicKey: known)
        else { return (PairSetupAccessory.error(state: 4, .authentication), nil) }
        return (TLV8([(.state, [4])]), (id, shared))
    }
}
