import Foundation
import LineTV
import PhotonArguments
import PhotonCore
import PhotonEmulatorSupport
import PhotonNet

/// An emulated LineTV: says HELLO, answers every command, and reports what it received
/// as events (`key`, `text`, `launch`), like every brand's emulator.
public struct LineTVEmulator: TVEmulator {
    public init() {}

    public var brand: String { "linetv" }
    public var summary: String { "a LineTV (the example brand): one text line per command" }
    public var options: [OptionSpec] {
        [
            OptionSpec("port", type: .listenPort, help: "the control port (default 4998; 0 picks a free one)"),
            OptionSpec("serial", type: .text, help: "the serial number it reports (default LT0001)"),
        ]
    }
    public var portOptions: [String: String] { ["port": "control"] }

    public func start(_ settings: EmulatorSettings, onEvent: @escaping @Sendable (EmulatorEvent) -> Void) async throws -> any RunningEmulator {
        let tv = try RunningLineTV(
            host: settings.host, port: settings.port("port") ?? 4998, serial: settings.text("serial") ?? "LT0001", emit: onEvent)
        onEvent(EmulatorEvent("ready", [("brand", .string(brand)), ("port", .int(Int(tv.port)))]))
        return tv
    }
}

final class RunningLineTV: RunningEmulator {
    let listener: TCPListener
    let serial: String
    let emit: @Sendable (EmulatorEvent) -> Void
    private let connections = Locked<[Int: SocketStream]>([:])
    private let accepting = Locked<Task<Void, Never>?>(nil)
    var port: UInt16 { listener.port }

    init(host: String, port: UInt16, serial: String, emit: @escaping @Sendable (EmulatorEvent) -> Void) throws {
        listener = try TCPListener(host: host, port: port)
        self.serial = serial
        self.emit = emit
        let task = Task { [listener, weak self] in
            var next = 0
            while let stream = try? await listener.accept() {
                next += 1
                let id = next
                self?.connections.withLock { $0[id] = stream }
                Task { await self?.serve(stream, id: id) }
            }
        }
        accepting.withLock { $0 = task }
    }

    private func serve(_ stream: SocketStream, id: Int) async {
        emit(EmulatorEvent("client_connected"))
        defer {
            _ = connections.withLock { $0.removeValue(forKey: id) }
            emit(EmulatorEvent("client_disconnected"))
        }
        do {
            try await stream.write(Array("HELLO LineTV \(serial)\n".utf8), timeout: .seconds(5))
            var buffer: [UInt8] = []
            while true {
                let chunk = try await stream.read(maxLength: 4096, timeout: nil)
                if chunk.isEmpty { break }
                buffer += chunk
                while let line = try LineTVWire.takeLine(&buffer) {
                    let (verb, argument) =
                        line.firstIndex(of: " ").map { (String(line[..<$0]), String(line[line.index(after: $0)...])) } ?? (line, "")
                    switch verb {
                    case "KEY": emit(EmulatorEvent("key", [("key", .string(argument))]))
                    case "TEXT": emit(EmulatorEvent("text", [("text", .string(argument))]))
                    case "LAUNCH": emit(EmulatorEvent("launch", [("app", .string(argument))]))
                    default:
                        try await stream.write(Array("ERR unknown command\n".utf8), timeout: .seconds(5))
                        continue
                    }
                    try await stream.write(Array("OK\n".utf8), timeout: .seconds(5))
                }
            }
        } catch {}
        await stream.close()
    }

    var ports: [String: UInt16] { ["control": port] }
    var certificateFingerprint: CertificateFingerprint? { nil }
    var announcement: EmulatorAnnouncement { EmulatorAnnouncement(serviceType: "_linetv._tcp", port: port, txt: ["serial": serial]) }
    var pairingCodeEvent: String? { nil }

    func stop() async {
        listener.close()
        accepting.withLock { $0 }?.cancel()
        await dropConnections()
    }

    func rotateCertificate() async throws { throw PhotonError.unsupported("a LineTV has no certificate") }
    func forgetClients() async {}
    func sendMalformedMessage() async { await broadcast([0xFF, 0xFE, 0x0A]) }
    func sendOversizeMessage() async { await broadcast([UInt8](repeating: 0x41, count: LineTVWire.maximumLine + 100)) }
    func dropConnections() async {
        for stream in connections.withLock({ Array($0.values) }) { await stream.close() }
    }

    private func broadcast(_ bytes: [UInt8]) async {
        for stream in connections.withLock({ Array($0.values) }) { try? await stream.write(bytes, timeout: .seconds(2)) }
    }
}
