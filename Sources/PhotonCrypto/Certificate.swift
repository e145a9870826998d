import COpenSSL
import Foundation
import PhotonCore

/// An X.509 certificate (OpenSSL `X509`): made self-signed for this installation's
/// identity and for emulated TVs, or parsed from what a TV presents.
public final class Certificate: @unchecked Sendable {
    let pointer: OpaquePointer

    init(taking pointer: OpaquePointer) { self.pointer = pointer }
    deinit { X509_free(pointer) }

    /// Wraps an OpenSSL `X509*` whose reference the caller hands over (PhotonNet uses
    /// this for the certificate a TLS peer presented).
    public convenience init(takingOwnershipOf x509: OpaquePointer) { self.init(taking: x509) }

    /// The underlying `X509*`, valid while this object lives.
    public var x509: OpaquePointer { pointer }

    /// Parses a PEM certificate.
    public convenience init(pem: String) throws {
        OpenSSLError.clear()
        let cert: OpaquePointer = try withMemoryBIO(Array(pem.utf8)) { bio in
            guard let cert = PEM_read_bio_X509(bio, nil, nil, nil) else {
                throw OpenSSLError.crypto("the certificate is not valid PEM")
            }
            return cert
        }
        self.init(taking: cert)
    }

    /// Parses a DER certificate.
    public convenience init(der: [UInt8]) throws {
        OpenSSLError.clear()
        let cert: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_X509(nil, &cursor, buffer.count)
        }
        guard let cert else { throw OpenSSLError.crypto("the certificate is not valid DER") }
        self.init(taking: cert)
    }

    /// Makes a self-signed X.509 v3 certificate for `key`: the given subject
    /// (`[("CN", "Photon"), ("O", "...")]`), a random 128-bit serial, SAN entries
    /// (`DNS:name` or `IP:addr`), valid from one day ago for `validityDays`.
    public static func selfSigned(
        key: RSAKey, subject: [(String, String)], subjectAltNames: [String] = [], validityDays: Int = 3650 * 3
    ) throws -> Certificate {
        OpenSSLError.clear()
        guard let cert = X509_new() else { throw OpenSSLError.crypto("could not allocate a certificate") }
        let made = Certificate(taking: cert)
        guard X509_set_version(cert, 2) == 1 else { throw OpenSSLError.crypto("could not set the version") }

        var serial = try SecureRandom.bytes(16)
        serial[0] &= 0x7F  // keep it positive
        serial[0] |= 0x01  // and 16 bytes long
        guard let bn = BN_bin2bn(serial, Int32(serial.count), nil) else { throw OpenSSLError.crypto("serial") }
        defer { BN_free(bn) }
        guard BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(cert)) != nil else {
            throw OpenSSLError.crypto("could not set the serial number")
        }
        guard X509_gmtime_adj(X509_getm_notBefore(cert), -86_400) != nil,
            X509_time_adj_ex(X509_getm_notAfter(cert), Int32(validityDays), 0, nil) != nil
        else { throw OpenSSLError.crypto("could not set the validity") }
        guard X509_set_pubkey(cert, key.pointer) == 1 else { throw OpenSSLError.crypto("could not set the key") }

        guard let name = X509_get_subject_name(cert) else { throw OpenSSLError.crypto("subject") }
        for (field, value) in subject {
            let bytes = Array(value.utf8)
            guard X509_NAME_add_entry_by_txt(name, field, MBSTRING_UTF8, bytes, Int32(bytes.count), -1, 0) == 1 else {
                throw OpenSSLError.crypto("could not add '\(field)' to the certificate subject")
            }
        }
        guard X509_set_issuer_name(cert, name) == 1 else { throw OpenSSLError.crypto("could not set the issuer") }

        var extensions: [(Int32, String)] = [
            (NID_basic_constraints, "critical,CA:FALSE"),
            (NID_key_usage, "critical,digitalSignature,keyEncipherment"),
            (NID_ext_key_usage, "clientAuth,serverAuth"),
            (NID_subject_key_identifier, "hash"),
        ]
        if !subjectAltNames.isEmpty { extensions.append((NID_subject_alt_name, subjectAltNames.joined(separator: ","))) }
        for (nid, value) in extensions {
            guard photon_X509_add_ext(cert, nid, value) == 1 else {
                throw OpenSSLError.crypto("could not add the extension '\(value)'")
            }
        }
        guard X509_sign(cert, key.pointer, EVP_sha256()) > 0 else { throw OpenSSLError.crypto("signing failed") }
        return made
    }

    /// The DER encoding.
    public var der: [UInt8] {
        let length = i2d_X509(pointer, nil)
        guard length > 0 else { return [] }
        var out = [UInt8](repeating: 0, count: Int(length))
        out.withUnsafeMutableBufferPointer { buffer in
            var cursor: UnsafeMutablePointer<UInt8>? = buffer.baseAddress
            _ = i2d_X509(pointer, &cursor)
        }
        return out
    }

    /// The PEM encoding.
    public func pem() throws -> String {
        OpenSSLError.clear()
        return try withEmptyMemoryBIO { bio in
            guard PEM_write_bio_X509(bio, pointer) == 1 else { throw OpenSSLError.crypto("could not encode PEM") }
            return String(decoding: readMemoryBIO(bio), as: UTF8.self)
        }
    }

    /// SHA-256 of the DER encoding: the pin.
    public var fingerprint: CertificateFingerprint {
        // A SHA-256 digest always has 32 bytes.
        try! CertificateFingerprint(bytes: Digest.sha256(der))
    }

    /// The subject in RFC 2253 form (`CN=...,O=...`).
    public var subject: String {
        guard let name = X509_get_subject_name(pointer) else { return "" }
        return
            (try? withEmptyMemoryBIO { bio in
                _ = photon_X509_NAME_print_rfc2253(bio, name)
                return String(decoding: readMemoryBIO(bio), as: UTF8.self)
            }) ?? ""
    }

    /// The subject's common name, decoded from its ASN.1 string type to UTF-8.
    public var commonName: String? {
        guard let name = X509_get_subject_name(pointer) else { return nil }
        let index = X509_NAME_get_index_by_NID(name, NID_commonName, -1)
        guard index >= 0, let entry = X509_NAME_get_entry(name, index),
            let data = X509_NAME_ENTRY_get_data(entry)
        else { return nil }
        var out: UnsafeMutablePointer<UInt8>?
        let length = ASN1_STRING_to_UTF8(&out, data)
        guard length >= 0, let out else { return nil }
        defer { photon_OPENSSL_free(out) }
        return String(decoding: UnsafeBufferPointer(start: out, count: Int(length)), as: UTF8.self)
    }

    /// The RSA modulus of the certificate's public key (unsigned big-endian), or nil
    /// for a non-RSA key.
    public var rsaModulus: [UInt8]? { withPublicKey { rsaParameter($0, "n") } }
    /// The RSA public exponent (unsigned big-endian), or nil for a non-RSA key.
    public var rsaExponent: [UInt8]? { withPublicKey { rsaParameter($0, "e") } }

    private func withPublicKey<R>(_ body: (OpaquePointer) -> R?) -> R? {
        guard let key = X509_get_pubkey(pointer) else { return nil }
        defer { EVP_PKEY_free(key) }
        return body(key)
    }

    /// Whether `key` is the private key for this certificate.
    public func matches(_ key: RSAKey) -> Bool { X509_check_private_key(pointer, key.pointer) == 1 }

    /// Everything PhotonCore needs to know about this certificate.
    public var info: CertificateInfo {
        CertificateInfo(
            der: der, fingerprint: fingerprint, subject: subject, commonName: commonName,
            rsaModulus: rsaModulus, rsaExponent: rsaExponent)
    }
}

/// Makes this installation's TLS client identity: an RSA-2048 key and a self-signed
/// certificate. Generated on first use; nothing is shipped in the package.
public enum IdentityFactory {
    public static func makeClientIdentity(commonName: String = "Photon Remote") throws -> ClientIdentity {
        let key = try RSAKey.generate(bits: 2048)
        let cert = try Certificate.selfSigned(
            key: key, subject: [("CN", commonName), ("O", "Photon")], subjectAltNames: ["DNS:photon.local"])
        return ClientIdentity(certificatePEM: try cert.pem(), privateKeyPEM: try key.privateKeyPEM())
    }
}

extension ClientIdentity {
    /// The certificate's details (fingerprint, subject, key).
    public func certificateInfo() throws -> CertificateInfo { try Certificate(pem: certificatePEM).info }
}
