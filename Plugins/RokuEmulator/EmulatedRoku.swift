import Foundation
import PhotonCore
import PhotonEmulatorSupport
import PhotonNet
import Roku

/// An emulated Roku: the ECP endpoints over HTTP/1.1 with keep-alive, the "Control by
/// mobile apps" modes, key presses that change its state (power, the active app), an
/// SSDP responder on loopback, and misbehaviour for tests (slow, garbage XML, huge
/// bodies, closing without answering). Reports what it receives as `EmulatorEvent`s.
public final class EmulatedRoku: Sendable {
    public enum NetworkAccess: String, Sendable { case enabled, limited, disabled }
    public enum Misbehaviour: String, Sendable { case none, slow, garbage, huge, close }

    public struct Configuration: Sendable {
        public var host = "127.0.0.1"
        /// 0 picks a free port.
        public var port: UInt16 = 8060
        public var serial = "YN00PHOTON01"
        public var name = "Photon Emulated Roku"
        public var mac = "02:00:00:52:4F:4B"
        public var access = NetworkAccess.enabled
        /// A UDP port on `host` to answer SSDP searches on (nil: none).
        public var ssdpPort: UInt16?
        /// The `power-mode` it starts in: PowerOn, DisplayOff (standby), Headless, Ready.
        public var powerMode = "PowerOn"
        public init() {}
    }

    struct State {
        var power = "PowerOn"
        var activeApp: (id: String, name: String)?
        var access: NetworkAccess
        var misbehaviour = Misbehaviour.none
        /// The misbehaviour is for the next query only.
        var misbehaveOnce = false
        /// Hang up on the text keypress after this many characters (a network cut mid-text).
        var cutTextAfter: Int?
        var text = ""
        var serving = true
        var connections: [Int: SocketStream] = [:]
        var nextConnection = 0
    }

    public let configuration: Configuration
    let emit: @Sendable (EmulatorEvent) -> Void
    let listener: TCPListener
    let ssdp: SSDPResponder?
    private let state: Locked<State>
    private let tasks = Locked<[Task<Void, Never>]>([])
    public var port: UInt16 { listener.port }

    /// Channels, then the TV's inputs as Roku TVs list them (the user renamed HDMI 2).
    static let apps: [(id: String, name: String)] = [
        ("12", "Netflix"), ("837", "YouTube"), ("tvinput.hdmi1", "HDMI 1"), ("tvinput.hdmi2", "PlayStation"), ("tvinput.hdmi3", "HDMI 3"),
        ("tvinput.cvbs", "AV"), ("tvinput.dtv", "Live TV"),
    ]
    /// The antenna channels (a hidden one is left out of lists by clients).
    static let channels: [(number: String, name: String, hidden: Bool)] = [
        ("7.1", "Photon News", false), ("7.2", "Photon Weather", false), ("9.1", "Photon Sports", false), ("11.1", "Hidden", true),
    ]
    /// The standard name of each input, for the `input` event.
    static let inputNames = ["tvinput.hdmi1": "hdmi1", "tvinput.hdmi2": "hdmi2", "tvinput.hdmi3": "hdmi3", "tvinput.cvbs": "av", "tvinput.dtv": "tv"]

    public static func start(_ configuration: Configuration, onEvent: @escaping @Sendable (EmulatorEvent) -> Void) throws -> EmulatedRoku {
        let tv = try EmulatedRoku(configuration: configuration, emit: onEvent)
        onEvent(
            EmulatorEvent(
                "ready",
                [
                    ("brand", .string("roku")), ("host", .string(configuration.host)), ("port", .int(Int(tv.port))),
                    ("serial", .string(configuration.serial)), ("ssdp_port", .int(Int(tv.ssdp?.port ?? 0))),
                ]))
        return tv
    }

    private init(configuration: Configuration, emit: @escaping @Sendable (EmulatorEvent) -> Void) throws {
        self.configuration = configuration
        self.emit = emit
        listener = try TCPListener(host: configuration.host, port: configuration.port)
        let location = "http://\(configuration.host):\(listener.port)/"
        ssdp = try configuration.ssdpPort.map {
            try SSDPResponder(
                host: configuration.host, port: $0, searchTarget: "roku:ecp", location: location, usn: "uuid:roku:ecp:\(configuration.serial)"
            ) { from in emit(EmulatorEvent("ssdp_search", [("from", .string(from))])) }
        }
        state = Locked(State(power: configuration.powerMode, access: configuration.access))
        let accepting = Task { [listener, weak self] in
            while let stream = try? await listener.accept() {
                guard let self else { return }
                let id = self.state.withLock { s -> Int in
                    s.nextConnection += 1
                    s.connections[s.nextConnection] = stream
                    return s.nextConnection
                }
                let task = Task { await self.serve(stream, id: id) }
                self.tasks.withLock { $0.append(task) }
            }
        }
        tasks.withLock { $0.append(accepting) }
    }

    public func stop() async {
        state.withLock { $0.serving = false }
        listener.close()
        ssdp?.stop()
        for task in tasks.withLock({ $0 }) { task.cancel() }
        for stream in state.withLock({ Array($0.connections.values) }) { await stream.close() }
    }

    public func setAccess(_ access: NetworkAccess) { state.withLock { $0.access = access } }
    public func misbehave(_ m: Misbehaviour) { state.withLock { $0.misbehaviour = m } }

    /// Answers the next query (only) with garbage or a huge body: what a TV pushing a bad
    /// message is to a client that polls.
    /// Hangs up, unanswered, on the first text keypress after `characters` were typed.
    public func cutText(after characters: Int) { state.withLock { $0.cutTextAfter = characters } }

    public func misbehaveOnce(_ m: Misbehaviour) {
        state.withLock {
            $0.misbehaviour = m
            $0.misbehaveOnce = true
        }
    }

    /// Closes every connection and stops answering: the Roku went away.
    public func goAway() async {
        listener.close()
        for stream in state.withLock({ Array($0.connections.values) }) { await stream.close() }
    }

    private func serve(_ stream: SocketStream, id: Int) async {
        emit(EmulatorEvent("client_connected"))
        defer {
            _ = state.withLock { $0.connections.removeValue(forKey: id) }
            emit(EmulatorEvent("client_disconnected"))
        }
        while true {
            guard let request = try? await HTTPServerRequest.read(from: stream, maxBody: 4096, timeout: .seconds(120)) else { break }
            let misbehaviour = state.withLock { $0.misbehaviour }
            let cut = state.withLock { s -> Bool in
                guard let limit = s.cutTextAfter, request.target.contains("/keypress/Lit_"), s.text.count >= limit else { return false }
                s.cutTextAfter = nil
                return true
            }
            if cut {
                await stream.close()
                return
            }
            switch misbehaviour {
            case .close:
                await stream.close()
                return
            case .slow:
                try? await Task.sleep(for: .seconds(30))
            default: break
            }
            let (status, body, type) = answer(request.method, request.target, misbehaviour: misbehaviour)
            var headers = ["Server": "Roku/14.1.4 UPnP/1.0 Roku/14.1.4"]
            if let type { headers["Content-Type"] = type }
            guard (try? await request.respond(status: status, reason: Self.reason(status), headers: headers, body: body)) != nil else { break }
        }
        await stream.close()
    }

    static func reason(_ status: Int) -> String {
        switch status {
        case 200: return "OK"
        case 202: return "Accepted"
        case 400: return "Bad Request"
        case 401: return "Unauthorized"
        case 403: return "Forbidden"
        case 404: return "Not Found"
        default: return "Error"
        }
    }

    /// The answer to one request: status, body and content type.
    func answer(_ method: String, _ target: String, misbehaviour: Misbehaviour) -> (Int, [UInt8], String?) {
        let xml = "text/xml; charset=\"utf-8\""
        let path = target.split(separator: "?", maxSplits: 1).first.map(String.init) ?? target
        let access = state.withLock { $0.access }
        if access == .disabled { return (401, [], nil) }
        let queryAllowed = path == "/query/device-info" || path == "/query/active-app"
        if access == .limited && !queryAllowed {
            emit(EmulatorEvent("refused", [("path", .string(path)), ("mode", .string("limited"))]))
            return path.hasPrefix("/key")
                ? (403, [], nil) : (403, Array("ECP command not allowed in Limited mode.".utf8), "text/plain; charset=\"utf-8\"")
        }
        if method == "GET" {
            if misbehaviour == .garbage || misbehaviour == .huge {
                state.withLock { s in
                    if s.misbehaveOnce {
                        s.misbehaviour = .none
                        s.misbehaveOnce = false
                    }
                }
            }
            if misbehaviour == .garbage { return (200, Array("<device-info><serial-number>x</device".utf8), xml) }
            if misbehaviour == .huge { return (200, [UInt8](repeating: 0x20, count: 300 * 1024) + Array("<device-info/>".utf8), xml) }
            switch path {
            case "/query/device-info": return (200, Array(deviceInfo().utf8), xml)
            case "/query/active-app":
                let app = state.withLock { $0.activeApp }
                let inner =
                    app.map { "<app id=\"\(XMLTree.escape($0.id))\" type=\"appl\" version=\"1.0.0\">\(XMLTree.escape($0.name))</app>" }
                    ?? "<app>Roku</app>"
                return (200, Array("<?xml version=\"1.0\" encoding=\"UTF-8\" ?>\n<active-app>\(inner)</active-app>".utf8), xml)
            case "/query/apps":
                let list = Self.apps.map {
                    "<app id=\"\(XMLTree.escape($0.id))\" type=\"\($0.id.hasPrefix("tvinput") ? "tvin" : "appl")\" version=\"1.0.0\">\(XMLTree.escape($0.name))</app>"
                }.joined()
                return (200, Array("<apps>\(list)</apps>".utf8), xml)
            case "/query/media-player":
                guard let app = state.withLock({ $0.activeApp }), !app.id.hasPrefix("tvinput") else {
                    return (200, Array("<player error=\"false\" state=\"close\"/>".utf8), xml)
                }
                return (
                    200,
                    Array(
                        "<player error=\"false\" state=\"play\"><plugin id=\"\(app.id)\" name=\"\(XMLTree.escape(app.name))\"/><position>139051 ms</position><duration>5400000 ms</duration><is_live>false</is_live></player>"
                            .utf8), xml
                )
            case "/query/tv-channels":
                let list = Self.channels.map {
                    "<channel><number>\($0.number)</number><name>\($0.name)</name><type>air-digital</type><user-hidden>\($0.hidden)</user-hidden></channel>"
                }
                return (200, Array("<tv-channels>\(list.joined())</tv-channels>".utf8), xml)
            case "/query/tv-active-channel":
                guard state.withLock({ $0.activeApp?.id }) == "tvinput.dtv" else { return (200, Array("<tv-channel/>".utf8), xml) }
                return (
                    200,
                    Array(
                        "<tv-channel><channel><number>7.1</number><name>Photon News</name><type>air-digital</type><active-input>true</active-input><signal-strength>-50</signal-strength></channel></tv-channel>"
                            .utf8), xml
                )
            default: return (404, [], nil)
            }
        }
        guard method == "POST" else { return (405, [], nil) }
        let parts = path.split(separator: "/").map(String.init)
        guard parts.count >= 1 else { return (404, [], nil) }
        switch parts[0] {
        case "keypress", "keydown", "keyup":
            guard parts.count == 2, let key = parts[1].removingPercentEncoding, !key.isEmpty else { return (400, [], nil) }
            if key.hasPrefix("Lit_") || key.hasPrefix("LIT_") {
                let text = state.withLock { s -> String in
                    s.text += String(key.dropFirst(4))
                    return s.text
                }
                emit(EmulatorEvent("text", [("text", .string(text))]))
                return (200, [], nil)
            }
            state.withLock { s in
                s.text = ""
                switch key.lowercased() {
                case "power": s.power = s.power == "PowerOn" ? "DisplayOff" : "PowerOn"
                case "poweroff": s.power = "DisplayOff"
                case "poweron": s.power = "PowerOn"
                case "home": s.activeApp = nil
                default: break
                }
            }
            emit(EmulatorEvent("key", [("key", .string(key)), ("action", .string(parts[0]))]))
            return (200, [], nil)
        case "launch":
            guard parts.count == 2, let app = Self.apps.first(where: { $0.id == parts[1] }) else { return (404, [], nil) }
            state.withLock {
                $0.activeApp = app
                $0.text = ""
            }
            let query = target.split(separator: "?", maxSplits: 1).dropFirst().first.map(String.init) ?? ""
            emit(EmulatorEvent("launch", [("app", .string(app.id)), ("params", .string(query.removingPercentEncoding ?? query))]))
            if let input = Self.inputNames[app.id] { emit(EmulatorEvent("input", [("input", .string(input))])) }
            if app.id == "tvinput.dtv", let number = HTTPServerRequest.queryParameters(of: target)["ch"] {
                emit(EmulatorEvent("channel", [("number", .string(number))]))
            }
            return (200, [], nil)
        case "search":
            let keyword = HTTPServerRequest.queryParameters(of: target)["keyword"] ?? ""
            emit(EmulatorEvent("search", [("keyword", .string(keyword))]))
            return (200, [], nil)
        default:
            return (404, [], nil)
        }
    }

    func deviceInfo() -> String {
        let c = configuration
        let (power, access) = state.withLock { ($0.power, $0.access) }
        return """
            <?xml version="1.0" encoding="UTF-8" ?>
            <device-info>
              <udn>29280000-0000-1000-8000-\(c.serial.lowercased())</udn>
              <serial-number>\(c.serial)</serial-number>
              <vendor-name>Photon</vendor-name>
              <model-name>Emulated Roku TV</model-name>
              <model-number>7000X</model-number>
              <user-device-name>\(XMLTree.escape(c.name))</user-device-name>
              <software-version>14.1.4</software-version>
              <is-tv>true</is-tv>
              <is-stick>false</is-stick>
              <network-type>ethernet</network-type>
              <ethernet-mac>\(c.mac.lowercased())</ethernet-mac>
              <power-mode>\(power)</power-mode>
              <supports-wake-on-wlan>false</supports-wake-on-wlan>
              <ecp-setting-mode>\(access.rawValue)</ecp-setting-mode>
            </device-info>
            """
    }
}
