// swift-format-ignore-file: AlwaysUseLowerCamelCase

// The C functions keep their C names (without the `dbus_` prefix), so that each reads as
// the function it is in libdbus's documentation.
import CDBus
import PhotonCore

/// libdbus's functions, looked up when `photon follow` first needs the bus, so that no
/// other command loads D-Bus. Named as in C without the `dbus_` prefix.
enum DBus {
    static func load() throws {
        guard let message = loaded else { return }
        throw PhotonError(
            .unsupported, "libdbus cannot be loaded: \(message)",
            hint: "install libdbus-1-3 (`photon follow` listens to logind on the system bus)")
    }

    private static let loaded: String? = {
        if let failure = photon_dbus_load() { return String(cString: failure) }
        _ = photon_load_dbus_threads_init_default()!()
        return nil
    }()

    static let error_init = photon_load_dbus_error_init()!
    static let error_free = photon_load_dbus_error_free()!
    static let error_is_set = photon_load_dbus_error_is_set()!
    static let bus_get_private = photon_load_dbus_bus_get_private()!
    static let bus_add_match = photon_load_dbus_bus_add_match()!
    static let set_exit_on_disconnect = photon_load_dbus_connection_set_exit_on_disconnect()!
    static let connection_close = photon_load_dbus_connection_close()!
    static let connection_unref = photon_load_dbus_connection_unref()!
    static let read_write = photon_load_dbus_connection_read_write()!
    static let pop_message = photon_load_dbus_connection_pop_message()!
    static let send_with_reply_and_block = photon_load_dbus_connection_send_with_reply_and_block()!
    static let is_connected = photon_load_dbus_connection_get_is_connected()!
    static let new_method_call = photon_load_dbus_message_new_method_call()!
    static let message_unref = photon_load_dbus_message_unref()!
    static let message_type = photon_load_dbus_message_get_type()!
    static let message_path = photon_load_dbus_message_get_path()!
    static let message_interface = photon_load_dbus_message_get_interface()!
    static let message_member = photon_load_dbus_message_get_member()!
    static let iter_init = photon_load_dbus_message_iter_init()!
    static let iter_init_append = photon_load_dbus_message_iter_init_append()!
    static let iter_append_basic = photon_load_dbus_message_iter_append_basic()!
    static let iter_arg_type = photon_load_dbus_message_iter_get_arg_type()!
    static let iter_get_basic = photon_load_dbus_message_iter_get_basic()!
    static let iter_next = photon_load_dbus_message_iter_next()!
    static let iter_recurse = photon_load_dbus_message_iter_recurse()!
}
