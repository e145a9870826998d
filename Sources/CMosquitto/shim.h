#include <mosquitto.h>
#include <openssl/ssl.h>
static inline long photonMQTT_set_min_tls12(SSL_CTX *ctx) { return SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION); }
