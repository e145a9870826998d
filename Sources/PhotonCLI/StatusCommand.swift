import Foundation
import PhotonCore
import PhotonKit

/// `photon status TV [--watch]`: power, current app and volume as the TV reports them.
enum StatusCommand {
    static let spec = CommandSpec(
        ["status"], summary: "show power, current app and volume", arguments: "TV", minimumArguments: 1, maximumArguments: 1,
        options: [OptionSpec("watch", help: "keep printing changes until interrupted")],
        details: "Without --watch, waits briefly for the TV's reports and prints what it said.",
        examples: ["photon status living-room", "photon status living-room --watch --json"], run: run)

    /// `catalog`: the brand's app ids for `AppCatalog`, so an app id the TV reports
    /// (`com.netflix.ninja`) is shown with its name.
    static func describe(_ event: TVEvent, catalog: [String: [String]] = [:]) -> (JSONValue, String)? {
        switch event {
        case .power(let on):
            return (.object([("power", .string(on ? "on" : "off"))]), "power: \(on ? "on" : "off")")
        case .powerState(let state, let reason):
            // A reason that only repeats the state ("standby (standby)") is left out of the text.
            let said = reason.flatMap { $0.lowercased() == state.rawValue ? nil : $0 }
            return (
                .object([("power_state", .string(state.rawValue)), ("power_reason", .optional(reason))]),
                "power state: \(state.rawValue)\(said.map { " (\(Redaction.sanitize($0, limit: 64)))" } ?? "")"
            )
        case .volume(let v):
            return (
                .object([("volume", .object([("level", .int(v.level)), ("max", .int(v.maximum)), ("muted", .bool(v.muted))]))]),
                "volume: \(v.level)/\(v.maximum)\(v.muted ? " (muted)" : "")"
            )
        case .currentApp(let reported):
            // Every brand alike: `app` is the id `photon launch` takes, `app_name` its name.
            let app = ReportedApp(reported, catalog: catalog)
            guard let name = app.name else {
                return (.object([("app", .string(app.id))]), "app: \(Redaction.sanitize(app.id))")
            }
            return (
                .object([("app", .string(app.id)), ("app_name", .string(name))]),
                "app: \(Redaction.sanitize(name)) (\(Redaction.sanitize(app.id)))"
            )
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
        case .setting(let name, let value):
            return (.object(ServiceProtocol.fields(event)), "\(name): \(Redaction.sanitize(value, limit: 64))")
        case .disconnected(let reason):
            return (.object([("disconnected", .optional(reason?.message))]), "disconnected\(reason.map { ": \($0.message)" } ?? "")")
        }
    }

    static func run(_ parsed: ParsedCommand, _ context: CLIContext) async throws -> Int32 {
        let control = try await context.control()
        let tv = parsed.arguments[0]
        let catalog = await appCatalog(of: tv, context)
        if parsed.flag("watch") {
            try await watch(tv, control, context, catalog: catalog)
        } else {
            for event in try await control.status(tv, settle: .milliseconds(1500)) {
                if let (json, text) = describe(event, catalog: catalog) { context.emit(json, text: text) }
            }
        }
        return 0
    }

    /// `--watch`: the TV's state first, then changes. A warm session (the daemon)
    /// reconnects when the TV drops, so the watch goes on and says so; a direct one
    /// ends with the TV's error.
    /// The brand's catalog ids of a paired TV (none for a TV the store does not know).
    static func appCatalog(of tv: String, _ context: CLIContext) async -> [String: [String]] {
        guard let device = try? await context.store.device(named: tv), let adapter = try? context.registry.adapter(id: device.brand) else {
            return [:]
        }
        return adapter.descriptor.appCatalogIDs
    }

    static func watch(_ tv: String, _ control: any TVControl, _ context: CLIContext, catalog: [String: [String]] = [:]) async throws {
        let session = try await control.open(tv, source: .cli)
        defer { Task { await session.close() } }
        var connected = false
        var everConnected = false
        var said: [String: String] = [:]
        for await update in session.updates {
            switch update {
            case .connection(.connected, _):
                if everConnected, !connected { context.emit(.object([("connection", "connected")]), text: "connected again") }
                connected = true
                everConnected = true
            case .connection(.reconnecting, let error):
                // Said once per outage (the first line may already be an outage).
                guard connected || !everConnected else { continue }
                connected = false
                everConnected = true
                if let (json, text) = describe(.disconnected(reason: error)) { context.emit(json, text: text + " (photon serve is reconnecting)") }
            case .connection(.failed, let error): throw error ?? PhotonError(.connectionClosed, "the TV refused the connection")
            case .connection(.closed, let error):
                throw error ?? PhotonError(.connectionClosed, "photon serve stopped serving this TV", hint: "was it forgotten?")
            case .connection: continue
            case .event(.disconnected(let reason)):
                throw reason ?? PhotonError(.connectionClosed, "the TV closed the connection")
            case .event(let event):
                // A report that repeats what was last said of the same kind (a TV that sends
                // its volume again on every key) is not printed again (newcomer #15).
                guard let (json, text) = describe(event, catalog: catalog) else { continue }
                let kind = ServiceProtocol.name(of: event)
                guard said[kind] != text else { continue }
                said[kind] = text
                context.emit(json, text: text)
            }
        }
        throw PhotonError(.connectionClosed, "the connection to the TV ended", hint: "run the command again")
    }
}
