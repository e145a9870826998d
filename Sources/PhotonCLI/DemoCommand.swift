import Foundation
import PhotonCore
import PhotonStore

/// `photon demo`: a tour that needs no TV. It works in a throw-away home so it never
/// touches the user's own store, and shows only what this build really does.
enum DemoCommand {
    static let spec = CommandSpec(
        ["demo"], summary: "a guided tour that needs no TV (uses a temporary home)",
        details: """
            Shows what Photon does on this machine without touching your own store: makes a
            client identity in a temporary home, shows where secrets live and with which
            permissions, and lists the brand adapters in this build. Emulated TVs join the
            demo as their adapters land.
            """,
        examples: ["photon demo"], run: run)

    static func run(_ parsed: ParsedCommand, _ context: CLIContext) async throws -> Int32 {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("photon-demo-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: home) }
        let paths = StorePaths(home: home)
        let store = Store(paths: paths)
        let t = context.terminal
        t.write("Photon \(PhotonCommandLine.version) demo (temporary home \(home.path), removed afterwards)\n\n")

        t.write("1. Client identity: made on first use, never shipped.\n")
        let start = ContinuousClock.now
        let identity = try await store.clientIdentity()
        let elapsed = ContinuousClock.now - start
        let info = try identity.clientIdentity.certificateInfo()
        t.write("   RSA-2048 key and self-signed certificate made in \(Int(elapsed.seconds * 1000)) ms\n")
        t.write("   fingerprint \(info.fingerprint)\n")
        t.write("   subject     \(info.subject)\n\n")

        t.write("2. Where things are kept (files 0600, directories 0700):\n")
        for url in [paths.configDirectory, paths.dataDirectory, paths.secretsFile] {
            let attributes = try? FileManager.default.attributesOfItem(atPath: url.path)
            let mode = (attributes?[.posixPermissions] as? NSNumber).map { String($0.intValue, radix: 8) } ?? "?"
            t.write("   \(mode)  \(url.path)\n")
        }
        t.write("   devices.json holds names and addresses; secrets.json holds keys, pins and tokens.\n\n")

        t.write("3. Brand adapters in this build: ")
        if context.registry.adapters.isEmpty {
            t.write("none yet.\n   Android TV and Samsung adapters, with emulated TVs to pair with, come next;\n")
            t.write("   until then `photon pair`, `photon key` and friends exit 6 (unsupported).\n\n")
        } else {
            t.write(context.registry.adapters.map(\.displayName).joined(separator: ", ") + "\n\n")
        }
        t.write("Next: `photon identity show` makes your own identity; `photon --help` lists every command.\n")
        return 0
    }
}
