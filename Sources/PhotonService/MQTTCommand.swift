import Foundation
import PhotonCore
import PhotonKit

/// A command that arrived over MQTT, as router envelopes will carry it. On Photon's JSON
/// topic (`photon/<site>/<tv>/command`) the sender gives the envelope: `commandId` (a
/// UUID), `issuedAt` and `expiresAt` (Unix seconds), and one command as the daemon's API
/// takes it (`key`, `text`, `launch`, `volume`) or `power` (`on`/`off`) or `wake`. Home
/// Assistant's entity topics (`power/set`, `volume/set`, `source/set`, `input/set`,
/// `text/set`, `notify/set`, `screen/set`, `key/set`) carry bare values: those get a fresh id and five seconds to live from their
/// arrival.
public struct MQTTCommand: Sendable {
    public var id: UUID
    public var issuedAt: Date
    public var expiresAt: Date
    public var commands: [RemoteCommand]
    /// Send Wake-on-LAN first (power on).
    public var wake = false

    static let defaultLifetime: TimeInterval = 5

    public static func parse(name: String, payload: String, apps: [TVApp], now: Date) throws -> MQTTCommand {
        var command = MQTTCommand(id: UUID(), issuedAt: now, expiresAt: now.addingTimeInterval(defaultLifetime), commands: [])
        let value = payload.trimmingCharacters(in: .whitespacesAndNewlines)
        switch name {
        case "command":
            let json: JSONValue
            do {
                json = try JSONValue.parse(payload)
            } catch let error as JSONParseError {
                throw PhotonError(error)
            }
            guard json.isObject else { throw PhotonError(.usage, "a command is a JSON object") }
            guard let id = json["commandId"]?.stringValue.flatMap(UUID.init(uuidString:)) else {
                throw PhotonError(.usage, "\"commandId\" is required: a UUID", hint: "a redelivered message is recognised by it")
            }
            command.id = id
            // Both times are required: without them a copy replayed after the id is
            // forgotten would look new.
            guard let issued = json["issuedAt"]?.doubleValue, let expires = json["expiresAt"]?.doubleValue, issued.isFinite, expires.isFinite else {
                throw PhotonError(
                    .usage, "\"issuedAt\" and \"expiresAt\" (Unix seconds) are required on the command topic",
                    hint: "a command without them could be replayed; Home Assistant's entity topics (…/set) need none")
            }
            command.issuedAt = Date(timeIntervalSince1970: issued)
            command.expiresAt = Date(timeIntervalSince1970: expires)
            if let power = json["power"]?.stringValue {
                try applyPower(power, &command)
            } else if json["wake"]?.boolValue == true {
                command.wake = true
                command.commands = [.key(.key(.powerOn), .press)]
            } else {
                command.commands = [try ServiceProtocol.command(from: json)]
            }
        case "power":
            try applyPower(value, &command)
        case "source":
            // The select's options are the TV's app names; the launch takes the app's id.
            guard let app = apps.first(where: { $0.name == value }) ?? apps.first(where: { $0.id == value }) else {
                throw PhotonError(.notFound, "no app '\(Redaction.sanitize(value, limit: 64))' on this TV")
            }
            command.commands = [.launch(app.id)]
        case let topic where CommandCatalog.entry(homeAssistantTopic: topic) != nil:
            // Every other entity topic carries the bare argument of its catalog command,
            // read by the same grammar and limits as every other door. Free text is kept
            // as sent; a word is read without the spaces or line end around it.
            if let entry = CommandCatalog.entry(homeAssistantTopic: topic) {
                command.commands = [try RemoteCommand(verb: entry.name, argument: entry.takesFreeText ? payload : value)]
            }
        default:
            throw PhotonError(.usage, "no command '\(Redaction.sanitize(name, limit: 32))'")
        }
        return command
    }

    /// The `commandId` a refused JSON command carried, as sent (printable, at most 64
    /// characters), so the refusal can name it even when it is not a UUID or the rest of
    /// the command did not parse.
    public static func sentID(in payload: String) -> String? {
        guard payload.utf8.count <= 64 * 1024, let json = try? JSONValue.parse(payload), let id = json["commandId"]?.stringValue,
            !id.isEmpty, id.count <= 64, id.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value < 0x7F })
        else { return nil }
        return id.lowercased()
    }

    private static func applyPower(_ value: String, _ command: inout MQTTCommand) throws {
        switch value.lowercased() {
        case "on":
            command.wake = true
            command.commands = [.key(.key(.powerOn), .press)]
        case "off":
            command.commands = [.key(.key(.powerOff), .press)]
        default:
            throw PhotonError(.usage, "power takes ON or OFF")
        }
    }
}
