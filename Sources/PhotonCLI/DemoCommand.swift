import AndroidTVEmulator
import Foundation
import PhotonEmulatorSupport
import PhotonCore
import PhotonStore
import SamsungTVEmulator

/// `photon demo`: a tour that needs no TV. It starts emulated Android and Samsung TVs
/// in-process on loopback and walks through pairing and control over real TLS, in a
/// throw-away home so the user's own store is never touched.
enum DemoCommand {
    static let spec = CommandSpec(
        ["demo"], summary: "a guided tour with emulated TVs (uses a temporary home)",
        details: """
            Starts an emulated Android TV and an emulated Samsung TV on 127.0.0.1, pairs with
            them (showing certificate fingerprints, the code the Android TV "shows", the Samsung
            "Allow" prompt), sends keys, text and app launches, reads status, and prints what
            each TV received. Everything happens over real TLS in a temporary home that is
            removed afterwards.
            """,
        examples: ["photon demo"], run: run)

    static func run(_ parsed: ParsedCommand, _ context: CLIContext) async throws -> Int32 {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("photon-demo-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: home) }
        let paths = StorePaths(home: home)
        let t = context.terminal
        let received = Locked<[String]>([])
        let codes = Locked<[String]>([])
        t.write("Photon \(PhotonCommandLine.version) demo: emulated TVs on loopback, a temporary home.\n\n")

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

        t.write("\n5. A Samsung TV: photon pair 127.0.0.1:<wss> --rest-port <rest> --trust <fingerprint>\n")
        let samsungReceived = Locked<[String]>([])
        var samsungConfiguration = EmulatedSamsungTV.Configuration()
        samsungConfiguration.port = 0
        samsungConfiguration.restPort = 0
        samsungConfiguration.acceptDelay = .milliseconds(500)
        let samsung = try await EmulatedSamsungTV.start(samsungConfiguration) { event in
            switch event.name {
            case "prompt": samsungReceived.withLock { $0.append("(the TV shows \"Allow Photon?\"; the demo accepts it)") }
            case "key": samsungReceived.withLock { $0.append("key \(event["key"]?.string ?? "?") \(event["cmd"]?.string ?? "")") }
            case "text": samsungReceived.withLock { $0.append("text \"\(event["text"]?.string ?? "")\"") }
            case "launch": samsungReceived.withLock { $0.append("launch \(event["app"]?.string ?? "")") }
            default: break
            }
        }
        defer { Task { await samsung.stop() } }
        let samsungPair = try await PhotonCommandLine.runParsed(
            ["pair", "127.0.0.1:\(samsung.port)", "--rest-port", String(samsung.restPort), "--trust", samsung.fingerprint.description,
             "--name", "bedroom"], context: sub)
        guard samsungPair == 0 else { return samsungPair }
        for arguments in [
            ["key", "bedroom", "home", "right", "select", "--delay", "0"], ["text", "bedroom", "news"],
            ["launch", "bedroom", "111299001912"],
        ] {
            let status = try await PhotonCommandLine.runParsed(arguments, context: sub)
            guard status == 0 else { return status }
        }
        try await Task.sleep(for: .milliseconds(150))
        t.write("   The Samsung TV received:\n")
        for line in samsungReceived.withLock({ $0 }) { t.write("     \(line)\n") }
        t.write("   Its token went straight into the secret store; it is never printed.\n")

        t.write("\nSecrets (client key, the TVs' pins, the Samsung token) were kept in \(paths.secretsFile.path) with mode 600.\n")
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
