import Foundation
import PhotonCore
import PhotonStore

/// `photon demo`: a tour that needs no TV. It starts every registered brand's emulated TV
/// on loopback (`photon-emulator`, installed beside this program: the tool itself carries
/// no emulator code) and walks through pairing and control over the real protocols, in a
/// throw-away home so the user's own store is never touched.
enum DemoCommand {
    static let spec = CommandSpec(
        ["demo"], summary: "a guided tour with emulated TVs (uses a temporary home)",
        details: """
            Starts an emulated TV of every brand on 127.0.0.1, pairs with each (showing its
            certificate fingerprint, typing the code it "shows", or accepting its on-screen
            prompt), sends keys, text and app launches, reads status, and prints what each TV
            received. Everything happens over the real protocols in a temporary home that is
            removed afterwards.
            """,
        examples: ["photon demo"], run: run)

    /// Events that are the TV's own bookkeeping, not something it received.
    static let quietEvents: Set<String> = [
        "ready", "listening", "client_connected", "client_disconnected", "session_ready", "pairing_code", "published", "rest", "paired",
        // Protocol housekeeping (LG's handshake and subscriptions): not what the user sent.
        "hello", "register_received", "registered", "subscribe", "unsubscribe", "prompt",
    ]

    static func run(_ parsed: ParsedCommand, _ context: CLIContext) async throws -> Int32 {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("photon-demo-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: home) }
        let paths = StorePaths(home: home)
        let t = context.terminal
        t.write("Photon \(PhotonCommandLine.version) demo: emulated TVs on loopback, a temporary home.\n")
        let emulatorPath = try DemoTVProcess.executable()
        let brands = try DemoTVProcess.brands(emulatorPath)
        var step = 1
        for (index, adapter) in context.registry.adapters.filter({ brands.contains($0.id) }).enumerated() {
            let status = try await tour(adapter, emulator: emulatorPath, nickname: "tv-\(index + 1)", step: &step, paths: paths, context: context)
            guard status == 0 else { return status }
        }
        t.write("\nSecrets (client key, the TVs' pins and tokens) were kept with mode 600 in a temporary home, removed now.\n")
        t.write("Next: `photon pair ADDRESS` with a real TV, or `photon-emulator BRAND` to keep an emulated one running.\n")
        return 0
    }

    static func tour(
        _ adapter: any TVAdapter, emulator path: String, nickname: String, step: inout Int, paths: StorePaths, context: CLIContext
    ) async throws -> Int32 {
        let received = Locked<[String]>([])
        let codes = Locked<[String]>([])
        let tv = try await DemoTVProcess.start(path, brand: adapter.id, name: "Demo \(adapter.displayName)") { event in
            guard let name = event["event"]?.stringValue else { return }
            // The code an emulated TV shows while pairing, typed for the user.
            if let code = event["code"]?.stringValue { codes.withLock { $0.append(code) } }
            guard !quietEvents.contains(name) else { return }
            guard case .object(let all) = event else { return }
            let fields = all.filter { $0.0 != "event" && $0.0 != "t" }.map { $0.1.stringValue.map { "\"\($0)\"" } ?? $0.1.encoded }
            let line = ([name] + fields).joined(separator: " ")
            received.withLock { lines in
                // A TV that reports text as it grows (one character at a time) shows it once.
                if name == "text", lines.last?.hasPrefix("text ") == true { lines[lines.count - 1] = line } else { lines.append(line) }
            }
        }
        do {
            let status = try await show(
                tv, adapter, nickname: nickname, step: &step, paths: paths, context: context, received: received, codes: codes)
            await tv.stop()
            return status
        } catch {
            await tv.stop()
            throw error
        }
    }

    /// The tour of one running emulated TV: pair, then each demo command.
    private static func show(
        _ tv: DemoTVProcess, _ adapter: any TVAdapter, nickname: String, step: inout Int, paths: StorePaths, context: CLIContext,
        received: Locked<[String]>, codes: Locked<[String]>
    ) async throws -> Int32 {
        let t = context.terminal
        let ports = tv.ports.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        t.write("\n\(step). An emulated \(adapter.displayName) listens on 127.0.0.1 (\(ports)).\n")
        if let fingerprint = tv.fingerprint {
            switch adapter.descriptor.pairing.pinnedKey {
            case .tlsCertificate: t.write("   Its certificate fingerprint: \(fingerprint)\n")
            case .protocolKey(let name): t.write("   The fingerprint of \(name): \(fingerprint)\n")
            }
        }
        step += 1

        var pair = [
            "pair", "127.0.0.1:\(tv.ports[adapter.descriptor.ports.mainName] ?? adapter.descriptor.ports.main)", "--brand", adapter.id, "--name",
            nickname,
        ]
        for option in adapter.descriptor.pairing.options {
            if case .port(let name) = option.value, let port = tv.ports[name] { pair += ["--\(option.name)", String(port)] }
        }
        if let fingerprint = tv.fingerprint { pair += ["--trust", fingerprint] }
        // A brand that pairs without any TLS (ADB) asks for consent to that first.
        if tv.fingerprint == nil, adapter.descriptor.pairing.style != .none { pair.append("--allow-unencrypted") }
        let how: String
        switch adapter.descriptor.pairing.style {
        case .codeOnTV: how = "the code it shows is typed for you"
        case .acceptOnTV: how = "the emulated user accepts the prompt on the TV"
        case .none: how = "nothing to exchange"
        }
        t.write("\n\(step). photon \(pair.joined(separator: " "))   (\(how))\n")
        step += 1
        let sub = CLIContext(
            terminal: DemoTerminal(codes: codes, echo: t), paths: paths, store: Store(paths: paths), json: false,
            log: context.log, timeout: context.timeout, registry: context.registry, direct: true)
        let paired = try await PhotonCommandLine.runParsed(pair, context: sub)
        guard paired == 0 else { return paired }

        var commands: [[String]] = [["key", nickname, "home", "down", "down", "select", "--delay", "50"]]
        if adapter.capabilities.contains(.longPress) { commands.append(["key", nickname, "select", "--long", "--hold", "300"]) }
        if adapter.capabilities.contains(.text) { commands.append(["text", nickname, "the expanse"]) }
        if adapter.capabilities.contains(.appLaunch), !adapter.descriptor.help.exampleApp.isEmpty {
            commands.append(["launch", nickname, adapter.descriptor.help.exampleApp])
        }
        commands.append(["volume", nickname, "up"])
        t.write(
            "\n\(step). "
                + commands.map {
                    "photon " + $0.filter { $0 != "--delay" && $0 != "50" }.map { $0.contains(" ") ? "\"\($0)\"" : $0 }.joined(separator: " ")
                }.joined(separator: "; ") + "\n")
        step += 1
        for arguments in commands {
            let status = try await PhotonCommandLine.runParsed(arguments, context: sub)
            guard status == 0 else { return status }
        }
        try await Task.sleep(for: .milliseconds(150))
        t.write("   The TV received:\n")
        for line in received.withLock({ $0 }) { t.write("     \(line)\n") }
        if [Capability.powerState, .volumeState, .currentApp].contains(where: adapter.capabilities.contains) {
            t.write("\n\(step). photon status \(nickname)\n")
            step += 1
            _ = try await PhotonCommandLine.runParsed(["status", nickname], context: sub)
        }
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
    func writeError(_ text: String) {
        echo.write(text.split(separator: "\n", omittingEmptySubsequences: false).map { $0.isEmpty ? "" : "   " + $0 }.joined(separator: "\n"))
    }
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
