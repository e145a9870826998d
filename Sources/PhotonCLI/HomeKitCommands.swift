import Foundation
import PhotonCore
import PhotonHAP
import PhotonKit
import PhotonStore

/// `photon homekit show|revoke|reset TV`: each paired TV's HomeKit accessory (served by
/// `photon serve --homekit`). These edit the accessory file; a running daemon reads it
/// again within a second, so a revoked controller or a reset accessory is cut off at once.
enum HomeKitCommands {
    static var specs: [CommandSpec] { [show, revoke, reset, remap] }

    static let remap = CommandSpec(
        ["homekit", "remap"], summary: "send another key for one of Control Center's keys on a TV (e.g. information → home)",
        arguments: "TV HOMEKIT-KEY [KEY]", minimumArguments: 2, maximumArguments: 3,
        details: """
            Control Center's keys: rewind, fast-forward, next, previous, up, down, left, right, select, back, exit, play-pause,             information. Without KEY, the key sends its default again. KEY is one of `photon key`'s names that a HomeKit             controller may send (navigation, media, volume, power, home, menu, settings, info, guide, input, captions, channel keys).
            """,
        examples: ["photon homekit remap living-room information home", "photon homekit remap living-room information"], run: runRemap)

    static let show = CommandSpec(
        ["homekit", "show"], summary: "show a TV's HomeKit setup code, its QR code and the paired controllers", arguments: "TV",
        minimumArguments: 1, maximumArguments: 1,
        details: """
            In the Home app: Add Accessory, then scan the QR code or type the setup code. The code pairs the first \
            controller only; after that, the Home app shares the TV with the home's other members itself. The code and \
            the accessory's keys are secrets (kept 0600, never logged).
            """,
        examples: ["photon homekit show living-room", "photon homekit show living-room --json"], run: runShow)

    static let revoke = CommandSpec(
        ["homekit", "revoke"], summary: "remove a controller's HomeKit pairing with a TV (its sessions end at once)",
        arguments: "TV CONTROLLER", minimumArguments: 2, maximumArguments: 2,
        examples: ["photon homekit revoke living-room 3F2504E0-4F89-11D3-9A0C-0305E82C3301"], run: runRevoke)

    static let reset = CommandSpec(
        ["homekit", "reset"], summary: "give a TV's accessory a new id, keys and setup code; every pairing is gone", arguments: "TV",
        minimumArguments: 1, maximumArguments: 1, examples: ["photon homekit reset living-room"], run: runReset)

    static func runShow(_ parsed: ParsedCommand, _ context: CLIContext) async throws -> Int32 {
        let device = try await context.store.device(named: parsed.arguments[0])
        let record = try await context.store.homeKitAccessory(for: device.id)
        let identity = record.identity
        let controllers = identity.pairings.map { pairing -> JSONValue in
            .object([("id", .string(pairing.id)), ("admin", .bool(pairing.isAdmin))])
        }
        let json: JSONValue = .object([
            ("tv", .string(device.nickname)), ("port", record.port == 0 ? .null : .int(Int(record.port))),
            ("setupCode", .string(identity.setupCode.formatted)), ("setupURI", .string(identity.setupURI)),
            ("deviceID", .string(identity.deviceID)), ("paired", .bool(identity.isPaired)), ("controllers", .array(controllers)),
            ("keyRemap", .object((record.keyRemap ?? [:]).sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) })),
        ])
        var text = "\(device.nickname) as a HomeKit accessory\n"
        text += "  setup code: \(identity.setupCode.formatted)\n  setup URI:  \(identity.setupURI)\n"
        text += "  device id:  \(identity.deviceID)\n"
        text += "  port:       \(record.port == 0 ? "chosen when `photon serve --homekit` first runs" : String(record.port))\n"
        for (key, target) in (record.keyRemap ?? [:]).sorted(by: { $0.key < $1.key }) { text += "  remap:      \(key) → \(target)\n" }
        if identity.isPaired {
            text += "  paired with:\n" + identity.pairings.map { "    \($0.id)\($0.isAdmin ? " (admin)" : "")\n" }.joined()
        } else {
            text += "  not paired: in the Home app, Add Accessory, then scan this code or type the setup code\n"
            if context.terminal.isInteractive && !context.json, let qr = QRCode(identity.setupURI)?.terminalText { text += qr }
        }
        context.emit(json, text: text)
        return 0
    }

    static func runRemap(_ parsed: ParsedCommand, _ context: CLIContext) async throws -> Int32 {
        let device = try await context.store.device(named: parsed.arguments[0])
        let name = parsed.arguments[1].lowercased()
        let names = HomeKitRemoteKeys.all.map(\.name)
        guard names.contains(name) else {
            throw PhotonError(
                .usage, "'\(Redaction.sanitize(name))' is not one of Control Center's keys", hint: "one of: \(names.joined(separator: ", "))")
        }
        let target = parsed.arguments.count > 2 ? parsed.arguments[2].lowercased() : nil
        if let target {
            let allowed = RemoteKey.allCases.filter { CommandRouter.homekitMaySend(.key(.key($0), .press)) }
            guard let key = RemoteKey(rawValue: target), allowed.contains(key) else {
                throw PhotonError(
                    .usage, "'\(Redaction.sanitize(target))' is not a key a HomeKit controller may send",
                    hint: "one of: \(allowed.map(\.rawValue).joined(separator: ", "))")
            }
        }
        let record = try await context.store.updateHomeKitAccessory(for: device.id) { record in
            var remap = record.keyRemap ?? [:]
            remap[name] = target
            record.keyRemap = remap.isEmpty ? nil : remap
        }
        context.emit(
            .object([
                ("tv", .string(device.nickname)),
                ("remap", .object((record.keyRemap ?? [:]).sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) })),
            ]),
            text: target.map { "\(device.nickname): Control Center's \(name) now sends \($0)." }
                ?? "\(device.nickname): \(name) sends its default key again.")
        return 0
    }

    static func runRevoke(_ parsed: ParsedCommand, _ context: CLIContext) async throws -> Int32 {
        let device = try await context.store.device(named: parsed.arguments[0])
        let controller = parsed.arguments[1]
        guard try await context.store.revokeHomeKitController(controller, for: device.id) else {
            throw PhotonError(
                .notFound, "no controller '\(Redaction.sanitize(controller))' is paired with \(device.nickname)",
                hint: "see `photon homekit show \(device.nickname)`")
        }
        context.emit(
            .object([("revoked", .string(controller)), ("tv", .string(device.nickname))]),
            text: "Removed \(controller) from \(device.nickname); a running daemon cut its sessions.")
        return 0
    }

    static func runReset(_ parsed: ParsedCommand, _ context: CLIContext) async throws -> Int32 {
        let device = try await context.store.device(named: parsed.arguments[0])
        let record = try await context.store.resetHomeKitAccessory(for: device.id)
        context.emit(
            .object([
                ("tv", .string(device.nickname)), ("deviceID", .string(record.identity.deviceID)),
                ("setupCode", .string(record.identity.setupCode.formatted)),
            ]),
            text:
                "\(device.nickname)'s accessory is new: every pairing is gone. Remove the old one from the Home app, then pair again with \(record.identity.setupCode.formatted).\n"
        )
        return 0
    }
}
