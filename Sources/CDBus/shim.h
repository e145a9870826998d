#ifndef PHOTON_CDBUS_SHIM_H
#define PHOTON_CDBUS_SHIM_H
#include <dbus/dbus.h>
#include <dlfcn.h>

// libdbus is loaded when `photon follow` first needs the system bus, never at other
// commands' start (the same rule as Avahi and PulseAudio). The headers give the types;
// each function is looked up by name, typed by its declaration (`__typeof__` does not
// reference the symbol, so nothing is linked).

#define PHOTON_DBUS_LIBRARY "libdbus-1.so.3"

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
