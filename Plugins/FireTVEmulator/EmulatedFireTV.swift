import AndroidKeys
import FireTV
import Foundation
import PhotonCore
import PhotonCrypto
import PhotonEmulatorSupport
import PhotonNet

/// An emulated Fire TV: adbd's side of classic ADB over TCP. `CNXN`, then `AUTH` with a
/// random token checked against the keys it allowed, the public-key path with the
/// "Allow debugging?" answer given by `--accept`, then `OPEN shell:…` streams running the
/// commands Photon and the reference clients (adb, adb-shell) send. Reports what it
/// receives as events: `key` (the key code as `input keyevent` gets it), `text` (exactly
/// what `input text` types), `launch`, `power`, and `injection` if a command line ever
/// holds something a shell would run.
public final class EmulatedFireTV: Sendable {
    /// How the user answers "Allow USB debugging?".
    public enum Accept: String, Sendable { case auto, deny, timeout }
    /// What it does wrong, for client tests.
    public enum Misbehaviour: String, Sendable { case none, garbage, oversize, silent }

    public struct Configuration: Sendable {
        public var host = "127.0.0.1"
        /// 0 picks a free port.
        public var port: UInt16 = 5555
        public var serial = "G070VM1234567890"
        public var model = "AFTMM"
        /// The Wi-Fi MAC (`/sys/class/net/wlan0/address`); a stick has no Ethernet.
        public var mac = "02:00:00:46:54:01"
        public var accept = Accept.auto
        /// Wakefulness it starts in: Awake, Asleep, Dreaming.
        public var power = "Awake"
        /// Keeps allowed keys across restarts (nil: memory only).
        public var stateDirectory: URL?
        /// One debugging client at a time: a new connection evicts the previous one.
        public var singleClient = false
        public var misbehaviour = Misbehaviour.none
        public init() {}
    }

    struct Connection {
        let stream: SocketStream
        var authenticated = false
        var token: [UInt8] = []
        var checksums = false
    }

    struct State {
        var allowedKeys: Set<String>
        var power: String
        var foreground = "com.amazon.tv.launcher"
        var connections: [Int: Connection] = [:]
        var nextConnection = 0
        var nextStreamID: UInt32 = 100
        var serving = true
    }

    static let packages = [
        "com.amazon.tv.launcher", "com.netflix.ninja", "com.amazon.firetv.youtube", "com.amazon.firebat", "com.disney.disneyplus",
        "com.spotify.tv.android", "org.xbmc.kodi", "com.amazon.tv.settings.v2",
    ]

    public let configuration: Configuration
    let emit: @Sendable (EmulatorEvent) -> Void
    let listener: TCPListener
    private let state: Locked<State>
    private let tasks = Locked<[Task<Void, Never>]>([])
    public var port: UInt16 { listener.port }
    static let keysFile = "adb_keys"

    public static func start(_ configuration: Configuration, onEvent: @escaping @Sendable (EmulatorEvent) -> Void) throws -> EmulatedFireTV {
        let tv = try EmulatedFireTV(configuration: configuration, emit: onEvent)
        onEvent(
            EmulatorEvent(
                "ready",
                [
                    ("brand", .string("firetv")), ("host", .string(configuration.host)), ("port", .int(Int(tv.port))),
                    ("serial", .string(configuration.serial)), ("accept", .string(configuration.accept.rawValue)),
                ]))
        return tv
    }

    private init(configuration: Configuration, emit: @escaping @Sendable (EmulatorEvent) -> Void) throws {
        self.configuration = configuration
        self.emit = emit
        listener = try TCPListener(host: configuration.host, port: configuration.port)
        state = Locked(
            State(allowedKeys: EmulatorIssuedSecrets.load(Self.keysFile, in: configuration.stateDirectory), power: configuration.power))
        let accepting = Task { [listener, weak self] in
            while let stream = try? await listener.accept() {
                guard let self else { return }
                let (id, evicted) = self.state.withLock { s -> (Int, [SocketStream]) in
                    s.nextConnection += 1
                    var evicted: [SocketStream] = []
                    if self.configuration.singleClient {
                        evicted = s.connections.values.map(\.stream)
                        s.connections.removeAll()
                    }
                    s.connections[s.nextConnection] = Connection(stream: stream)
                    return (s.nextConnection, evicted)
                }
                for old in evicted {
                    // Fire OS's one-client rule: the older host is asked to authenticate again.
                    try? await old.write(
                        ADBMessage(.auth, ADBMessage.AuthType.token.rawValue, 0, try SecureRandom.bytes(20)).encoded(), timeout: .seconds(1))
                    self.emit(EmulatorEvent("client_evicted"))
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
        for task in tasks.withLock({ $0 }) { task.cancel() }
        for connection in state.withLock({ Array($0.connections.values) }) { await connection.stream.close() }
    }

    // MARK: the transport

    private func serve(_ stream: SocketStream, id: Int) async {
        emit(EmulatorEvent("client_connected"))
        var decoder = ADBMessageDecoder(maximumPayload: ADBMessage.maximumPayload)
        do {
            loop: while true {
                while let message = try decoder.next() {
                    guard try await handle(message, on: stream, id: id) else { break loop }
                }
                let bytes = try await stream.read(maxLength: 64 * 1024, timeout: nil)
                if bytes.isEmpty { break }
                decoder.append(bytes)
            }
        } catch {
            emit(EmulatorEvent("protocol_error", [("error", .string(String(describing: error)))]))
        }
        state.withLock { _ = $0.connections.removeValue(forKey: id) }
        await stream.close()
        emit(EmulatorEvent("client_disconnected"))
    }

    private func send(_ message: ADBMessage, on stream: SocketStream) async throws {
        try await stream.write(message.encoded(), timeout: .seconds(5))
    }

    private func banner() -> [UInt8] {
        Array("device::ro.product.name=\(configuration.model);ro.product.model=\(configuration.model);ro.product.device=photon;features=cmd\0".utf8)
    }

    /// Handles one message; false ends the connection.
    private func handle(_ message: ADBMessage, on stream: SocketStream, id: Int) async throws -> Bool {
        let authenticated = state.withLock { $0.connections[id]?.authenticated ?? false }
        switch message.command {
        case .connect:
            emit(EmulatorEvent("cnxn", [("banner", .string(message.text)), ("version", .int(Int(message.arg0)))]))
            state.withLock { $0.connections[id]?.checksums = message.arg0 < ADBMessage.versionSkipChecksum }
            try await challenge(stream, id: id)
        case .auth:
            switch ADBMessage.AuthType(rawValue: message.arg0) {
            case .signature?:
                let token = state.withLock { $0.connections[id]?.token ?? [] }
                let keys = state.withLock { $0.allowedKeys }
                let accepted = keys.contains { encoded in
                    guard let key = try? ADBPublicKey.decode(Array(encoded.utf8)),
                        let rsa = try? RSAKey.publicKey(modulus: key.modulus, exponent: Self.bytes(key.exponent))
                    else { return false }
                    return rsa.verifyPKCS1(signature: message.payload, digest: token, algorithm: .sha1)
                }
                if accepted {
                    emit(EmulatorEvent("auth", [("result", .string("signature accepted"))]))
                    try await connected(stream, id: id)
                } else {
                    emit(EmulatorEvent("auth", [("result", .string("signature unknown"))]))
                    try await challenge(stream, id: id)
                }
            case .publicKey?:
                let key: (modulus: [UInt8], exponent: UInt32, comment: String)
                do {
                    key = try ADBPublicKey.decode(message.payload)
                } catch {
                    emit(EmulatorEvent("auth", [("result", .string("bad public key"))]))
                    return false
                }
                emit(
                    EmulatorEvent(
                        "allow_prompt",
                        [
                            ("fingerprint", .string(ADBPublicKey.fingerprint(message.payload))), ("comment", .string(key.comment)),
                            ("answer", .string(configuration.accept.rawValue)),
                        ]))
                switch configuration.accept {
                case .auto:
                    let text = message.text
                    let keys = state.withLock { s -> Set<String> in
                        s.allowedKeys.insert(text)
                        return s.allowedKeys
                    }
                    try? EmulatorIssuedSecrets.save(keys, as: Self.keysFile, in: configuration.stateDirectory)
                    try await connected(stream, id: id)
                case .deny:
                    return false
                case .timeout:
                    // adbd keeps an unanswered (or declined) prompt's connection waiting.
                    break
                }
            default:
                throw PhotonError(.protocolViolation, "an AUTH of type \(message.arg0) from the host")
            }
        case .open where authenticated:
            try await open(message, on: stream)
        case .okay, .write, .close:
            break  // acknowledgements of what it sent, and the host's end of finished streams
        default:
            emit(EmulatorEvent("refused", [("command", .string(message.command.description))]))
            return false
        }
        return true
    }

    private func challenge(_ stream: SocketStream, id: Int) async throws {
        let token = try SecureRandom.bytes(20)
        state.withLock { $0.connections[id]?.token = token }
        try await send(ADBMessage(.auth, ADBMessage.AuthType.token.rawValue, 0, token), on: stream)
    }

    private func connected(_ stream: SocketStream, id: Int) async throws {
        state.withLock { $0.connections[id]?.authenticated = true }
        emit(EmulatorEvent("session_ready"))
        try await send(ADBMessage(.connect, ADBMessage.versionSkipChecksum, UInt32(ADBMessage.maximumPayload), banner()), on: stream)
        switch configuration.misbehaviour {
        case .none: break
        case .garbage: await sendMalformed(to: stream)
        case .oversize: await sendOversize(to: stream)
        case .silent: break
        }
    }

    // MARK: services

    private func open(_ message: ADBMessage, on stream: SocketStream) async throws {
        let service = message.text
        let local = state.withLock { s -> UInt32 in
            s.nextStreamID += 1
            return s.nextStreamID
        }
        guard service.hasPrefix("shell:") || service.hasPrefix("exec:") else {
            emit(EmulatorEvent("refused", [("service", .string(Redaction.sanitize(service, limit: 80)))]))
            try await send(ADBMessage(.close, 0, message.arg0), on: stream)
            return
        }
        let command = String(service.drop { $0 != ":" }.dropFirst())
        try await send(ADBMessage(.okay, local, message.arg0), on: stream)
        if configuration.misbehaviour == .silent { return }
        let output = run(command)
        if !output.isEmpty {
            for chunk in stride(from: 0, to: output.utf8.count, by: 4096) {
                let bytes = Array(Array(output.utf8)[chunk..<min(chunk + 4096, output.utf8.count)])
                try await send(ADBMessage(.write, local, message.arg0, bytes), on: stream)
            }
        }
        try await send(ADBMessage(.close, local, message.arg0), on: stream)
    }

    /// Runs a command line; returns what it prints.
    func run(_ line: String) -> String {
        emit(EmulatorEvent("shell", [("command", .string(line))]))
        let commands: [EmulatedShell.Command]
        do {
            commands = try EmulatedShell.parse(line)
        } catch {
            emit(EmulatorEvent("injection", [("command", .string(line)), ("why", .string(String(describing: error)))]))
            return "/system/bin/sh: syntax error: \(error)\n"
        }
        var output = ""
        var piped: String?
        for command in commands {
            let words = command.words
            var result: String
            if words.first == "grep" {
                // `grep -E PATTERN`: the lines holding PATTERN's first alternative's text.
                let pattern = words.last.map { $0.split(separator: "|").first.map(String.init) ?? $0 } ?? ""
                let needle = pattern.replacingOccurrences(of: "\\", with: "")
                result = (piped ?? "").split(separator: "\n").filter { $0.contains(needle) }.map { $0 + "\n" }.joined()
            } else {
                result = execute(words)
            }
            if command.pipesIntoNext {
                piped = result
            } else {
                output += result
                piped = nil
            }
        }
        return output
    }

    private func execute(_ words: [String]) -> String {
        guard let name = words.first else { return "" }
        let arguments = Array(words.dropFirst())
        switch (name, arguments.first) {
        case ("input", "keyevent"?):
            var codes = Array(arguments.dropFirst())
            let longPress = codes.first == "--longpress"
            if longPress { codes.removeFirst() }
            for code in codes {
                let name = code.hasPrefix("KEYCODE_") ? code : (Int32(code).map(AndroidKeyCodes.name(of:)) ?? "KEYCODE_" + code)
                emit(EmulatorEvent("key", [("key", .string(name)), ("long_press", .bool(longPress))]))
                switch name {
                case "KEYCODE_WAKEUP": setPower("Awake")
                case "KEYCODE_SLEEP": setPower("Asleep")
                case "KEYCODE_POWER": setPower(state.withLock { $0.power } == "Awake" ? "Asleep" : "Awake")
                case "KEYCODE_HOME": state.withLock { $0.foreground = "com.amazon.tv.launcher" }
                default: break
                }
            }
            return ""
        case ("input", "text"?):
            guard arguments.count == 2 else { return "usage: input text <string>\n" }
            emit(EmulatorEvent("text", [("text", .string(EmulatedShell.typed(arguments[1]))), ("argument", .string(arguments[1]))]))
            return ""
        case ("monkey", _):
            guard let p = arguments.firstIndex(of: "-p"), p + 1 < arguments.count else { return "** Error: no package\n" }
            let package = arguments[p + 1]
            guard Self.packages.contains(package) else { return "** No activities found to run, monkey aborted.\n" }
            state.withLock { $0.foreground = package }
            emit(EmulatorEvent("launch", [("app", .string(package))]))
            return "  bash arg: -p\n  bash arg: \(package)\nEvents injected: 1\n"
        case ("am", "start"?):
            guard let d = arguments.firstIndex(of: "-d"), d + 1 < arguments.count else { return "Error: no data URI\n" }
            emit(EmulatorEvent("launch", [("app", .string(arguments[d + 1]))]))
            return "Starting: Intent { act=android.intent.action.VIEW dat=\(arguments[d + 1]) }\n"
        case ("pm", "list"?):
            return Self.packages.map { "package:\($0)\n" }.joined()
        case ("getprop", let property?):
            switch property {
            case "ro.serialno": return configuration.serial + "\n"
            case "ro.product.model": return configuration.model + "\n"
            case "ro.product.manufacturer": return "Amazon\n"
            case "ro.build.version.release": return "9\n"
            default: return "\n"
            }
        case ("cat", let path?):
            if path == "/sys/class/net/wlan0/address" { return configuration.mac.lowercased() + "\n" }
            return "cat: \(path): No such file or directory\n"
        case ("dumpsys", "power"?):
            let power = state.withLock { $0.power }
            return "POWER MANAGER (dumpsys power)\nPower Manager State:\n  mWakefulness=\(power)\n  mWakefulnessChanging=false\n"
        case ("dumpsys", "window"?):
            let app = state.withLock { $0.foreground }
            return "WINDOW MANAGER WINDOWS (dumpsys window windows)\n  mCurrentFocus=Window{5e2a1b u0 \(app)/\(app).MainActivity}\n"
        case ("echo", _):
            return arguments.joined(separator: " ") + "\n"
        default:
            emit(EmulatorEvent("unknown_command", [("command", .string(words.joined(separator: " ")))]))
            return "/system/bin/sh: \(name): not found\n"
        }
    }

    private func setPower(_ power: String) {
        let changed = state.withLock { s -> Bool in
            defer { s.power = power }
            return s.power != power
        }
        if changed { emit(EmulatorEvent("power", [("state", .string(power))])) }
    }

    static func bytes(_ value: UInt32) -> [UInt8] {
        Array(withUnsafeBytes(of: value.bigEndian) { Array($0) }.drop { $0 == 0 })
    }

    // MARK: misbehaviour and conformance hooks

    func sendMalformed(to stream: SocketStream) async {
        try? await stream.write(Array("this is not an ADB message at all".utf8), timeout: .seconds(1))
    }

    func sendOversize(to stream: SocketStream) async {
        var header = ADBMessage(.write, 1, 1).encoded()
        let length = UInt32(ADBMessage.maximumPayload * 8)
        withUnsafeBytes(of: length.littleEndian) { header.replaceSubrange(12..<16, with: $0) }
        try? await stream.write(header, timeout: .seconds(1))
    }

    var streams: [SocketStream] { state.withLock { $0.connections.values.filter(\.authenticated).map(\.stream) } }

    public func forgetKeys() {
        state.withLock { $0.allowedKeys = [] }
        try? EmulatorIssuedSecrets.save([], as: Self.keysFile, in: configuration.stateDirectory)
    }

    public func dropAll() async {
        for stream in state.withLock({ $0.connections.values.map(\.stream) }) { stream.abort() }
    }
}
