import COpenSSL
import PhotonCore
import PhotonCrypto

/// An OpenSSL `SSL_CTX` configured the Photon way: TLS 1.2 to 1.3, peer certificates
/// always requested and handed to Photon's own pin check (never silently trusted),
/// partial writes, and a TV's missing close_notify read as a clean end of stream.
final class TLSContext: @unchecked Sendable {
    let pointer: OpaquePointer
    /// Our own certificate, when the context has an identity.
    let localCertificate: CertificateInfo?

    private init(pointer: OpaquePointer, localCertificate: CertificateInfo?) {
        self.pointer = pointer
        self.localCertificate = localCertificate
    }

    deinit { SSL_CTX_free(pointer) }

    /// The filter of a server context that decides on client certificates, kept alive
    /// as long as the context (OpenSSL holds only a pointer to it).
    private let clientFilter = Locked<ClientFilter?>(nil)

    final class ClientFilter: Sendable {
        let accepts: @Sendable (CertificateFingerprint) -> Bool
        init(_ accepts: @escaping @Sendable (CertificateFingerprint) -> Bool) { self.accepts = accepts }
    }

    /// Whether the client filter (if any) accepts `fingerprint`: a resumed handshake
    /// presents no certificate to the filter, so the server asks again after it.
    func acceptsClient(_ fingerprint: CertificateFingerprint?) -> Bool {
        guard let filter = clientFilter.withLock({ $0 }) else { return true }
        guard let fingerprint else { return false }
        return filter.accepts(fingerprint)
    }

    private static let filterIndex = photon_SSL_CTX_get_ex_new_index()
    /// Where a client connection's `TLSSessionSink` hangs on its `SSL`.
    static let sessionSinkIndex = photon_SSL_get_ex_new_index()

    /// The SHA-256 fingerprint of a certificate OpenSSL holds (nil if it cannot be digested).
    private static func fingerprint(of certificate: OpaquePointer) -> CertificateFingerprint? {
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        guard X509_digest(certificate, EVP_sha256(), &digest, &length) == 1, length == 32 else { return nil }
        return try? CertificateFingerprint(bytes: digest)
    }

    /// Makes the handshake refuse, with a TLS alert, a client certificate `accepts`
    /// refuses (a client without one is left to the caller, as before).
    func filterClients(_ accepts: @escaping @Sendable (CertificateFingerprint) -> Bool) {
        let filter = ClientFilter(accepts)
        clientFilter.withLock { $0 = filter }
        SSL_CTX_set_ex_data(pointer, Self.filterIndex, Unmanaged.passUnretained(filter).toOpaque())
        SSL_CTX_set_verify(pointer, SSL_VERIFY_PEER) { _, store in
            // Only the client's own certificate (depth 0) is judged; its chain is not.
            guard let store, X509_STORE_CTX_get_error_depth(store) == 0,
                let ssl = X509_STORE_CTX_get_ex_data(store, SSL_get_ex_data_X509_STORE_CTX_idx()),
                let context = SSL_get_SSL_CTX(OpaquePointer(ssl)),
                let raw = SSL_CTX_get_ex_data(context, TLSContext.filterIndex),
                let certificate = X509_STORE_CTX_get_current_cert(store)
            else { return 1 }
            guard let fingerprint = TLSContext.fingerprint(of: certificate) else { return 0 }
            return Unmanaged<ClientFilter>.fromOpaque(raw).takeUnretainedValue().accepts(fingerprint) ? 1 : 0
        }
        // A client resuming a session presents no certificate to the callback above: its
        // session's certificate is judged instead, and one refused since gets a full
        // handshake, where it is refused with an alert as before.
        SSL_CTX_set_session_ticket_cb(
            pointer, nil,
            { ssl, session, _, _, status, _ in
                switch status {
                case SSL_TICKET_SUCCESS, SSL_TICKET_SUCCESS_RENEW:
                    guard let ssl, let session, let context = SSL_get_SSL_CTX(ssl),
                        let raw = SSL_CTX_get_ex_data(context, TLSContext.filterIndex),
                        let peer = SSL_SESSION_get0_peer(session), let fingerprint = TLSContext.fingerprint(of: peer),
                        Unmanaged<ClientFilter>.fromOpaque(raw).takeUnretainedValue().accepts(fingerprint)
                    else { return SSL_TICKET_RETURN_IGNORE_RENEW }
                    return status == SSL_TICKET_SUCCESS ? SSL_TICKET_RETURN_USE : SSL_TICKET_RETURN_USE_RENEW
                case SSL_TICKET_FATAL_ERR_MALLOC, SSL_TICKET_FATAL_ERR_OTHER:
                    return SSL_TICKET_RETURN_ABORT
                default:
                    return SSL_TICKET_RETURN_IGNORE_RENEW
                }
            }, nil)
    }

    static func make(
        server: Bool, certificatePEM: String?, privateKeyPEM: String?, minimum: TLSVersion, maximum: TLSVersion,
        requestsClientCertificate: Bool = true
    ) throws -> TLSContext {
        OpenSSLError.clear()
        guard let ctx = SSL_CTX_new(server ? TLS_server_method() : TLS_client_method()) else {
            throw PhotonError(.tls, "cannot create a TLS context: \(OpenSSLError.drain())")
        }
        let context: TLSContext
        var local: CertificateInfo?
        do {
            guard photon_SSL_CTX_set_min_proto_version(ctx, minimum.openSSLValue) == 1,
                photon_SSL_CTX_set_max_proto_version(ctx, maximum.openSSLValue) == 1
            else { throw PhotonError(.tls, "cannot set the TLS versions: \(OpenSSLError.drain())") }
            _ = photon_SSL_CTX_set_mode(ctx, Int(SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER))
            photon_SSL_CTX_ignore_unexpected_eof(ctx)
            // Read whole socket buffers, not a record header then its body: one read(2)
            // per arriving message instead of two (a fleet's pings are most of its I/O).
            photon_SSL_CTX_set_read_ahead(ctx, 1)
            // Ask for the peer's certificate and accept whatever chain it is: the TVs are
            // self-signed, and trust is the pin check's job after the handshake. A server
            // that authenticates its clients otherwise (the HTTP door's tokens) asks for none:
            // a phone with a work certificate would send it in clear under TLS 1.2.
            if server && !requestsClientCertificate {
                SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, nil)
            } else {
                SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, photon_accept_any_certificate)
            }
            if let certificatePEM, let privateKeyPEM {
                let cert = try Certificate(pem: certificatePEM)
                let key = try RSAKey(pem: privateKeyPEM)
                guard SSL_CTX_use_certificate(ctx, cert.x509) == 1, SSL_CTX_use_PrivateKey(ctx, key.evpKey) == 1,
                    SSL_CTX_check_private_key(ctx) == 1
                else {
                    throw PhotonError(
                        .tls, "the TLS identity is unusable: \(OpenSSLError.drain())",
                        hint: "run `photon identity regenerate` (TVs that pinned the old certificate will need pairing again)")
                }
                local = cert.info
            }
            if !server {
                SSL_CTX_set_cert_cb(ctx, TLSClientCredentials.callback, nil)
                // Sessions a TV gives us go to the connection's sink (TLSSessionCache), if
                // it has one; the context keeps none itself.
                photon_SSL_CTX_cache_client_sessions_externally(ctx)
                SSL_CTX_sess_set_new_cb(ctx) { ssl, session in
                    guard let ssl, let session, let raw = SSL_get_ex_data(ssl, TLSContext.sessionSinkIndex) else { return 0 }
                    Unmanaged<TLSSessionSink>.fromOpaque(raw).takeUnretainedValue()
                        .received(session, resumedConnection: SSL_session_reused(ssl) == 1)
                    return 0
                }
            }
            if server {
                let sessionID: [UInt8] = Array("photon".utf8)
                SSL_CTX_set_session_id_context(ctx, sessionID, UInt32(sessionID.count))
            }
            context = TLSContext(pointer: ctx, localCertificate: local)
        } catch {
            SSL_CTX_free(ctx)
            throw error
        }
        return context
    }

    private struct ClientKey: Hashable {
        var minimum: TLSVersion
        var maximum: TLSVersion
    }
    private static let clientCache = Locked<[ClientKey: TLSContext]>([:])

    /// The client context for these versions, made once and reused by every client
    /// connection (contexts are thread-safe once configured). It holds no identity: a
    /// connection that has one presents it when the server asks (`TLSClientCredentials`),
    /// so the warm-up can make the very context the command's connections use.
    static func client(minimum: TLSVersion = .tls12, maximum: TLSVersion = .tls13) throws -> TLSContext {
        let key = ClientKey(minimum: minimum, maximum: maximum)
        if let cached = clientCache.withLock({ $0[key] }) { return cached }
        let made = try make(server: false, certificatePEM: nil, privateKeyPEM: nil, minimum: minimum, maximum: maximum)
        return clientCache.withLock { cache in
            // Two made at once: both work, the first kept serves everyone after.
            if let first = cache[key] { return first }
            cache[key] = made
            return made
        }
    }
}

extension TLSVersion {
    var openSSLValue: Int32 {
        switch self {
        case .tls12: return TLS1_2_VERSION
        case .tls13: return TLS1_3_VERSION
        }
    }
}
