// swift-format-ignore-file: AlwaysUseLowerCamelCase

// The C functions keep their C names (without the library prefix), so that each reads as
// the function it is in the library's documentation.
import CAvahi
import PhotonCore

/// libavahi-client's and libavahi-common's functions, looked up when discovery or an
/// announcement first needs them (`load()`), so that a process that never browses —
/// `photon key` — does not load Avahi, D-Bus and their dependencies at start. Named as in
/// C without the `avahi_` prefix.
enum Avahi {
    /// Loads the libraries once; throws when they are not installed.
    static func load() throws {
        guard let message = loaded else { return }
        throw PhotonError(
            .unsupported, "Avahi's client library cannot be loaded: \(message)",
            hint: "install libavahi-client3 (and run avahi-daemon) for discovery; pairing by address works without it")
    }

    private static let loaded: String? = photon_avahi_load().map { String(cString: $0) }

    static let client_new = photon_load_avahi_client_new()!
    static let client_free = photon_load_avahi_client_free()!
    static let client_errno = photon_load_avahi_client_errno()!
    static let service_browser_new = photon_load_avahi_service_browser_new()!
    static let service_browser_free = photon_load_avahi_service_browser_free()!
    static let service_resolver_new = photon_load_avahi_service_resolver_new()!
    static let service_resolver_free = photon_load_avahi_service_resolver_free()!
    static let entry_group_new = photon_load_avahi_entry_group_new()!
    static let entry_group_free = photon_load_avahi_entry_group_free()!
    static let entry_group_commit = photon_load_avahi_entry_group_commit()!
    static let entry_group_add_service_strlst = photon_load_avahi_entry_group_add_service_strlst()!
    static let threaded_poll_new = photon_load_avahi_threaded_poll_new()!
    static let threaded_poll_free = photon_load_avahi_threaded_poll_free()!
    static let threaded_poll_get = photon_load_avahi_threaded_poll_get()!
    static let threaded_poll_start = photon_load_avahi_threaded_poll_start()!
    static let threaded_poll_stop = photon_load_avahi_threaded_poll_stop()!
    static let strerror = photon_load_avahi_strerror()!
    static let string_list_get_text = photon_load_avahi_string_list_get_text()!
    static let string_list_get_size = photon_load_avahi_string_list_get_size()!
    static let string_list_get_next = photon_load_avahi_string_list_get_next()!
    static let string_list_free = photon_load_avahi_string_list_free()!
    static let string_list_add = photon_load_avahi_string_list_add()!
    static let free = photon_load_avahi_free()!
    static let alternative_service_name = photon_load_avahi_alternative_service_name()!
    static let address_snprint = photon_load_avahi_address_snprint()!
}
