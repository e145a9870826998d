#ifndef PHOTON_COPENSSL_SHIM_H
#define PHOTON_COPENSSL_SHIM_H
// OpenSSL 3 headers plus small inline helpers for the macros Swift cannot import.
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/decoder.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <openssl/param_build.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/rsa.h>
#include <openssl/sha.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

/* EVP_PKEY_KEYPAIR is a macro of macros, which Swift does not import. */
static inline int photon_EVP_PKEY_KEYPAIR(void) { return EVP_PKEY_KEYPAIR; }
static inline long photon_SSL_CTX_set_min_proto_version(SSL_CTX *ctx, int version) {
    return SSL_CTX_set_min_proto_version(ctx, version);
}
static inline long photon_SSL_CTX_set_max_proto_version(SSL_CTX *ctx, int version) {
    return SSL_CTX_set_max_proto_version(ctx, version);
}
static inline long photon_SSL_CTX_set_mode(SSL_CTX *ctx, long mode) {
    return SSL_CTX_set_mode(ctx, mode);
}
static inline void photon_SSL_CTX_set_read_ahead(SSL_CTX *ctx, int yes) {
    SSL_CTX_set_read_ahead(ctx, yes);
}
static inline long photon_SSL_set_tlsext_host_name(SSL *ssl, const char *name) {
    return SSL_set_tlsext_host_name(ssl, name);
}
static inline long photon_BIO_get_mem_data(BIO *bio, char **data) {
    return BIO_get_mem_data(bio, data);
}
static inline void photon_OPENSSL_free(void *ptr) { OPENSSL_free(ptr); }

/// Adds a v3 extension (for example "subjectAltName" = "DNS:tv,IP:127.0.0.1") to a
/// self-signed certificate. Returns 1 on success.
static inline int photon_X509_add_ext(X509 *cert, int nid, const char *value) {
    X509V3_CTX ctx;
    X509V3_set_ctx_nodb(&ctx);
    X509V3_set_ctx(&ctx, cert, cert, NULL, NULL, 0);
    X509_EXTENSION *ext = X509V3_EXT_conf_nid(NULL, &ctx, nid, value);
    if (ext == NULL) return 0;
    int ok = X509_add_ext(cert, ext, -1);
    X509_EXTENSION_free(ext);
    return ok;
}

/// The TLS version string ("TLSv1.3") of an established connection.
static inline const char *photon_SSL_get_version(const SSL *ssl) { return SSL_get_version(ssl); }

/// A verify callback that accepts any certificate chain: trust is decided by the
/// caller's pin check after the handshake (Photon never accepts silently).
static inline int photon_accept_any_certificate(int preverify_ok, X509_STORE_CTX *ctx) {
    (void)preverify_ok; (void)ctx;
    return 1;
}
/// A new index for application data on an SSL_CTX (a macro in OpenSSL).
static inline int photon_SSL_CTX_get_ex_new_index(void) { return SSL_CTX_get_ex_new_index(0, NULL, NULL, NULL, NULL); }

/// Prints an X509 name in RFC 2253 form into a memory BIO.
static inline int photon_X509_NAME_print_rfc2253(BIO *bio, const X509_NAME *name) {
    return X509_NAME_print_ex(bio, name, 0, XN_FLAG_RFC2253);
}
static inline int photon_BN_num_bytes(const BIGNUM *bn) { return BN_num_bytes(bn); }
/// TVs often drop the connection without close_notify: treat that as a clean EOF.
static inline void photon_SSL_CTX_ignore_unexpected_eof(SSL_CTX *ctx) {
    SSL_CTX_set_options(ctx, SSL_OP_IGNORE_UNEXPECTED_EOF | SSL_OP_NO_RENEGOTIATION);
}

/// Records in *drained whether the socket's last read returned less than was asked for
/// (the kernel had nothing more at that moment), so the caller can wait for readiness
/// instead of making a read that would only say EAGAIN.
static inline long photon_track_short_reads(BIO *bio, int oper, const char *argp, size_t len, int argi, long argl,
                                            int ret, size_t *processed) {
    (void)argp; (void)argi; (void)argl;
    if (oper == (BIO_CB_READ | BIO_CB_RETURN)) {
        int *drained = (int *)BIO_get_callback_arg(bio);
        if (drained) *drained = (ret > 0 && processed && *processed < len) ? 1 : 0;
    }
    return ret;
}
static inline void photon_SSL_track_short_reads(SSL *ssl, int *drained) {
    BIO *rbio = SSL_get_rbio(ssl);
    if (!rbio) return;
    BIO_set_callback_arg(rbio, (char *)drained);
    BIO_set_callback_ex(rbio, photon_track_short_reads);
}
/// Client-side session caching through the new-session callback only (the context keeps
/// no internal cache: Photon stores the sessions it wants itself).
static inline void photon_SSL_CTX_cache_client_sessions_externally(SSL_CTX *ctx) {
    SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_CLIENT | SSL_SESS_CACHE_NO_INTERNAL_STORE);
}
/// A new index for application data on an SSL (a macro in OpenSSL).
static inline int photon_SSL_get_ex_new_index(void) { return SSL_get_ex_new_index(0, NULL, NULL, NULL, NULL); }
/// EVP_PKEY_PUBLIC_KEY is a composite macro Swift cannot import.
static inline int photon_EVP_PKEY_PUBLIC_KEY(void) { return EVP_PKEY_PUBLIC_KEY; }

#endif
