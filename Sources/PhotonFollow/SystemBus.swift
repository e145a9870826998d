import CDBus
import Foundation
import PhotonCore

/// A value read from a D-Bus message: the types logind sends (strings, object paths,
/// booleans, integers, file descriptors, arrays, dict entries and variants).
public indirect enum DBusValue: Sendable, Equatable {
    case string(String)
    case objectPath(String)
    case bool(Bool)
    case int(Int64)
    case unixFD(Int32)
    case array([DBusValue])
    case entry(DBusValue, DBusValue)
    case variant(DBusValue)
    case other(Character)

    public var string: String? {
        switch self {
        case .string(let s), .objectPath(let s): return s
        case .variant(let v): return v.string
        default: return nil
        }
    }

    public var bool: Bool? {
        switch self {
        case .bool(let b): return b
        case .variant(let v): return v.bool
        default: return nil
        }
    }
}

/// A signal from the bus: who sent it and what it carries.
public struct DBusSignal: Sendable, Equatable {
    public var path: String
    public var interface: String
    public var member: String
    public var arguments: [DBusValue]

    public init(path: String, interface: String, member: String, arguments: [DBusValue]) {
        self.path = path
        self.interface = interface
        self.member = member
        self.arguments = arguments
    }
}

/// A private connection to the system bus (`DBUS_SYSTEM_BUS_ADDRESS` where set), used from
/// one thread at a time: method calls, match rules, and signals read as they come.
final class SystemBus: @unchecked Sendable {
    private let connection: OpaquePointer
    private var closed = false

    /// Connects, or throws `unreachable` with the bus's own message.
    init() throws {
        try DBus.load()
        var error = DBusError()
        DBus.error_init(&error)
        defer { DBus.error_free(&error) }
        guard let connection = DBus.bus_get_private(DBUS_BUS_SYSTEM, &error) else {
            throw PhotonError(
                .unreachable, "the system bus cannot be reached: \(Self.message(error))",
                hint: "`photon follow` needs D-Bus and systemd-logind (check `busctl status org.freedesktop.login1`)")
        }
        DBus.set_exit_on_disconnect(connection, 0)
        self.connection = connection
    }

    deinit { close() }

    func close() {
        guard !closed else { return }
        closed = true
        DBus.connection_close(connection)
        DBus.connection_unref(connection)
    }

    var isConnected: Bool { !closed && DBus.is_connected(connection) != 0 }

    static func message(_ error: DBusError) -> String {
        guard let text = error.message else { return "no reason given" }
        return Redaction.sanitize(String(cString: text), limit: 200)
    }

    func addMatch(_ rule: String) throws {
        var error = DBusError()
        DBus.error_init(&error)
        defer { DBus.error_free(&error) }
        DBus.bus_add_match(connection, rule, &error)
        if DBus.error_is_set(&error) != 0 { throw PhotonError(.protocolViolation, "the bus refused a match rule: \(Self.message(error))") }
    }

    /// Arguments a method call sends.
    enum Argument {
        case string(String)
        case uint32(UInt32)
    }

    /// Calls a method and returns its reply's arguments; an error reply throws with its text.
    func call(
        _ destination: String, _ path: String, _ interface: String, _ member: String, _ arguments: [Argument] = [], timeoutMilliseconds: Int32 = 5000
    ) throws -> [DBusValue] {
        guard let message = DBus.new_method_call(destination, path, interface, member) else {
            throw PhotonError(.internal, "could not make a D-Bus call to \(member)")
        }
        defer { DBus.message_unref(message) }
        var iterator = DBusMessageIter()
        DBus.iter_init_append(message, &iterator)
        for argument in arguments {
            switch argument {
            case .string(let text):
                text.withCString { pointer in
                    var value: UnsafePointer<CChar>? = pointer
                    _ = DBus.iter_append_basic(&iterator, Int32(UInt8(ascii: "s")), &value)
                }
            case .uint32(let number):
                var value = number
                _ = DBus.iter_append_basic(&iterator, Int32(UInt8(ascii: "u")), &value)
            }
        }
        var error = DBusError()
        DBus.error_init(&error)
        defer { DBus.error_free(&error) }
        guard let reply = DBus.send_with_reply_and_block(connection, message, timeoutMilliseconds, &error) else {
            let name = error.name.map { String(cString: $0) } ?? ""
            let code: PhotonError.Code = name.hasSuffix("ServiceUnknown") || name.hasSuffix("NoReply") ? .unreachable : .protocolViolation
            throw PhotonError(code, "\(member) failed on the bus: \(Self.message(error))")
        }
        defer { DBus.message_unref(reply) }
        return Self.arguments(of: reply)
    }

    /// Waits up to `timeoutMilliseconds` for traffic and returns the next signal, if any.
    func nextSignal(timeoutMilliseconds: Int32) -> DBusSignal? {
        var waited = false
        while true {
            if let message = DBus.pop_message(connection) {
                defer { DBus.message_unref(message) }
                guard DBus.message_type(message) == DBUS_MESSAGE_TYPE_SIGNAL else { continue }
                func text(_ pointer: UnsafePointer<CChar>?) -> String { pointer.map { String(cString: $0) } ?? "" }
                return DBusSignal(
                    path: text(DBus.message_path(message)), interface: text(DBus.message_interface(message)),
                    member: text(DBus.message_member(message)), arguments: Self.arguments(of: message))
            }
            if waited { return nil }
            guard DBus.read_write(connection, timeoutMilliseconds) != 0 else { return nil }
            waited = true
        }
    }

    static func arguments(of message: OpaquePointer) -> [DBusValue] {
        var iterator = DBusMessageIter()
        guard DBus.iter_init(message, &iterator) != 0 else { return [] }
        return values(&iterator, depth: 0)
    }

    /// Reads every value at this level, recursing into containers (bounded in depth and
    /// count: the bus is trusted, but not without limits).
    static func values(_ iterator: inout DBusMessageIter, depth: Int) -> [DBusValue] {
        var result: [DBusValue] = []
        while result.count < 1024 {
            let type = DBus.iter_arg_type(&iterator)
            if type == 0 { break }  // DBUS_TYPE_INVALID
            result.append(value(&iterator, type: type, depth: depth))
            if DBus.iter_next(&iterator) == 0 { break }
        }
        return result
    }

    static func value(_ iterator: inout DBusMessageIter, type: Int32, depth: Int) -> DBusValue {
        switch UInt8(truncatingIfNeeded: type) {
        case UInt8(ascii: "s"), UInt8(ascii: "o"):
            var pointer: UnsafePointer<CChar>?
            DBus.iter_get_basic(&iterator, &pointer)
            let text = pointer.map { String(cString: $0) } ?? ""
            return type == Int32(UInt8(ascii: "o")) ? .objectPath(text) : .string(text)
        case UInt8(ascii: "b"):
            var flag: UInt32 = 0
            DBus.iter_get_basic(&iterator, &flag)
            return .bool(flag != 0)
        case UInt8(ascii: "h"):
            var fd: Int32 = -1
            DBus.iter_get_basic(&iterator, &fd)
            return .unixFD(fd)
        case UInt8(ascii: "u"), UInt8(ascii: "i"):
            var number: Int32 = 0
            DBus.iter_get_basic(&iterator, &number)
            return .int(Int64(type == Int32(UInt8(ascii: "u")) ? Int64(UInt32(bitPattern: number)) : Int64(number)))
        case UInt8(ascii: "t"), UInt8(ascii: "x"):
            var number: Int64 = 0
            DBus.iter_get_basic(&iterator, &number)
            return .int(number)
        case UInt8(ascii: "a"), UInt8(ascii: "e"), UInt8(ascii: "{"), UInt8(ascii: "v"), UInt8(ascii: "r"), UInt8(ascii: "("):
            guard depth < 8 else { return .other("?") }
            var inner = DBusMessageIter()
            DBus.iter_recurse(&iterator, &inner)
            let items = values(&inner, depth: depth + 1)
            switch UInt8(truncatingIfNeeded: type) {
            case UInt8(ascii: "v"): return .variant(items.first ?? .other("?"))
            case UInt8(ascii: "e"), UInt8(ascii: "{"): return items.count == 2 ? .entry(items[0], items[1]) : .array(items)
            default: return .array(items)
            }
        default:
            return .other(Character(Unicode.Scalar(UInt8(truncatingIfNeeded: type))))
        }
    }
}
