import PhotonCore
import PhotonCrypto

/// HTTP Digest authentication (RFC 7616) as Philips TVs use it: the pairing's device id and
/// auth key as user and password, `qop=auth`, MD5 by default (SHA-256 where a TV asks).
/// The challenge comes from the network: it is parsed strictly and bounded.
public struct DigestChallenge: Sendable, Equatable {
    public var realm: String
    public var nonce: String
    public var opaque: String?
    /// The hash name as the TV gave it (`MD5`, `SHA-256`, `MD5-sess`…).
    public var algorithm: String
    /// Whether the TV offers `qop=auth` (else the RFC 2069 form is used).
    public var offersAuthQOP: Bool

    public init(realm: String, nonce: String, opaque: String? = nil, algorithm: String = "MD5", offersAuthQOP: Bool = true) {
        self.realm = realm
        self.nonce = nonce
        self.opaque = opaque
        self.algorithm = algorithm
        self.offersAuthQOP = offersAuthQOP
    }

    /// Reads a `WWW-Authenticate` value; anything but a usable Digest challenge throws.
    public static func parse(_ header: String) throws -> DigestChallenge {
        guard header.utf8.count <= 2048 else { throw PhotonError(.protocolViolation, "the TV's Digest challenge is too long") }
        guard header.prefix(7).lowercased() == "digest " else {
            throw PhotonError(.protocolViolation, "the TV asked for an authentication other than Digest")
        }
        let fields = try DigestFields.parse(String(header.dropFirst(7)))
        guard let realm = fields["realm"], let nonce = fields["nonce"], !nonce.isEmpty else {
            throw PhotonError(.protocolViolation, "the TV's Digest challenge has no realm or nonce")
        }
        let algorithm = fields["algorithm"] ?? "MD5"
        guard DigestHash(algorithm) != nil else {
            throw PhotonError.unsupported(
                "the TV asks for Digest with \(Redaction.sanitize(algorithm, limit: 32))", hint: "Photon speaks MD5 and SHA-256")
        }
        let qops = (fields["qop"] ?? "").split(separator: ",").map { $0.trimmingCharacters(in: " \t").lowercased() }
        guard fields["qop"] == nil || qops.contains("auth") else {
            throw PhotonError.unsupported(
                "the TV asks for Digest qop \(Redaction.sanitize(fields["qop"] ?? "", limit: 32))", hint: "Photon speaks qop=auth")
        }
        return DigestChallenge(realm: realm, nonce: nonce, opaque: fields["opaque"], algorithm: algorithm, offersAuthQOP: fields["qop"] != nil)
    }

    /// The `Authorization` value for one request.
    public func authorization(user: String, password: String, method: String, uri: String, count: Int, clientNonce: String) -> String {
        let hash = DigestHash(algorithm) ?? .md5
        let nc = Self.hex8(count)
        let response = Self.response(
            hash: hash, user: user, realm: realm, password: password, method: method, uri: uri, nonce: nonce,
            qop: offersAuthQOP ? (nc, clientNonce) : nil)
        var fields = [
            "username=\"\(user)\"", "realm=\"\(realm)\"", "nonce=\"\(nonce)\"", "uri=\"\(uri)\"", "response=\"\(response)\"",
            "algorithm=\(algorithm)",
        ]
        if let opaque { fields.append("opaque=\"\(opaque)\"") }
        if offersAuthQOP { fields += ["qop=auth", "nc=\(nc)", "cnonce=\"\(clientNonce)\""] }
        return "Digest " + fields.joined(separator: ", ")
    }

    /// The `response` value: H(H(A1):nonce[:nc:cnonce:qop]:H(A2)).
    public static func response(
        hash: DigestHash, user: String, realm: String, password: String, method: String, uri: String, nonce: String,
        qop: (nc: String, cnonce: String)?
    ) -> String {
        var ha1 = hash.hex("\(user):\(realm):\(password)")
        if hash.session { ha1 = hash.hex("\(ha1):\(nonce):\(qop?.cnonce ?? "")") }
        let ha2 = hash.hex("\(method):\(uri)")
        guard let qop else { return hash.hex("\(ha1):\(nonce):\(ha2)") }
        return hash.hex("\(ha1):\(nonce):\(qop.nc):\(qop.cnonce):auth:\(ha2)")
    }

    static func hex8(_ value: Int) -> String {
        let hex = String(UInt32(truncatingIfNeeded: value), radix: 16)
        return String(repeating: "0", count: 8 - hex.count) + hex
    }
}

/// The hashes Digest names: MD5 and SHA-256, each with its `-sess` form.
public struct DigestHash: Sendable {
    public let session: Bool
    let sha256: Bool
    static let md5 = DigestHash(session: false, sha256: false)

    private init(session: Bool, sha256: Bool) {
        self.session = session
        self.sha256 = sha256
    }

    public init?(_ name: String) {
        var base = name.uppercased()
        session = base.hasSuffix("-SESS")
        if session { base.removeLast(5) }
        switch base {
        case "MD5": sha256 = false
        case "SHA-256": sha256 = true
        default: return nil
        }
    }

    func hex(_ text: String) -> String { Hex.encode(sha256 ? Digest.sha256(Array(text.utf8)) : Digest.md5(Array(text.utf8))) }
}

/// The comma-separated `name=value` / `name="quoted"` list of a Digest header.
public enum DigestFields {
    /// Names in lower case; a malformed list throws.
    public static func parse(_ text: String) throws -> [String: String] {
        var fields: [String: String] = [:]
        var rest = Substring(text)
        func malformed() -> PhotonError { PhotonError(.protocolViolation, "a Digest header is malformed") }
        while true {
            rest = rest.drop { $0 == " " || $0 == "\t" || $0 == "," }
            if rest.isEmpty { break }
            guard let equals = rest.firstIndex(of: "=") else { throw malformed() }
            let name = rest[..<equals].trimmingCharacters(in: " \t").lowercased()
            guard !name.isEmpty, name.utf8.allSatisfy({ $0.isASCIIAlphanumeric || $0 == 45 || $0 == 95 }) else { throw malformed() }
            rest = rest[rest.index(after: equals)...].drop { $0 == " " || $0 == "\t" }
            var value = ""
            if rest.first == "\"" {
                rest = rest.dropFirst()
                var closed = false
                while let c = rest.first {
                    rest = rest.dropFirst()
                    if c == "\\", let next = rest.first {
                        value.append(next)
                        rest = rest.dropFirst()
                    } else if c == "\"" {
                        closed = true
                        break
                    } else {
                        value.append(c)
                    }
                }
                guard closed else { throw malformed() }
            } else {
                let end = rest.firstIndex(of: ",") ?? rest.endIndex
                value = rest[..<end].trimmingCharacters(in: " \t")
                rest = rest[end...]
            }
            guard value.utf8.count <= 512, value.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value < 0x7F && $0 != "\"" && $0 != "\\" })
            else { throw malformed() }
            fields[name] = value
            guard fields.count <= 16 else { throw malformed() }
        }
        return fields
    }
}

extension Substring {
    func trimmingCharacters(in set: String) -> String {
        String(drop { set.contains($0) }.reversed().drop { set.contains($0) }.reversed())
    }
}
