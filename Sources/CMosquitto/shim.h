#include <mosquitto.h>
#include <openssl/ssl.h>
#include <dlfcn.h>
static inline long photonMQTT_set_min_tls12(SSL_CTX *ctx) { return SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION); }

// libmosquitto is loaded when the MQTT bridge first needs it, not at every start of
// photon-cli (a `photon key` never speaks MQTT). Each function is looked up by name and
// typed by its declaration (`__typeof__` does not reference the symbol).
#define PHOTON_MOSQUITTO_LIBRARY "libmosquitto.so.1"

/// Loads the library; NULL when it is there, else the loader's message.
static inline const char *photon_mosquitto_load(void) {
    return dlopen(PHOTON_MOSQUITTO_LIBRARY, RTLD_NOW | RTLD_GLOBAL) ? 0 : dlerror();
}

#define PHOTON_MOSQUITTO_FUNCTION(name) \
    static inline __typeof__(&name) photon_load_##name(void) { \
        void *handle = dlopen(PHOTON_MOSQUITTO_LIBRARY, RTLD_NOW | RTLD_GLOBAL); \
        return handle ? (__typeof__(&name))dlsym(handle, #name) : 0; \
    }

PHOTON_MOSQUITTO_FUNCTION(mosquitto_connack_string)
PHOTON_MOSQUITTO_FUNCTION(mosquitto_connect)
PHOTON_MOSQUITTO_FUNCTION(mosquitto_connect_callback_set)
PHOTON_MOSQUITTO_FUNCTION(mosquitto_destroy)
PHOTON_MOSQUITTO_FUNCTION(mosquitto_disconnect)
PHOTON_MOSQUITTO_FUNCTION(mosquitto_disconnect_callback_set)
PHOTON_MOSQUITTO_FUNCTION(mosquitto_int_option)
PHOTON_MOSQUITTO_FUNCTION(mosquitto_lib_init)
PHOTON_MOSQUITTO_FUNCTION(mosquitto_log_callback_set)
PHOTON_MOSQUITTO_FUNCTION(mosquitto_loop_misc)
PHOTON_MOSQUITTO_FUNCTION(mosquitto_loop_read)
PHOTON_MOSQUITTO_FUNCTION(mosquitto_loop_write)
PHOTON_MOSQUITTO_FUNCTION(mosquitto_message_callback_set)
PHOTON_MOSQUITTO_FUNCTION(mosquitto_new)
PHOTON_MOSQUITTO_FUNCTION(mosquitto_publish)
PHOTON_MOSQUITTO_FUNCTION(mosquitto_reconnect)
PHOTON_MOSQUITTO_FUNCTION(mosquitto_reconnect_delay_set)
PHOTON_MOSQUITTO_FUNCTION(mosquitto_socket)
PHOTON_MOSQUITTO_FUNCTION(mosquitto_strerror)
PHOTON_MOSQUITTO_FUNCTION(mosquitto_subscribe)
PHOTON_MOSQUITTO_FUNCTION(mosquitto_threaded_set)
PHOTON_MOSQUITTO_FUNCTION(mosquitto_tls_set)
PHOTON_MOSQUITTO_FUNCTION(mosquitto_user_data_set)
PHOTON_MOSQUITTO_FUNCTION(mosquitto_username_pw_set)
PHOTON_MOSQUITTO_FUNCTION(mosquitto_void_option)
PHOTON_MOSQUITTO_FUNCTION(mosquitto_want_write)
PHOTON_MOSQUITTO_FUNCTION(mosquitto_will_set)
