import Foundation
import PhotonCore
import PhotonKit
import Testing

@testable import PhotonService

/// One set of limits on every door: the same text and volume are taken or refused alike by
/// the socket and HTTP codec, MQTT's JSON command topic, MQTT's Home Assistant entity
/// topics, macro steps, and the command line's grammar (which the `photon` front end
/// shares).
@Suite struct CrossDoorLimitsTests {
    /// How each door reads `verb argument`; each throws what it refuses.
    static let doors: [(name: String, read: @Sendable (String, String) throws -> RemoteCommand)] = [
        ("socket and HTTP", { verb, argument in try ServiceProtocol.command(from: try CommandCatalog.wire(verb: verb, argument: argument)) }),
        ("command line", { verb, argument in try RemoteCommand(verb: verb, argument: argument) }),
        (
            "macro",
            { verb, argument in
                guard case .commands(let commands) = try Macro.parse(step: "\(verb) \(argument)"), let first = commands.first else {
                    throw PhotonError(.usage, "not a command step")
                }
                return first
            }
        ),
        (
            "MQTT entity",
            { verb, argument in
                let parsed = try MQTTCommand.parse(name: verb, payload: argument, apps: [], now: Date())
                guard let first = parsed.commands.first else { throw PhotonError(.usage, "nothing parsed") }
                return first
            }
        ),
        (
            "MQTT JSON",
            { verb, argument in
                let envelope: [(String, JSONValue)] = [("commandId", .string(UUID().uuidString)), ("issuedAt", 1), ("expiresAt", 2)]
                guard case .object(let fields) = try CommandCatalog.wire(verb: verb, argument: argument) else { throw PhotonError(.usage, "?") }
                let parsed = try MQTTCommand.parse(name: "command", payload: JSONValue.object(envelope + fields).encoded, apps: [], now: Date())
                guard let first = parsed.commands.first else { throw PhotonError(.usage, "nothing parsed") }
                return first
            }
        ),
    ]

    static func outcome(_ read: (String, String) throws -> RemoteCommand, _ verb: String, _ argument: String) -> RemoteCommand? {
        try? read(verb, argument)
    }

    @Test func textIsOneLimitOnEveryDoor() throws {
        let longest = String(repeating: "é", count: CommandLimits.textBytes / 2)
        let tooLong = longest + "x"
        for door in Self.doors {
            #expect(Self.outcome(door.read, "text", longest) == .text(longest), "\(door.name) refused the longest text")
            #expect(Self.outcome(door.read, "text", tooLong) == nil, "\(door.name) took \(tooLong.utf8.count) bytes")
            #expect(Self.outcome(door.read, "text", "the expanse") == .text("the expanse"), "\(door.name)")
        }
    }

    @Test func volumeIsOneRangeOnEveryDoor() throws {
        for door in Self.doors {
            #expect(Self.outcome(door.read, "volume", "0") == .setVolume(0), "\(door.name)")
            #expect(Self.outcome(door.read, "volume", "100") == .setVolume(100), "\(door.name)")
            #expect(Self.outcome(door.read, "volume", "12.0") == .setVolume(12), "\(door.name)")
            for bad in ["101", "-1", "100.6", "nan", "1e2", "louder"] {
                #expect(Self.outcome(door.read, "volume", bad) == nil, "\(door.name) took volume \(bad)")
            }
        }
    }

    @Test func notificationsScreenAndInputsAreReadAlike() throws {
        let cases: [(String, String, RemoteCommand?)] = [
            ("notify", String(repeating: "a", count: CommandLimits.notificationCharacters), .notify(String(repeating: "a", count: 200))),
            ("notify", String(repeating: "a", count: CommandLimits.notificationCharacters + 1), nil),
            ("screen", "on", .screen(on: true)), ("screen", "OFF", .screen(on: false)), ("screen", "dim", nil),
            ("input", "hdmi2", .input(.hdmi(2))), ("input", String(repeating: "a", count: 65), nil),
        ]
        for door in Self.doors {
            for (verb, argument, expected) in cases {
                #expect(Self.outcome(door.read, verb, argument) == expected, "\(door.name): \(verb) \(argument.prefix(12))")
            }
        }
    }
}
