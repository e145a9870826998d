import PhotonCore

/// The remote-control messages of port 6466 (`remote.RemoteMessage`), one typed case
/// per sub-message. Decoding keeps only the fields the protocol notes give a meaning to.
public enum RemoteMessage: Sendable, Hashable {
    case configure(features: Int32, device: RemoteDeviceInfo?)
    case setActive(features: Int32)
    /// The TV could not process a message; `echoed` is the message it echoes back.
    case error(value: UInt64, echoed: [UInt8])
    case pingRequest(val1: Int32, val2: Int32)
    case pingResponse(val1: Int32)
    case keyInject(code: Int32, direction: RemoteKeyDirection)
    case imeKeyInject(appPackage: String?, label: String?)
    case imeBatchEdit(imeCounter: Int32, fieldCounter: Int32, text: String?)
    case imeShowRequest
    case voiceBegin(sessionID: Int32, packageName: String?)
    case voicePayload(sessionID: Int32, samples: [UInt8])
    case voiceEnd(sessionID: Int32)
    case start(started: Bool)
    case setVolumeLevel(RemoteVolume)
    case appLinkLaunch(String)
    /// A sub-message this client does not use (field number kept for logs).
    case other(field: Int)

    public func encoded() -> [UInt8] {
        var w = ProtoWriter()
        switch self {
        case .configure(let features, let device):
            w.message(1) { m in
                m.int32(1, features)
                if let device { m.message(2) { device.encode(into: &$0) } }
            }
        case .setActive(let features):
            w.message(2) { $0.int32(1, features) }
        case .error(let value, let echoed):
            w.message(3) {
                $0.uint(1, value)
                $0.bytes(2, echoed)
            }
        case .pingRequest(let v1, let v2):
            w.message(8) {
                $0.int32(1, v1)
                $0.int32(2, v2)
            }
        case .pingResponse(let v1):
            w.message(9) { $0.int32(1, v1) }
        case .keyInject(let code, let direction):
            w.message(10) {
                $0.int32(1, code)
                $0.uint(2, direction.rawValue)
            }
        case .imeKeyInject(let package, let label):
            w.message(20) { m in
                m.message(1) { app in
                    if let label { app.string(10, label) }
                    if let package { app.string(12, package) }
                }
            }
        case .imeBatchEdit(let ime, let field, let text):
            w.message(21) { m in
                m.int32(1, ime)
                m.int32(2, field)
                if let text {
                    let position = Int32(max(text.count - 1, 0))
                    m.message(3) { edit in
                        edit.int32(1, 1)
                        edit.message(2) { status in
                            status.int32(1, position)
                            status.int32(2, position)
                            status.string(3, text)
                        }
                    }
                }
            }
        case .imeShowRequest:
            w.message(22) { _ in }
        case .voiceBegin(let id, let package):
            w.message(30) { m in
                m.int32(1, id)
                if let package { m.string(2, package) }
            }
        case .voicePayload(let id, let samples):
            w.message(31) {
                $0.int32(1, id)
                $0.bytes(2, samples)
            }
        case .voiceEnd(let id):
            w.message(32) { $0.int32(1, id) }
        case .start(let started):
            w.message(40) { $0.bool(1, started, always: true) }
        case .setVolumeLevel(let volume):
            w.message(50) { m in
                m.string(3, volume.playerModel)
                m.uint(6, UInt64(volume.maximum))
                m.uint(7, UInt64(volume.level))
                m.bool(8, volume.muted, always: true)
            }
        case .appLinkLaunch(let link):
            w.message(90) { $0.string(1, link) }
        case .other(let field):
            w.message(field) { _ in }
        }
        return w.bytes
    }

    public static func decode(_ bytes: [UInt8]) throws -> RemoteMessage {
        var reader = ProtoReader(bytes)
        var result: RemoteMessage?
        while let (field, value) = try reader.next() {
            guard case .bytes(let body) = value else { continue }
            var r = ProtoReader(body)
            switch field {
            case 1:
                var features: Int32 = 0
                var device: RemoteDeviceInfo?
                while let (f, v) = try r.next() {
                    if f == 1 { features = try v.int32 } else if f == 2 { device = try RemoteDeviceInfo.decode(try v.bytes) }
                }
                result = .configure(features: features, device: device)
            case 2:
                var features: Int32 = 0
                while let (f, v) = try r.next() { if f == 1 { features = try v.int32 } }
                result = .setActive(features: features)
            case 3:
                var code: UInt64 = 0
                var echoed: [UInt8] = []
                while let (f, v) = try r.next() {
                    if f == 1 { code = try v.uint } else if f == 2 { echoed = Array(try v.bytes) }
                }
                result = .error(value: code, echoed: echoed)
            case 8:
                var v1: Int32 = 0
                var v2: Int32 = 0
                while let (f, v) = try r.next() {
                    if f == 1 { v1 = try v.int32 } else if f == 2 { v2 = try v.int32 }
                }
                result = .pingRequest(val1: v1, val2: v2)
            case 9:
                var v1: Int32 = 0
                while let (f, v) = try r.next() { if f == 1 { v1 = try v.int32 } }
                result = .pingResponse(val1: v1)
            case 10:
                var code: Int32 = 0
                var direction = RemoteKeyDirection.unknown
                while let (f, v) = try r.next() {
                    if f == 1 { code = try v.int32 } else if f == 2 { direction = RemoteKeyDirection(rawValue: try v.uint) ?? .unknown }
                }
                result = .keyInject(code: code, direction: direction)
            case 20:
                var package: String?
                var label: String?
                while let (f, v) = try r.next() {
                    guard f == 1 else { continue }
                    var app = ProtoReader(try v.bytes)
                    while let (af, av) = try app.next() {
                        // proto3: an empty string is the field's default, the same as absent
                        // (a fuzz finding: an empty label did not survive re-encoding).
                        if af == 12 { package = try av.string.nilIfEmpty } else if af == 10 { label = try av.string.nilIfEmpty }
                    }
                }
                result = .imeKeyInject(appPackage: package, label: label)
            case 21:
                var ime: Int32 = 0
                var fieldCounter: Int32 = 0
                var text: String?
                while let (f, v) = try r.next() {
                    switch f {
                    case 1: ime = try v.int32
                    case 2: fieldCounter = try v.int32
                    case 3:
                        var edit = ProtoReader(try v.bytes)
                        while let (ef, ev) = try edit.next() {
                            guard ef == 2 else { continue }
                            var status = ProtoReader(try ev.bytes)
                            while let (sf, sv) = try status.next() { if sf == 3 { text = try sv.string } }
                        }
                    default: break
                    }
                }
                result = .imeBatchEdit(imeCounter: ime, fieldCounter: fieldCounter, text: text)
            case 22:
                result = .imeShowRequest
            case 30:
                var id: Int32 = 0
                var package: String?
                while let (f, v) = try r.next() {
                    if f == 1 { id = try v.int32 } else if f == 2 { package = try v.string }
                }
                result = .voiceBegin(sessionID: id, packageName: package)
            case 31:
                var id: Int32 = 0
                var samples: [UInt8] = []
                while let (f, v) = try r.next() {
                    if f == 1 { id = try v.int32 } else if f == 2 { samples = Array(try v.bytes) }
                }
                result = .voicePayload(sessionID: id, samples: samples)
            case 32:
                var id: Int32 = 0
                while let (f, v) = try r.next() { if f == 1 { id = try v.int32 } }
                result = .voiceEnd(sessionID: id)
            case 40:
                var started = false
                while let (f, v) = try r.next() { if f == 1 { started = try v.bool } }
                result = .start(started: started)
            case 50:
                var volume = RemoteVolume(playerModel: "", level: 0, maximum: 0, muted: false)
                while let (f, v) = try r.next() {
                    switch f {
                    case 3: volume.playerModel = try v.string
                    case 6: volume.maximum = Int(truncatingIfNeeded: try v.uint)
                    case 7: volume.level = Int(truncatingIfNeeded: try v.uint)
                    case 8: volume.muted = try v.bool
                    default: break
                    }
                }
                result = .setVolumeLevel(volume)
            case 90:
                var link = ""
                while let (f, v) = try r.next() { if f == 1 { link = try v.string } }
                result = .appLinkLaunch(link)
            default:
                result = .other(field: field)
            }
        }
        guard let result else { throw ProtoReader.malformed("an empty remote message") }
        return result
    }
}

public enum RemoteKeyDirection: UInt64, Sendable, Hashable {
    case unknown = 0
    case startLong = 1
    case endLong = 2
    case short = 3

    public var name: String {
        switch self {
        case .unknown: return "UNKNOWN"
        case .startLong: return "START_LONG"
        case .endLong: return "END_LONG"
        case .short: return "SHORT"
        }
    }
}

/// `RemoteDeviceInfo`: who is on the other end.
public struct RemoteDeviceInfo: Sendable, Hashable {
    public var model: String
    public var vendor: String
    public var platform: Int32
    public var osVersion: String
    public var packageName: String
    public var appVersion: String

    public init(model: String, vendor: String, platform: Int32 = 1, osVersion: String, packageName: String, appVersion: String) {
        self.model = model
        self.vendor = vendor
        self.platform = platform
        self.osVersion = osVersion
        self.packageName = packageName
        self.appVersion = appVersion
    }

    func encode(into w: inout ProtoWriter) {
        w.string(1, model)
        w.string(2, vendor)
        w.int32(3, platform)
        w.string(4, osVersion)
        w.string(5, packageName)
        w.string(6, appVersion)
    }

    static func decode(_ bytes: ArraySlice<UInt8>) throws -> RemoteDeviceInfo {
        var r = ProtoReader(bytes)
        var info = RemoteDeviceInfo(model: "", vendor: "", platform: 0, osVersion: "", packageName: "", appVersion: "")
        while let (f, v) = try r.next() {
            switch f {
            case 1: info.model = try v.string
            case 2: info.vendor = try v.string
            case 3: info.platform = try v.int32
            case 4: info.osVersion = try v.string
            case 5: info.packageName = try v.string
            case 6: info.appVersion = try v.string
            default: break
            }
        }
        return info
    }
}

/// `RemoteSetVolumeLevel`: the TV's volume report.
public struct RemoteVolume: Sendable, Hashable {
    public var playerModel: String
    public var level: Int
    public var maximum: Int
    public var muted: Bool

    public init(playerModel: String, level: Int, maximum: Int, muted: Bool) {
        self.playerModel = playerModel
        self.level = level
        self.maximum = maximum
        self.muted = muted
    }
}

/// Feature bits of `RemoteConfigure.code1` / `RemoteSetActive.active`.
public struct RemoteFeatures: OptionSet, Sendable, Hashable {
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }
    public static let ping = RemoteFeatures(rawValue: 1)
    public static let key = RemoteFeatures(rawValue: 2)
    public static let ime = RemoteFeatures(rawValue: 4)
    public static let voice = RemoteFeatures(rawValue: 8)
    public static let unknown1 = RemoteFeatures(rawValue: 16)
    public static let power = RemoteFeatures(rawValue: 32)
    public static let volume = RemoteFeatures(rawValue: 64)
    public static let appLink = RemoteFeatures(rawValue: 512)
    /// Everything Photon implements.
    public static let photon: RemoteFeatures = [.ping, .key, .ime, .voice, .power, .volume, .appLink]
}

extension String {
    /// nil for "", as proto3 reads a string field left at its default.
    fileprivate var nilIfEmpty: String? { isEmpty ? nil : self }
}
