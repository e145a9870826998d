import Foundation
import PhotonCore
import PhotonKit
import PhotonService

/// `photon status TV [--watch]`: power, current app and volume as the TV reports them.
enum StatusCommand {
    static let spec = CommandSpec(
        ["status"], summary: "show power, current app and volume", arguments: "TV", minimumArguments: 1, maximumArguments: 1,
        options: [OptionSpec("watch", help: "keep printing changes until interrupted")],
        details: "Without --watch, waits briefly for the TV's reports and prints what it said.",
        examples: ["photon status living-room", "photon status living-room --watch --json"], run: run)

    static func describe(_ event: TVEvent) -> (JSONValue, String)? {
        switch event {
        case .power(let on):
            return (.object([("power", .string(on ? "on" : "off"))]), "power: \(on ? "on" : "off")")
        case .volume(let v):
            return (
                .object([("volume", .object([("level", .int(v.level)), ("max", .int(v.maximum)), ("muted", .bool(v.muted))]))]),
                "volume: \(v.level)/\(v.maximum)\(v.muted ? " (muted)" : "")"
            )
        case .currentApp(let app):
            return (.object([("app", .string(app))]), "app: \(Redaction.sanitize(app))")
        case .playback(let p):
            var text = "playback: \(Redaction.sanitize(p.state, limit: 32))"
            if let ms = p.positionMilliseconds { text += String(format: " at %d:%02d", ms / 60_000, ms / 1000 % 60) }
            if let channel = p.channel { text += ", channel \(Redaction.sanitize(channel, limit: 64))" }
            return (.object(ServiceProtocol.fields(event)), text)
        case .deviceInfo(let model, let vendor, let version):
            let text = [vendor, model].compactMap { $0 }.map { Redaction.sanitize($0) }.joined(separator: " ")
            return (
                .object([("device", .object([("model", .optional(model)), ("vendor", .optional(vendor)), ("version", .optional(version))]))]),
                "device: \(text)\(version.map { " (remote service \(Redaction.sanitize($0)))" } ?? "")"
            )
        case .disconnected(let reason):
            return (.object([("disconnected", .optional(reason?.message))]), "disconnected\(reason.map { ": \($0.message)" } ?? "")")
        }
    }

    static func run(_ parsed: ParsedCommand, _ context: CLIContext) async throws -> Int32 {
        let watch = parsed.flag("watch")
        if let client = try await DaemonPath.client(context) {
            defer { Task { await client.close() } }
            if watch {
                try await watchThroughDaemon(parsed.arguments[0], client, context)
            } else {
                let answer = try await client.request("status", [("tv", .string(parsed.arguments[0]))], timeout: context.timeout + .seconds(5))
                for key in ["device", "power", "app", "playback", "volume"] {
                    if let value = answer["tv"]?[key], let event = ServiceProtocol.event(from: .object([(key, value)])),
                        let (json, text) = describe(event)
                    {
                        context.emit(json, text: text)
                    }
                }
            }
            return 0
        }
        let remote = try await context.photon.connect(parsed.arguments[0], source: .cli)
        do {
            if watch {
                for await event in remote.events {
                    if case .disconnected(let reason) = event, let reason { throw reason }
                    if let (json, text) = describe(event) { context.emit(json, text: text) }
                }
            } else {
                for event in await remote.status() {
                    if let (json, text) = describe(event) { context.emit(json, text: text) }
                }
            }
            await remote.close()
        } catch {
            await remote.close()
            throw error
        }
        return 0
    }

    /// `--watch` through the daemon: its state first, then changes. The daemon
    /// reconnects when the TV drops, so the watch goes on and says so.
    static func watchThroughDaemon(_ tv: String, _ client: ServiceClient, _ context: CLIContext) async throws {
        try await client.request("subscribe", [("tv", .string(tv))])
        var connected = false
        var everConnected = false
        for await line in client.events {
            switch line["event"]?.stringValue {
            case "connection":
                let state = line["state"]?.stringValue ?? ""
                let error = line["error"].map { ServiceProtocol.error(from: $0) }
                switch state {
                case "connected":
                    if everConnected, !connected { context.emit(.object([("connection", "connected")]), text: "connected again") }
                    connected = true
                    everConnected = true
                case "reconnecting":
                    // Said once per outage (the first line may already be an outage).
                    guard connected || !everConnected else { continue }
                    connected = false
                    everConnected = true
                    if let (json, text) = describe(.disconnected(reason: error)) { context.emit(json, text: text + " (photon serve is reconnecting)") }
                case "failed": throw error ?? PhotonError(.connectionClosed, "the TV refused the connection")
                case "closed": throw PhotonError(.connectionClosed, "photon serve stopped serving this TV", hint: "was it forgotten?")
                default: continue
                }
            case "shutdown":
                throw PhotonError(.connectionClosed, "photon serve is stopping", hint: "start it again, or pass --direct")
            default:
                if let event = ServiceProtocol.event(from: line), let (json, text) = describe(event) { context.emit(json, text: text) }
            }
        }
        throw PhotonError(.connectionClosed, "the connection to photon serve ended", hint: "is it still running?")
    }
}
