import Foundation
import PhotonCore
import PhotonKit
import PhotonStore

/// `photon web pair|clients|revoke|show`: the companion devices of the daemon's HTTP
/// door (`photon serve --http`). These edit the client file; a running door re-reads it
/// within half a second, so a revoked client is cut off at once.
enum WebCommands {
    static var specs: [CommandSpec] { [pair, clients, revoke, show] }

    static let pair = CommandSpec(
        ["web", "pair"], summary: "show a one-time code that pairs a phone or script with the HTTP door", arguments: "",
        minimumArguments: 0, maximumArguments: 0,
        options: [OptionSpec("name", value: "NAME", help: "the name the device gets (else the one it gives)")],
        details: """
            The code is valid for 5 minutes and once; five wrong codes lock pairing until the next `photon web pair`. \
            On a terminal the door's URL is also drawn as a QR code (with the code in the URL's fragment, which is never \
            sent over the network). Scripts pair with POST /api/v1/pair {"code","name"} and get {"token"}.
            """,
        examples: ["photon web pair", "photon web pair --name kitchen-phone", "photon web pair --json"], run: runPair)

    static let clients = CommandSpec(
        ["web", "clients"], summary: "list the devices paired with the HTTP door", arguments: "", minimumArguments: 0,
        maximumArguments: 0, examples: ["photon web clients", "photon web clients --json"], run: runClients)

    static let revoke = CommandSpec(
        ["web", "revoke"], summary: "end a paired device's access at once (its open connections too)", arguments: "NAME",
        minimumArguments: 1, maximumArguments: 1, examples: ["photon web revoke kitchen-phone"], run: runRevoke)

    static let show = CommandSpec(
        ["web", "show"], summary: "show the HTTP door's URL and its certificate's fingerprint", arguments: "", minimumArguments: 0,
        maximumArguments: 0, examples: ["photon web show"], run: runShow)

    static func runPair(_ parsed: ParsedCommand, _ context: CLIContext) async throws -> Int32 {
        let code = try await context.store.startWebPairing(name: parsed.value("name"))
        let door = WebDoorFile.read(context.store.paths)
        let expires = Date().addingTimeInterval(WebPairing.lifetime)
        var fields: [(String, JSONValue)] = [("code", .string(code)), ("expiresAt", .double(expires.timeIntervalSince1970.rounded()))]
        if let door { fields.append(("url", .string(door.url))) }
        if let fingerprint = door?.fingerprint { fields.append(("fingerprint", .string(fingerprint))) }
        // A door on loopback is reachable from this machine only: no phone can open it.
        let loopbackOnly = door.map { Self.isLoopback(URL(string: $0.url)?.host ?? "") } ?? false
        if door != nil { fields.append(("reachableFromOtherDevices", .bool(!loopbackOnly))) }
        var text = "Pairing code: \(code)  (valid 5 minutes, once)\n"
        if let door, loopbackOnly {
            text += "Open \(door.url) in a browser on this machine and enter the code.\n"
            text += "The door listens on this machine only, so a phone cannot open it: to pair a phone, serve it on the network\n"
            text += "  (photon serve --http 0.0.0.0:PORT, HTTPS with this installation's certificate), then run photon web pair again.\n"
        } else if let door {
            text += "Open \(door.url) on the phone and enter the code.\n"
            if let fingerprint = door.fingerprint {
                text += "The page's certificate is self-signed; its SHA-256 fingerprint is\n  \(fingerprint)\n"
            }
            if context.terminal.isInteractive && !context.json, let qr = QRCode(door.url + "#code=" + code)?.terminalText {
                text += qr
            }
        } else {
            text += "No daemon serves HTTP for this home yet: start `photon serve --http PORT`, then open its URL and enter the code.\n"
        }
        context.emit(.object(fields), text: text)
        return 0
    }

    /// Whether `host` (from the door's URL) is a loopback address or name.
    static func isLoopback(_ host: String) -> Bool {
        let bare = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        return bare.hasPrefix("127.") || bare == "::1" || bare == "localhost"
    }

    static func runClients(_ parsed: ParsedCommand, _ context: CLIContext) async throws -> Int32 {
        let file = try await context.store.webClients()
        let formatter = ISO8601DateFormatter()
        let rows = file.clients.sorted { $0.created < $1.created }
        var text = rows.isEmpty ? "No devices are paired with the HTTP door (photon web pair).\n" : ""
        for client in rows {
            text +=
                "\(client.name)\tpaired \(formatter.string(from: client.created))\tlast seen \(client.lastSeen.map(formatter.string(from:)) ?? "never")\n"
        }
        if let pairing = file.pairing {
            text += pairing.isLocked ? "Pairing is locked after wrong codes (photon web pair opens it again).\n" : ""
        }
        let json: JSONValue = .object([
            (
                "clients",
                .array(
                    rows.map { client in
                        .object([
                            ("name", .string(client.name)), ("created", .string(formatter.string(from: client.created))),
                            ("lastSeen", client.lastSeen.map { .string(formatter.string(from: $0)) } ?? .null),
                        ])
                    })
            ), ("pairingLocked", .bool(file.pairing?.isLocked ?? false)),
        ])
        context.emit(json, text: text)
        return 0
    }

    static func runRevoke(_ parsed: ParsedCommand, _ context: CLIContext) async throws -> Int32 {
        let name = parsed.arguments[0]
        guard try await context.store.revokeWebClient(named: name) else {
            throw PhotonError(.notFound, "no web client is named '\(Redaction.sanitize(name))'", hint: "see `photon web clients`")
        }
        context.emit(.object([("revoked", .string(name))]), text: "Revoked \(name): its token no longer works, and a running door cut it off.")
        return 0
    }

    static func runShow(_ parsed: ParsedCommand, _ context: CLIContext) async throws -> Int32 {
        guard let door = WebDoorFile.read(context.store.paths) else {
            throw PhotonError(.unreachable, "no daemon serves HTTP for this home", hint: "start `photon serve --http PORT`")
        }
        var text = "URL: \(door.url)\n"
        if let fingerprint = door.fingerprint { text += "Certificate SHA-256: \(fingerprint)\n" }
        context.emit(
            .object([("url", .string(door.url)), ("fingerprint", door.fingerprint.map(JSONValue.string) ?? .null)]), text: text)
        return 0
    }
}

/// What a daemon serving HTTP leaves in the runtime directory (`web.json`) for `photon web`:
/// its URL and, for HTTPS, the certificate's fingerprint. Removed when it stops.
struct WebDoorFile: Codable {
    var url: String
    var fingerprint: String?
    var pid: Int32

    static func read(_ paths: StorePaths) -> WebDoorFile? {
        guard let data = try? Data(contentsOf: paths.webDoorFile), let file = try? JSONDecoder().decode(WebDoorFile.self, from: data),
            kill(file.pid, 0) == 0
        else { return nil }
        return file
    }

    func write(_ paths: StorePaths) throws {
        let data = try JSONEncoder().encode(self)
        let temporary = paths.webDoorFile.appendingPathExtension("tmp")
        guard FileManager.default.createFile(atPath: temporary.path, contents: data, attributes: [.posixPermissions: 0o600]) else {
            throw PhotonError(.storeIO, "cannot write \(temporary.path)")
        }
        guard rename(temporary.path, paths.webDoorFile.path) == 0 else { throw PhotonError(.storeIO, "cannot write \(paths.webDoorFile.path)") }
    }

    static func remove(_ paths: StorePaths) { unlink(paths.webDoorFile.path) }
}
