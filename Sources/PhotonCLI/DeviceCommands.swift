import Foundation
import PhotonCore
import PhotonStore

/// `photon list`, `photon forget`, `photon rename`: the paired TVs in the store.
enum DeviceCommands {
    static let specs: [CommandSpec] = [
        CommandSpec(
            ["list"], summary: "list paired TVs",
            details: """
                While `photon serve` runs, a DAEMON column (and `daemon` in JSON) says how its connection to
                each TV is doing. A TV paired over a plain connection by consent (an old TV without TLS)
                shows "(unencrypted, by consent)" after its address (`unencrypted` in JSON).
                """,
            examples: ["photon list", "photon list --json | jq -r .nickname"], run: list),
        CommandSpec(
            ["forget"], summary: "remove a paired TV and its secrets", arguments: "TV", minimumArguments: 1,
            maximumArguments: 1,
            details: "TV is a nickname or local id. Its pin and token are deleted from the secret store.",
            examples: ["photon forget living-room"], run: forget),
        CommandSpec(
            ["rename"], summary: "give a paired TV a new nickname", arguments: "TV NICKNAME", minimumArguments: 2,
            maximumArguments: 2, examples: ["photon rename tv-aabbccddeeff living-room"], run: rename),
    ]

    static func json(_ device: DeviceRecord) -> JSONValue {
        .object([
            ("nickname", .string(device.nickname)),
            ("id", .string(device.id)),
            ("brand", .string(device.brand)),
            ("host", .string(device.host)),
            ("port", .int(Int(device.port))),
            ("ports", .object(device.ports.sorted { $0.key < $1.key }.map { ($0.key, .int(Int($0.value))) })),
            ("name", .optional(device.name)),
            ("model", .optional(device.model)),
            ("mac", .optional(device.mac)),
            ("otherMACs", .array((device.otherMACs ?? []).map { .string($0) })),
            ("unencrypted", .bool(device.unencrypted == true)),
            ("capabilities", .array(device.capabilities.map { .string($0) })),
            ("pairedAt", .string(ISO8601DateFormatter().string(from: device.pairedAt))),
        ])
    }

    static func list(_ parsed: ParsedCommand, _ context: CLIContext) async throws -> Int32 {
        let devices = try await context.store.devices().devices.sorted { $0.nickname < $1.nickname }
        let daemon = await daemonStates(context)
        if context.json {
            for device in devices {
                guard let state = daemon?[device.id], case .object(let fields) = json(device) else {
                    context.emit(json(device), text: nil)
                    continue
                }
                context.emit(.object(fields + [("daemon", .string(state))]), text: nil)
            }
            return 0
        }
        guard !devices.isEmpty else {
            context.note("No paired TVs yet. Pair one with `photon pair ADDRESS`.")
            return 0
        }
        let rows =
            [["NICKNAME", "BRAND", "ADDRESS", "NAME", "ID"] + (daemon == nil ? [] : ["DAEMON"])]
            + devices.map { device in
                [
                    Redaction.sanitize(device.nickname), device.brand,
                    device.endpoint.description + (device.unencrypted == true ? " (unencrypted, by consent)" : ""),
                    Redaction.sanitize(device.name ?? "-", limit: 40), device.id,
                ] + (daemon.map { [$0[device.id] ?? "idle"] } ?? [])
            }
        context.terminal.write(Table.render(rows))
        return 0
    }

    /// The daemon's connection state per TV id, or nil when no daemon runs (or it cannot
    /// be asked: `list` works from the store alone).
    static func daemonStates(_ context: CLIContext) async -> [String: String]? {
        guard let control = try? await context.control() else { return nil }
        return await control.connectionStates()
    }

    static func forget(_ parsed: ParsedCommand, _ context: CLIContext) async throws -> Int32 {
        let removed = try await context.store.forget(parsed.arguments[0])
        await (try? await context.control())?.storeChanged()
        context.emit(
            .object([("forgotten", .string(removed.id)), ("nickname", .string(removed.nickname))]),
            text: "Forgot \(Redaction.sanitize(removed.nickname)) (\(removed.id)) and its secrets.")
        return 0
    }

    static func rename(_ parsed: ParsedCommand, _ context: CLIContext) async throws -> Int32 {
        let renamed = try await context.store.rename(parsed.arguments[0], to: parsed.arguments[1])
        context.emit(json(renamed), text: "\(renamed.id) is now called \(Redaction.sanitize(renamed.nickname)).")
        return 0
    }
}

/// Plain column alignment for human output.
enum Table {
    static func render(_ rows: [[String]]) -> String {
        guard let columns = rows.map(\.count).max() else { return "" }
        var widths = [Int](repeating: 0, count: columns)
        for row in rows { for (i, cell) in row.enumerated() { widths[i] = max(widths[i], cell.count) } }
        return rows.map { row in
            row.enumerated().map { i, cell in
                i == row.count - 1 ? cell : cell.padding(toLength: widths[i] + 2, withPad: " ", startingAt: 0)
            }.joined()
        }.joined(separator: "\n") + "\n"
    }
}
