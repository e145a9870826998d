// swift-format-ignore-file: AlwaysUseLowerCamelCase

// The C functions keep their C names (without the library prefix), so that each reads as
// the function it is in the library's documentation.
import CMosquitto
import PhotonCore

/// libmosquitto's functions, looked up when the MQTT bridge first needs them (`load()`),
/// so that photon-cli does not load the library for commands that never speak MQTT.
/// Named as in C without the `mosquitto_` prefix.
enum Mosquitto {
    /// Loads the library once; throws when it is not installed.
    static func load() throws {
        guard let message = loaded else { return }
        throw PhotonError(
            .unsupported, "libmosquitto cannot be loaded: \(message)", hint: "install libmosquitto1 for the MQTT bridge (photon serve --mqtt)")
    }

    private static let loaded: String? = photon_mosquitto_load().map { String(cString: $0) }

    static let connack_string = photon_load_mosquitto_connack_string()!
    static let connect = photon_load_mosquitto_connect()!
    static let connect_callback_set = photon_load_mosquitto_connect_callback_set()!
    static let destroy = photon_load_mosquitto_destroy()!
    static let disconnect = photon_load_mosquitto_disconnect()!
    static let disconnect_callback_set = photon_load_mosquitto_disconnect_callback_set()!
    static let int_option = photon_load_mosquitto_int_option()!
    static let lib_init = photon_load_mosquitto_lib_init()!
    static let log_callback_set = photon_load_mosquitto_log_callback_set()!
    static let loop_misc = photon_load_mosquitto_loop_misc()!
    static let loop_read = photon_load_mosquitto_loop_read()!
    static let loop_write = photon_load_mosquitto_loop_write()!
    static let message_callback_set = photon_load_mosquitto_message_callback_set()!
    static let new = photon_load_mosquitto_new()!
    static let publish = photon_load_mosquitto_publish()!
    static let reconnect = photon_load_mosquitto_reconnect()!
    static let reconnect_delay_set = photon_load_mosquitto_reconnect_delay_set()!
    static let socket = photon_load_mosquitto_socket()!
    static let strerror = photon_load_mosquitto_strerror()!
    static let subscribe = photon_load_mosquitto_subscribe()!
    static let threaded_set = photon_load_mosquitto_threaded_set()!
    static let tls_set = photon_load_mosquitto_tls_set()!
    static let user_data_set = photon_load_mosquitto_user_data_set()!
    static let username_pw_set = photon_load_mosquitto_username_pw_set()!
    static let void_option = photon_load_mosquitto_void_option()!
    static let want_write = photon_load_mosquitto_want_write()!
    static let will_set = photon_load_mosquitto_will_set()!
}
