import COpenSSL
import PhotonCore
import PhotonCrypto

/// The TLS sessions of pinned connections, so that the next connection to the same TV
/// resumes instead of running a full handshake: no certificate for the TV to sign for and
/// us to parse, no client certificate for us to sign for, about half a millisecond less per
/// handshake on loopback and a round trip of certificates less on a real network.
///
/// Sessions live in memory for this process (a brand that opens a second connection, like
/// LG's pointer socket, resumes the first one's) and in a `TLSSessionStore` between
/// processes (a cold `photon key` resumes the last one's). Only a connection whose
/// certificate matched its pin leaves a session, and a session is offered only to the same
/// address, pin and client identity again: resuming it proves the TV holds the key that
/// the pinned certificate's handshake agreed. A TV that refuses it gets a full handshake
/// (checked against the pin as always) and its new session replaces the old one.
public final class TLSSessionCache: Sendable {
    private let store: (any TLSSessionStore)?
    private let memory = Locked<[String: [UInt8]]>([:])

    /// `store` keeps sessions between processes; nil keeps them for this process only.
    public init(store: (any TLSSessionStore)?) { self.store = store }

    /// The opaque key of a pinned connection: a digest of its address, pin and identity.
    static func key(host: String, port: UInt16, pin: CertificateFingerprint, identity: ClientIdentity?) -> String {
        var text = "photon-tls-session-v1\n\(host)\n\(port)\n\(pin.description)\n"
        if let identity { text += Digest.sha256(Array(identity.certificatePEM.utf8)).map(hexByte).joined() }
        return Digest.sha256(Array(text.utf8)).map(hexByte).joined().lowercased()
    }

    func session(for key: String) -> [UInt8]? {
        if let bytes = memory.withLock({ $0[key] }) { return bytes }
        guard let bytes = store?.session(for: key) else { return nil }
        memory.withLock { $0[key] = bytes }
        return bytes
    }

    func save(_ session: [UInt8], for key: String) {
        memory.withLock { $0[key] = session }
        store?.save(session, for: key)
    }

    func removeSession(for key: String) {
        memory.withLock { $0[key] = nil }
        store?.removeSession(for: key)
    }

    /// The stored session for `key` as an OpenSSL session the caller owns, if there is one
    /// that has not expired (an expired or unreadable one is dropped).
    func resumableSession(for key: String) -> OpaquePointer? {
        guard let bytes = session(for: key) else { return nil }
        let session: OpaquePointer? = bytes.withUnsafeBufferPointer { buffer in
            var cursor = buffer.baseAddress
            return d2i_SSL_SESSION(nil, &cursor, buffer.count)
        }
        guard let session else {
            removeSession(for: key)
            return nil
        }
        let expires = Int(SSL_SESSION_get_time(session)) + Int(SSL_SESSION_get_timeout(session))
        guard SSL_SESSION_is_resumable(session) == 1, expires > Int(time(nil)) else {
            SSL_SESSION_free(session)
            removeSession(for: key)
            return nil
        }
        return session
    }
}

/// What one client connection does with the sessions its TV gives it: held until the
/// certificate has passed the pin check (TLS 1.2 hands the session over inside the
/// handshake, before that check), then kept in the cache. A connection that resumed keeps
/// the session it resumed (TLS 1.3 TVs send fresh tickets every time; storing each would
/// cost a file write per key press).
final class TLSSessionSink: @unchecked Sendable {
    private let cache: TLSSessionCache
    let key: String
    private let lock = Locked<(verified: Bool, pending: [UInt8]?)>((false, nil))

    init(cache: TLSSessionCache, key: String) {
        self.cache = cache
        self.key = key
    }

    /// Called by OpenSSL's new-session callback, inside a read on this connection.
    func received(_ session: OpaquePointer, resumedConnection: Bool) {
        guard !resumedConnection, SSL_SESSION_is_resumable(session) == 1 else { return }
        let length = i2d_SSL_SESSION(session, nil)
        guard length > 0, length <= 16 << 10 else { return }
        var bytes = [UInt8](repeating: 0, count: Int(length))
        let written = bytes.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var cursor = buffer.baseAddress
            return i2d_SSL_SESSION(session, &cursor)
        }
        guard written == length else { return }
        let verified = lock.withLock { state -> Bool in
            if !state.verified { state.pending = bytes }
            return state.verified
        }
        if verified { cache.save(bytes, for: key) }
    }

    /// The certificate matched the pin: sessions from now on (and one already received)
    /// are kept.
    func peerVerified() {
        let pending = lock.withLock { state -> [UInt8]? in
            state.verified = true
            defer { state.pending = nil }
            return state.pending
        }
        if let pending { cache.save(pending, for: key) }
    }

    /// The certificate did not match: nothing of this connection is kept, nor what led to it.
    func peerRejected() {
        lock.withLock { $0 = (false, nil) }
        cache.removeSession(for: key)
    }
}
