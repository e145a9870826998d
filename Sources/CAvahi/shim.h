#ifndef PHOTON_CAVAHI_SHIM_H
#define PHOTON_CAVAHI_SHIM_H
#include <avahi-client/client.h>
#include <avahi-client/lookup.h>
#include <avahi-client/publish.h>
#include <avahi-common/error.h>
#include <avahi-common/strlst.h>
#include <avahi-common/thread-watch.h>
#include <avahi-common/malloc.h>
#include <avahi-common/alternative.h>
#include <dlfcn.h>

// Avahi (and through it D-Bus, systemd, gcrypt, lz4, zstd…) is loaded when discovery or
// announcing first needs it, not at every start: a `photon key` never touches mDNS, and
// the dynamic loader's work for nine libraries it would never use is a cost on every key
// press. The headers give the types; each function is looked up by name, typed by its
// declaration (`__typeof__` does not reference the symbol, so nothing is linked).

#define PHOTON_AVAHI_CLIENT "libavahi-client.so.3"
#define PHOTON_AVAHI_COMMON "libavahi-common.so.3"

/// Loads both libraries; NULL when they are there, else the loader's message.
static inline const char *photon_avahi_load(void) {
    if (!dlopen(PHOTON_AVAHI_COMMON, RTLD_NOW | RTLD_GLOBAL)) return dlerror();
    if (!dlopen(PHOTON_AVAHI_CLIENT, RTLD_NOW | RTLD_GLOBAL)) return dlerror();
    return 0;
}

static inline void *photon_avahi_symbol(const char *library, const char *name) {
    void *handle = dlopen(library, RTLD_NOW | RTLD_GLOBAL);
    return handle ? dlsym(handle, name) : 0;
}

#define PHOTON_AVAHI_FUNCTION(library, name) \
    static inline __typeof__(&name) photon_load_##name(void) { return (__typeof__(&name))photon_avahi_symbol(library, #name); }

PHOTON_AVAHI_FUNCTION(PHOTON_AVAHI_CLIENT, avahi_client_new)
PHOTON_AVAHI_FUNCTION(PHOTON_AVAHI_CLIENT, avahi_client_free)
PHOTON_AVAHI_FUNCTION(PHOTON_AVAHI_CLIENT, avahi_client_errno)
PHOTON_AVAHI_FUNCTION(PHOTON_AVAHI_CLIENT, avahi_service_browser_new)
PHOTON_AVAHI_FUNCTION(PHOTON_AVAHI_CLIENT, avahi_service_browser_free)
PHOTON_AVAHI_FUNCTION(PHOTON_AVAHI_CLIENT, avahi_service_resolver_new)
PHOTON_AVAHI_FUNCTION(PHOTON_AVAHI_CLIENT, avahi_service_resolver_free)
PHOTON_AVAHI_FUNCTION(PHOTON_AVAHI_CLIENT, avahi_entry_group_new)
PHOTON_AVAHI_FUNCTION(PHOTON_AVAHI_CLIENT, avahi_entry_group_free)
PHOTON_AVAHI_FUNCTION(PHOTON_AVAHI_CLIENT, avahi_entry_group_commit)
PHOTON_AVAHI_FUNCTION(PHOTON_AVAHI_CLIENT, avahi_entry_group_add_service_strlst)
PHOTON_AVAHI_FUNCTION(PHOTON_AVAHI_COMMON, avahi_threaded_poll_new)
PHOTON_AVAHI_FUNCTION(PHOTON_AVAHI_COMMON, avahi_threaded_poll_free)
PHOTON_AVAHI_FUNCTION(PHOTON_AVAHI_COMMON, avahi_threaded_poll_get)
PHOTON_AVAHI_FUNCTION(PHOTON_AVAHI_COMMON, avahi_threaded_poll_start)
PHOTON_AVAHI_FUNCTION(PHOTON_AVAHI_COMMON, avahi_threaded_poll_stop)
PHOTON_AVAHI_FUNCTION(PHOTON_AVAHI_COMMON, avahi_strerror)
PHOTON_AVAHI_FUNCTION(PHOTON_AVAHI_COMMON, avahi_string_list_get_text)
PHOTON_AVAHI_FUNCTION(PHOTON_AVAHI_COMMON, avahi_string_list_get_size)
PHOTON_AVAHI_FUNCTION(PHOTON_AVAHI_COMMON, avahi_string_list_get_next)
PHOTON_AVAHI_FUNCTION(PHOTON_AVAHI_COMMON, avahi_string_list_free)
PHOTON_AVAHI_FUNCTION(PHOTON_AVAHI_COMMON, avahi_string_list_add)
PHOTON_AVAHI_FUNCTION(PHOTON_AVAHI_COMMON, avahi_free)
PHOTON_AVAHI_FUNCTION(PHOTON_AVAHI_COMMON, avahi_alternative_service_name)
PHOTON_AVAHI_FUNCTION(PHOTON_AVAHI_COMMON, avahi_address_snprint)

#endif
