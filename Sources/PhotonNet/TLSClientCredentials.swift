import COpenSSL
import PhotonCore
import PhotonCrypto

/// This installation's TLS identity as a client presents it. Read only when a TV asks for
/// a certificate, which is a full handshake: a resumed one (a TLS 1.3 PSK, a 1.2 session)
/// asks for none, and reading an RSA key and its certificate is ~1.4 ms of a cold key.
/// Read once per process, then handed to every connection that needs it; a key or
/// certificate that cannot be read fails the handshake with the reason and a hint.
final class TLSClientCredentials: Sendable {
    let identity: ClientIdentity
    private struct Loaded: @unchecked Sendable {
        let certificate: Certificate
        let key: RSAKey
    }
    private let loaded = Locked<Result<Loaded, PhotonError>?>(nil)

    private init(identity: ClientIdentity) { self.identity = identity }

    private static let cache = Locked<[ClientIdentity: TLSClientCredentials]>([:])

    /// The credentials for `identity`, the same object for the same identity (so it is
    /// read at most once) while few identities are in use.
    static func of(_ identity: ClientIdentity) -> TLSClientCredentials {
        cache.withLock { cache in
            if let known = cache[identity] { return known }
            if cache.count >= 16 { cache.removeAll() }
            let made = TLSClientCredentials(identity: identity)
            cache[identity] = made
            return made
        }
    }

    private func load() -> Result<Loaded, PhotonError> {
        loaded.withLock { loaded in
            if let loaded { return loaded }
            let result: Result<Loaded, PhotonError>
            do {
                let certificate = try Certificate(pem: identity.certificatePEM)
                let key = try RSAKey(pem: identity.privateKeyPEM)
                result = .success(Loaded(certificate: certificate, key: key))
            } catch {
                result = .failure(Self.unusable(PhotonError.wrap(error).message))
            }
            loaded = result
            return result
        }
    }

    private static func unusable(_ reason: String) -> PhotonError {
        PhotonError(
            .tls, "the TLS identity is unusable: \(reason)",
            hint: "run `photon identity regenerate` (TVs that pinned the old certificate will need pairing again)")
    }

    /// Our certificate's details (read now if no handshake has read it yet).
    var certificateInfo: CertificateInfo? { try? load().get().certificate.info }

    /// Why the identity could not be presented, once a handshake has tried.
    var failure: PhotonError? {
        loaded.withLock { loaded in
            if case .failure(let error) = loaded { return error }
            return nil
        }
    }

    /// Puts the certificate and key on `ssl` (the client-certificate callback, during a
    /// handshake whose server asked for one); false fails the handshake.
    func present(on ssl: OpaquePointer) -> Bool {
        guard case .success(let loaded) = load() else { return false }
        guard SSL_use_certificate(ssl, loaded.certificate.x509) == 1, SSL_use_PrivateKey(ssl, loaded.key.evpKey) == 1,
            SSL_check_private_key(ssl) == 1
        else {
            let reason = OpenSSLError.drain()
            self.loaded.withLock { $0 = .failure(Self.unusable(reason)) }
            return false
        }
        return true
    }

    /// Where a client connection's credentials hang on its `SSL` for the callback.
    static let index = photon_SSL_get_ex_new_index()

    /// The callback every client context has: it presents the connection's credentials, if
    /// it has any, and otherwise lets the handshake go on without a certificate.
    static let callback: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> Int32 = { ssl, _ in
        guard let ssl, let raw = SSL_get_ex_data(ssl, TLSClientCredentials.index) else { return 1 }
        return Unmanaged<TLSClientCredentials>.fromOpaque(raw).takeUnretainedValue().present(on: ssl) ? 1 : 0
    }
}
