import AndroidTVEmulator
import Foundation
import PhotonCore
import PhotonStore

/// `photon demo`: a tour that needs no TV. It starts an emulated Android TV in-process on
/// loopback and walks through pairing and control with the real protocol over TLS, in a
/// throw-away home so the user's own store is never touched.
enum DemoCommand {
    static let spec = CommandSpec(
        ["demo"], summary: "a guided tour with an emulated TV (uses a temporary home)",
        details: """
            Starts an emulated Android TV on 127.0.0.1, pairs with it (showing the certificate
            fingerprint and the code the TV "shows"), sends keys, text and an app link, reads
            its status, and prints what the TV received. Everything happens over real TLS in a
            temporary home that is removed afterwards.
            """,
        examples: ["photon demo"], run: run)

    static func run(_ parsed: ParsedCommand, _ context: CLIContext) async throws -> Int32 {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("photon-demo-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: home) }
        let paths = StorePaths(home: home)
        let t = context.terminal
        let received = Locked<[String]>([])
        let codes = Locked<[String]>([])
        t.write("Photon \(PhotonCommandLine.version) demo: an emulated Android TV on loopback, a temporary home.\n\n")

        var configuration = EmulatedAndroidTV.Configuration()
        configuration.remotePort = 0
        configuration.name = "Demo Living Room"
        let tv = try await EmulatedAndroidTV.start(configuration) { event in
            switch event.name {
            case "pairing_code": codes.withLock { $0.append(event["code"]?.string ?? "") }
            case "key":
                received.withLock { $0.append("key \(event["key"]?.string ?? "?") \(event["direction"]?.string ?? "")") }
            case "text": received.withLock { $0.append("text \"\(event["text"]?.string ?? "")\"") }
            case "launch": received.withLock { $0.append("launch \(event["app"]?.string ?? "")") }
            default: break
            }
        }
        defer { Task { await tv.stop() } }
        t.write("1. The TV listens on 127.0.0.1:\(tv.remotePort) (remote) and :\(tv.pairingPort) (pairing).\n")
        t.write("   Its certificate fingerprint: \(tv.fingerprint)\n\n")

        let sub = CLIContext(
            terminal: DemoTerminal(codes: codes, echo: t), paths: paths, store: Store(paths: paths), json: false,
            log: context.log, timeout: context.timeout, registry: context.registry)
        t.write("2. photon pair 127.0.0.1:\(tv.remotePort) --trust <fingerprint>   (the code is typed for you)\n")
        let pairStatus = try await PhotonCommandLine.runParsed(
            ["pair", "127.0.0.1:\(tv.remotePort)", "--pairing-port", String(tv.pairingPort), "--trust", tv.fingerprint.description,
             "--name", "living-room"], context: sub)
        guard pairStatus == 0 else { return pairStatus }
        let identity = try await sub.store.clientIdentity().clientIdentity.certificateInfo()
        t.write("   This installation's own certificate: \(identity.fingerprint)\n\n")

        t.write("3. photon key living-room home down down select; text; launch; volume up\n")
        for arguments in [
            ["key", "living-room", "home", "down", "down", "select", "--delay", "50"],
            ["key", "living-room", "select", "--long", "--hold", "300"],
            ["text", "living-room", "the expanse"],
            ["launch", "living-room", "https://www.youtube.com"],
            ["volume", "living-room", "up"],
        ] {
            let status = try await PhotonCommandLine.runParsed(arguments, context: sub)
            guard status == 0 else { return status }
        }
        try await Task.sleep(for: .milliseconds(150))
        t.write("   The TV received:\n")
        for line in received.withLock({ $0 }) { t.write("     \(line)\n") }

        t.write("\n4. photon status living-room\n")
        _ = try await PhotonCommandLine.runParsed(["status", "living-room"], context: sub)

        t.write("\nSecrets (client key, the TV's pin) were kept in \(paths.secretsFile.path) with mode 600.\n")
        t.write("Next: `photon pair ADDRESS` with a real TV, or `photon-emulator androidtv` to keep one running.\n")
        return 0
    }
}

/// Passes output through with indentation and types the code the emulated TV shows.
final class DemoTerminal: Terminal {
    let codes: Locked<[String]>
    let echo: any Terminal
    init(codes: Locked<[String]>, echo: any Terminal) {
        self.codes = codes
        self.echo = echo
    }
    func write(_ text: String) { echo.write("   " + text) }
    func writeError(_ text: String) { echo.write(text.split(separator: "\n", omittingEmptySubsequences: false).map { $0.isEmpty ? "" : "   " + $0 }.joined(separator: "\n")) }
    var isInteractive: Bool { false }
    var usesColor: Bool { false }
    func readLine() -> String? {
        for _ in 0..<500 {
            if let code = codes.withLock({ $0.last }) {
                echo.write("   (the TV shows \(code); typing it)\n")
                return code
            }
            usleep(10_000)
        }
        return nil
    }
}
