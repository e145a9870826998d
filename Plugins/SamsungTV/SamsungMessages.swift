import Foundation
import PhotonCore

/// Events from the TV on the remote channel. Only the events on this allowlist are
/// parsed, into typed values; everything else becomes `.ignored` with its name.
public enum SamsungEvent: Sendable, Equatable {
    /// The channel is open. `token` only when the TV issues a new one (`data.token`;
    /// `clients[].attributes.token` merely echoes what was sent and is never read).
    case connect(clientID: String?, token: String?)
    case unauthorized
    case timeout
    case error(message: String)
    case ready
    case imeStart
    case imeUpdate(text: String)
    case imeEnd
    case installedApps([SamsungApp])
    case appLaunched(status: Int)
    case ignored(name: String)

    /// The largest message accepted from a TV.
    public static let maximumSize = 256 * 1024

    public static func parse(_ text: String) throws -> SamsungEvent {
        guard text.utf8.count <= maximumSize else {
            throw PhotonError(.messageTooLarge, "a message from the TV is over \(maximumSize) bytes")
        }
        guard let object = try? JSONValue.parse(text), let name = object["event"]?.stringValue
        else { throw PhotonError(.protocolViolation, "the TV sent something that is not an event object") }
        let data = object["data"]
        switch name {
        case "ms.channel.connect":
            return .connect(clientID: data?["id"]?.stringValue, token: tokenValue(data?["token"]))
        case "ms.channel.unauthorized": return .unauthorized
        case "ms.channel.timeOut": return .timeout
        case "ms.error":
            let message = data?["message"]?.stringValue ?? data?.stringValue ?? "unknown error"
            return .error(message: Redaction.sanitize(message, limit: 200))
        case "ms.channel.ready": return .ready
        case "ms.remote.imeStart": return .imeStart
        case "ms.remote.imeUpdate":
            let encoded = data?.stringValue ?? ""
            let decoded = Data(base64Encoded: encoded).map { String(decoding: $0, as: UTF8.self) } ?? ""
            return .imeUpdate(text: Redaction.sanitize(decoded, limit: 500))
        case "ms.remote.imeDone", "ms.remote.imeEnd": return .imeEnd
        case "ed.installedApp.get":
            let list = data?["data"]?.arrayValue ?? []
            return .installedApps(
                list.prefix(500).compactMap { item in
                    guard let id = item["appId"]?.stringValue else { return nil }
                    return SamsungApp(id: Redaction.sanitize(id, limit: 100), name: Redaction.sanitize(item["name"]?.stringValue ?? id, limit: 100))
                })
        case "ed.apps.launch":
            return .appLaunched(status: data?.intValue ?? Int(data?.stringValue ?? "") ?? 0)
        default:
            return .ignored(name: Redaction.sanitize(name, limit: 80))
        }
    }

    /// A token is an opaque short string of ASCII letters, digits and '-'; TVs send a
    /// string, some fixtures a number. Anything else is not stored (it goes into a URL).
    static func tokenValue(_ value: JSONValue?) -> String? {
        let text: String?
        switch value {
        case .string(let s)?: text = s
        case .int(let n)?: text = String(n)
        default: text = nil
        }
        guard let text, !text.isEmpty, text.count <= 128, text.utf8.allSatisfy({ $0.isASCIIAlphanumeric || $0 == 45 }) else {
            return nil
        }
        return text
    }
}

public struct SamsungApp: Sendable, Equatable {
    public var id: String
    public var name: String
}

/// Messages to the TV, as JSON text.
public enum SamsungCommand {
    public enum KeyCommand: String, Sendable {
        case click = "Click"
        case press = "Press"
        case release = "Release"
    }

    /// A key command. Built directly (the hot path of every key press): the code is a
    /// validated `KEY_[A-Z0-9_]` name, so it needs no escaping; the result is byte for byte
    /// what the sorted-keys JSON encoder produces.
    public static func key(_ code: String, _ command: KeyCommand) -> String {
        precondition(code.utf8.allSatisfy { $0 == UInt8(ascii: "_") || ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) })
        return #"{"method":"ms.remote.control","params":{"Cmd":""# + command.rawValue + #"","DataOfCmd":""# + code
            + #"","Option":"false","TypeOfRemote":"SendRemoteKey"}}"#
    }

    // Written by Photon's one JSON writer, keys in sorted order (as the TVs' own apps send
    // them, and byte for byte what the tests' captures hold).

    public static func text(_ text: String) -> String {
        JSONValue.object([
            ("method", "ms.remote.control"),
            (
                "params",
                .object([
                    ("Cmd", .string(Data(text.utf8).base64EncodedString())), ("DataOfCmd", "base64"), ("TypeOfRemote", "SendInputString"),
                ])
            ),
        ]).encoded
    }

    public static let textEnd = JSONValue.object([("method", "ms.remote.control"), ("params", .object([("TypeOfRemote", "SendInputEnd")]))])
        .encoded

    public static func launch(_ appID: String, type: String = "DEEP_LINK", metaTag: String = "") -> String {
        JSONValue.object([
            ("method", "ms.channel.emit"),
            (
                "params",
                .object([
                    ("data", .object([("action_type", .string(type)), ("appId", .string(appID)), ("metaTag", .string(metaTag))])),
                    ("event", "ed.apps.launch"), ("to", "host"),
                ])
            ),
        ]).encoded
    }

    public static let installedApps = JSONValue.object([
        ("method", "ms.channel.emit"), ("params", .object([("event", "ed.installedApp.get"), ("to", "host")])),
    ]).encoded

    /// The channel URL target: `/api/v2/channels/samsung.remote.control?name=<b64>[&token=<t>]`
    /// (or another app's channel, `com.samsung.art-app`).
    public static func channelTarget(clientName: String, token: String?, app: String = "samsung.remote.control") -> String {
        // PhotonCore's ASCII percent-encoding: Foundation's `CharacterSet.alphanumerics`
        // took 0.3 ms to build on a cold key, and let other scripts' letters into the URL.
        var target = "/api/v2/channels/\(app)?name=\(percentEncoded(Data(clientName.utf8).base64EncodedString()))"
        if let token, !token.isEmpty { target += "&token=\(percentEncoded(token))" }
        return target
    }
}

/// `GET /api/v2/` as typed values. Every field from the TV is a string and untrusted;
/// MAC and IP can be "none" while the TV wakes, and are validated before use.
public struct SamsungDeviceInfo: Sendable, Equatable {
    public var id: String?
    public var name: String
    public var modelName: String?
    public var model: String?
    public var tokenAuthSupport: Bool
    /// nil when the TV does not report it (older sets); `"standby"` or `""` mean off.
    public var powerState: String?
    public var wifiMac: String?
    public var frameTV: Bool

    public var isOn: Bool? { powerState.map { $0 == "on" } }

    public static func parse(_ body: [UInt8]) throws -> SamsungDeviceInfo {
        guard let root = try? JSONValue.parse(body), let device = root["device"], device.isObject
        else { throw PhotonError(.protocolViolation, "the TV's /api/v2/ answer has no device object", hint: "is this a Samsung TV?") }
        func string(_ key: String) -> String? { device[key]?.stringValue.map { Redaction.sanitize($0, limit: 200) } }
        // Some models put the capabilities in `isSupport`, a JSON object inside a string.
        let support = root["isSupport"]?.stringValue.flatMap { try? JSONValue.parse($0) }
        let tokenAuth = (string("TokenAuthSupport") ?? support?["TokenAuthSupport"]?.stringValue) == "true"
        let mac = string("wifiMac").flatMap(MACAddress.normalized)
        let rawName = string("name") ?? root["name"]?.stringValue ?? "Samsung TV"
        return SamsungDeviceInfo(
            id: string("duid") ?? string("id"), name: decodeEntities(rawName), modelName: string("modelName"),
            model: string("model"), tokenAuthSupport: tokenAuth, powerState: device["PowerState"] == nil ? nil : string("PowerState"),
            wifiMac: mac, frameTV: string("FrameTVSupport") == "true")
    }

    static func decodeEntities(_ text: String) -> String {
        text.replacingOccurrences(of: "&apos;", with: "'").replacingOccurrences(of: "&quot;", with: "\"")
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&amp;", with: "&")
    }
}
