import Foundation
import Glibc
import PhotonCore
import PhotonKit
import PhotonNet
import PhotonStore

/// `photon doctor [TV|ADDRESS]`: a step-by-step diagnosis of why a TV does not answer,
/// each step with ✓ or ✗ and the fix. Brand-blind: the brand's own probe is its greeting,
/// and opening a session (no key sent) checks the pairing.
enum DoctorCommand {
    static func spec(_ registry: AdapterRegistry) -> CommandSpec {
        CommandSpec(
            ["doctor"], summary: "diagnose why a TV does not answer", arguments: "[TV|ADDRESS]", minimumArguments: 0, maximumArguments: 1,
            options: [
                OptionSpec("report", help: "print a redacted report to paste into a bug report"),
                OptionSpec("brand", type: .choice(registry.ids), help: "for an ADDRESS: check only this brand"),
            ],
            details: """
                Steps: 1 the store and its permissions; 2 the daemon and its socket; 3 the address
                (resolution, route, interface, local subnet, multicast); 4 mDNS; 5 the brand's ports;
                6 the TLS certificate against the stored pin; 7 the protocol's greeting; 8 whether
                the TV still accepts the pairing (no key is sent); 9 a MAC for Wake-on-LAN. Without
                TV, only steps 1 and 2. ✓ holds, ✗ failed (with the fix), ! worth knowing, – not
                applicable. Exit status: 0 when every step holds, else that of the first failed step
                (3 unreachable, 4 refused, 5 certificate). ADDRESS:PORT checks that port. Plain output is
                for you at this terminal and shows addresses; --report and --json, made to be pasted or
                collected, mask address host octets, MACs, the home directory and the user's name, and
                shorten pins; no secret is ever part of the output.
                """,
            examples: ["photon doctor living-room", "photon doctor 192.168.1.40 --report", "photon doctor --json"], run: run)
    }

    static func run(_ parsed: ParsedCommand, _ context: CLIContext) async throws -> Int32 {
        let target = parsed.arguments.first
        var report = DoctorReport(target: target ?? "this installation")
        report.steps.append(await storeStep(context))
        report.steps.append(await daemonStep(context))
        if let target {
            let device = try? await context.store.device(named: target)
            let brand =
                try device.map { try context.registry.adapter(id: $0.brand) } ?? parsed.value("brand").map { try context.registry.adapter(id: $0) }
            report.brand = brand?.id
            let typed = device == nil ? try Endpoint(parsing: target, defaultPort: 0) : nil
            let host = try device?.host ?? typed!.host
            let typedPort = typed.flatMap { $0.port == 0 ? nil : $0.port }
            let pairedAtHost =
                device == nil
                ? try? await context.store.devices().devices.first { $0.host == host && (typedPort == nil || $0.port == typedPort) } : nil
            var checks = DoctorChecks(
                context: context, host: host, device: device ?? pairedAtHost, adapters: brand.map { [$0] } ?? context.registry.adapters,
                typedPort: typedPort)
            report.steps += await checks.run()
        }
        if context.json {
            context.emit(report.json, text: nil)
        } else {
            context.terminal.write(report.text(redacted: parsed.flag("report")))
        }
        return report.exitCode
    }

    static func storeStep(_ context: CLIContext) async -> DoctorStep {
        let paths = context.store.paths
        let title = "store"
        var st = stat()
        guard lstat(paths.dataDirectory.path, &st) == 0 else {
            return .pass(1, title, "no store yet at \(paths.dataDirectory.path) (nothing paired)")
        }
        for (path, mode, kind) in [
            (paths.configDirectory.path, mode_t(0o700), "directory"), (paths.dataDirectory.path, 0o700, "directory"),
            (paths.secretsFile.path, 0o600, "file"),
        ] {
            var s = stat()
            guard lstat(path, &s) == 0 else { continue }
            if s.st_mode & S_IFMT == S_IFLNK {
                return .fail(
                    1, title, PhotonError(.storePermissions, "\(path) is a symbolic link", hint: "replace it with a real \(kind) of this user"))
            }
            if s.st_uid != geteuid() || s.st_mode & 0o077 != 0 {
                return .fail(
                    1, title,
                    PhotonError(
                        .storePermissions, "\(path) is open to others (mode \(String(s.st_mode & 0o777, radix: 8)))",
                        hint: "chmod \(String(mode, radix: 8)) \(path)"))
            }
        }
        let snapshot: (devices: DeviceFile, secrets: SecretFile)
        do {
            snapshot = try await context.store.snapshot()
        } catch {
            return .fail(1, title, PhotonError.wrap(error))
        }
        let count = snapshot.devices.devices.count
        let summary = "\(paths.dataDirectory.path) is private (0700), secrets 0600, \(count) paired TV\(count == 1 ? "" : "s")"
        // A damaged file is set aside (`devices.json.corrupt-<time>`) and the store starts
        // empty: say so, and what it left behind (newcomer #27).
        let setAside = [paths.dataDirectory, paths.configDirectory].flatMap { directory in
            ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).filter { $0.contains(".corrupt-") }.sorted()
        }
        let paired = Set(snapshot.devices.devices.map(\.id))
        let orphaned = snapshot.secrets.devices.keys.filter { !paired.contains($0) }.count
        guard setAside.isEmpty && orphaned == 0 else {
            var notes: [String] = []
            if !setAside.isEmpty {
                notes.append("damaged store file\(setAside.count == 1 ? "" : "s") set aside: \(setAside.joined(separator: ", "))")
            }
            if orphaned > 0 { notes.append("secrets of \(orphaned) TV\(orphaned == 1 ? "" : "s") no longer paired") }
            return .warn(
                1, title, "\(summary); \(notes.joined(separator: "; "))",
                fix: "pair those TVs again (`photon pair`); the set-aside files are the old state, kept for you to inspect or delete")
        }
        return .pass(1, title, summary)
    }

    static func daemonStep(_ context: CLIContext) async -> DoctorStep {
        let title = "daemon"
        var st = stat()
        guard lstat(context.store.paths.socketFile.path, &st) == 0 else {
            return .pass(2, title, "photon serve is not running (optional: commands connect directly)")
        }
        do {
            try context.store.checkServiceSocket()
        } catch {
            return .fail(2, title, PhotonError.wrap(error))
        }
        guard let client = try? await DaemonClient.connectIfRunning(store: context.store, timeout: .seconds(2)) else {
            return .warn(2, title, "a socket exists but no daemon answers on it", fix: "start `photon serve` again (it replaces a stale socket)")
        }
        await client.close()
        return .pass(2, title, "photon serve is running (pid \(client.daemonPID)); its socket and directory are private to this user")
    }
}
