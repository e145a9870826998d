#ifndef PHOTON_CDBUS_SHIM_H
#define PHOTON_CDBUS_SHIM_H
#include <dlfcn.h>
#include <stdint.h>

// libdbus is loaded when `photon follow` first needs the system bus, never at other
// commands' start (the same rule as Avahi and PulseAudio). Unlike those, nothing here is
// taken from libdbus's headers: their pkg-config entry would link libdbus into every
// binary. The few types and functions used are declared below as libdbus 1.x defines them
// (its ABI has been stable since 1.0); each function is looked up by name and typed by its
// declaration (`__typeof__` does not reference the symbol, so nothing is linked).

#define PHOTON_DBUS_LIBRARY "libdbus-1.so.3"

typedef uint32_t dbus_bool_t;
typedef uint32_t dbus_uint32_t;
typedef struct DBusConnection DBusConnection;
typedef struct DBusMessage DBusMessage;
typedef enum { DBUS_BUS_SESSION, DBUS_BUS_SYSTEM, DBUS_BUS_STARTER } DBusBusType;
#define DBUS_MESSAGE_TYPE_SIGNAL 4

/// As dbus-errors.h defines it.
typedef struct DBusError {
    const char *name;
    const char *message;
    unsigned int dummy1 : 1;
    unsigned int dummy2 : 1;
    unsigned int dummy3 : 1;
    unsigned int dummy4 : 1;
    unsigned int dummy5 : 1;
    void *padding1;
} DBusError;

/// As dbus-message.h defines it (no public fields; its size is what matters).
typedef struct DBusMessageIter {
    void *dummy1;
    void *dummy2;
    dbus_uint32_t dummy3;
    int dummy4, dummy5, dummy6, dummy7, dummy8, dummy9, dummy10, dummy11;
    int pad1;
    void *pad2;
    void *pad3;
} DBusMessageIter;

dbus_bool_t dbus_threads_init_default(void);
void dbus_error_init(DBusError *error);
void dbus_error_free(DBusError *error);
dbus_bool_t dbus_error_is_set(const DBusError *error);
DBusConnection *dbus_bus_get_private(DBusBusType type, DBusError *error);
void dbus_bus_add_match(DBusConnection *connection, const char *rule, DBusError *error);
void dbus_connection_set_exit_on_disconnect(DBusConnection *connection, dbus_bool_t exit_on_disconnect);
void dbus_connection_close(DBusConnection *connection);
void dbus_connection_unref(DBusConnection *connection);
dbus_bool_t dbus_connection_read_write(DBusConnection *connection, int timeout_milliseconds);
DBusMessage *dbus_connection_pop_message(DBusConnection *connection);
DBusMessage *dbus_connection_send_with_reply_and_block(DBusConnection *connection, DBusMessage *message, int timeout_milliseconds,
                                                       DBusError *error);
dbus_bool_t dbus_connection_get_is_connected(DBusConnection *connection);
DBusMessage *dbus_message_new_method_call(const char *bus_name, const char *path, const char *iface, const char *method);
void dbus_message_unref(DBusMessage *message);
int dbus_message_get_type(DBusMessage *message);
const char *dbus_message_get_path(DBusMessage *message);
const char *dbus_message_get_interface(DBusMessage *message);
const char *dbus_message_get_member(DBusMessage *message);
dbus_bool_t dbus_message_iter_init(DBusMessage *message, DBusMessageIter *iter);
void dbus_message_iter_init_append(DBusMessage *message, DBusMessageIter *iter);
dbus_bool_t dbus_message_iter_append_basic(DBusMessageIter *iter, int type, const void *value);
int dbus_message_iter_get_arg_type(DBusMessageIter *iter);
void dbus_message_iter_get_basic(DBusMessageIter *iter, void *value);
dbus_bool_t dbus_message_iter_next(DBusMessageIter *iter);
void dbus_message_iter_recurse(DBusMessageIter *iter, DBusMessageIter *sub);

/// Loads the library; NULL when it is there, else the loader's message.
static inline const char *photon_dbus_load(void) {
    if (!dlopen(PHOTON_DBUS_LIBRARY, RTLD_NOW | RTLD_GLOBAL)) return dlerror();
    return 0;
}

static inline void *photon_dbus_symbol(const char *name) {
    void *handle = dlopen(PHOTON_DBUS_LIBRARY, RTLD_NOW | RTLD_GLOBAL);
    return handle ? dlsym(handle, name) : 0;
}

#define PHOTON_DBUS_FUNCTION(name) \
    static inline __typeof__(&name) photon_load_##name(void) { return (__typeof__(&name))photon_dbus_symbol(#name); }

PHOTON_DBUS_FUNCTION(dbus_threads_init_default)
PHOTON_DBUS_FUNCTION(dbus_error_init)
PHOTON_DBUS_FUNCTION(dbus_error_free)
PHOTON_DBUS_FUNCTION(dbus_error_is_set)
PHOTON_DBUS_FUNCTION(dbus_bus_get_private)
PHOTON_DBUS_FUNCTION(dbus_bus_add_match)
PHOTON_DBUS_FUNCTION(dbus_connection_set_exit_on_disconnect)
PHOTON_DBUS_FUNCTION(dbus_connection_close)
PHOTON_DBUS_FUNCTION(dbus_connection_unref)
PHOTON_DBUS_FUNCTION(dbus_connection_read_write)
PHOTON_DBUS_FUNCTION(dbus_connection_pop_message)
PHOTON_DBUS_FUNCTION(dbus_connection_send_with_reply_and_block)
PHOTON_DBUS_FUNCTION(dbus_connection_get_is_connected)
PHOTON_DBUS_FUNCTION(dbus_message_new_method_call)
PHOTON_DBUS_FUNCTION(dbus_message_unref)
PHOTON_DBUS_FUNCTION(dbus_message_get_type)
PHOTON_DBUS_FUNCTION(dbus_message_get_path)
PHOTON_DBUS_FUNCTION(dbus_message_get_interface)
PHOTON_DBUS_FUNCTION(dbus_message_get_member)
PHOTON_DBUS_FUNCTION(dbus_message_iter_init)
PHOTON_DBUS_FUNCTION(dbus_message_iter_init_append)
PHOTON_DBUS_FUNCTION(dbus_message_iter_append_basic)
PHOTON_DBUS_FUNCTION(dbus_message_iter_get_arg_type)
PHOTON_DBUS_FUNCTION(dbus_message_iter_get_basic)
PHOTON_DBUS_FUNCTION(dbus_message_iter_next)
PHOTON_DBUS_FUNCTION(dbus_message_iter_recurse)

#endif
