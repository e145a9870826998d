import Dispatch
import Foundation
import Glibc
import PhotonCore
import PhotonCrypto
import PhotonFollow
import PhotonKit
import PhotonNet
import PhotonService

/// `photon serve`: the daemon. Keeps warm sessions to the TVs its clients use and serves
/// the local socket API; other `photon` commands of this home use it while it runs.
enum ServeCommand {
    static let spec = CommandSpec(
        ["serve"], summary: "run the daemon: warm sessions and the local socket API", arguments: "",
        minimumArguments: 0, maximumArguments: 0,
        options: [
            OptionSpec("preconnect", help: "connect to every paired TV at start, not on first use"),
            OptionSpec("mqtt", value: "URL", help: "bridge to this MQTT broker (mqtt://HOST[:PORT] or mqtts://…) for Home Assistant"),
            OptionSpec("mqtt-site", value: "NAME", help: "this daemon's site in topics (default: the host name)"),
            OptionSpec("mqtt-prefix", value: "PREFIX", help: "Home Assistant's discovery prefix (default homeassistant)"),
            OptionSpec("mqtt-ca", value: "FILE", help: "for mqtts: trust brokers signed by this CA file"),
            OptionSpec("mqtt-pin", type: .fingerprint, help: "for mqtts: trust exactly the broker certificate with this SHA-256 fingerprint"),
            OptionSpec(
                "wake-broadcast", value: "ADDR",
                help:
                    "where Wake-on-LAN goes for MQTT's \"power on\" and clients that name no address (photon power, key --wake) (repeatable; default every broadcast address)",
                repeatable: true),
            OptionSpec("wake-port", type: .port, help: "UDP port for that Wake-on-LAN (repeatable; default 9 and 7)", repeatable: true),
            OptionSpec("wake-wait", type: .seconds(1...120), help: "how long \"power on\" waits for a woken TV (default 30)"),
            OptionSpec("allow-plaintext-login", help: "send the stored broker login over mqtt:// to another machine (in clear)"),
            OptionSpec(
                "mqtt-allow", value: "raw,links",
                help: "let MQTT commands also send raw key codes and open links (anyone who can publish on the broker then can)"),
            OptionSpec(
                "http", value: "[ADDR:]PORT",
                help: "serve the HTTP API and the web remote (default address 127.0.0.1; any other address serves HTTPS only)"),
            OptionSpec("tls-cert", value: "FILE", help: "with --http: the HTTPS certificate (PEM) instead of photon's own self-signed one"),
            OptionSpec("tls-key", value: "FILE", help: "with --http: the key of --tls-cert (PEM)"),
            OptionSpec("homekit", help: "publish every paired TV as a HomeKit accessory (pair with `photon homekit show TV`)"),
            OptionSpec("homekit-address", value: "ADDR", help: "with --homekit: the address the accessories listen on (default every interface)"),
            OptionSpec(
                "follow", value: "TV", help: "the TV follows this computer's sleep, wake and idle, as `photon follow TV` (through this daemon)"),
            OptionSpec("follow-input", value: "NAME", help: "with --follow: this computer's input, as `photon follow --input`"),
            OptionSpec("follow-idle", type: .seconds(0.1...86_400), help: "with --follow: the picture off after this many idle seconds"),
        ],
        details: """
            Listens on photon.sock in the runtime directory ($XDG_RUNTIME_DIR/photon, or DIR/run with --home): \
            a 0600 socket in a 0700 directory, used only by this user. Stops cleanly on SIGTERM or SIGINT; \
            SIGHUP re-reads the paired TVs. \
            docs/daemon.md describes the JSON-lines API and a systemd user unit.
            """,
        examples: [
            "photon serve", "photon serve --preconnect -v", "photon --home /tmp/photon-test serve --json",
            "photon serve --mqtt mqtt://127.0.0.1:1883 --mqtt-site living-room", "photon serve --http 8080",
            "photon serve --http 0.0.0.0:8443", "photon serve --homekit",
        ], run: run)

    /// This machine: `localhost`, 127.0.0.0/8, ::1.
    static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host == "[::1]" || host.hasPrefix("127.")
    }

    static func run(_ parsed: ParsedCommand, _ context: CLIContext) async throws -> Int32 {
        // Each TV takes a descriptor or two (a second socket for some brands), plus API
        // clients: raise the soft limit to the hard one, and say so when even that is short.
        let limit = EventLoop.raiseDescriptorLimit()
        let tvCount = (try? await context.store.devices().devices.count) ?? 0
        let needed = tvCount * 2 + 256
        if limit.soft < needed {
            throw PhotonError(
                .usage, "the file-descriptor limit (\(limit.soft), hard \(limit.hard)) is too low for \(tvCount) TVs: about \(needed) are needed",
                hint: "raise the hard limit: `ulimit -Hn \(needed)` as root, or LimitNOFILE=\(needed) in the systemd unit")
        }
        let terminal = context.terminal
        let log = ServiceLog(
            notice: { line in terminal.writeError("photon serve: \(line)\n") }, debug: context.log)
        // The daemon is one more user of the façade: warm sessions that reconnect, the
        // store cached, and the one router that the socket API and MQTT share.
        var routerPolicy = RouterPolicy()
        if let allow = parsed.value("mqtt-allow") {
            guard let allowances = BrokerAllowances(names: allow) else {
                throw PhotonError(.usage, "--mqtt-allow takes raw, links or both (raw,links), not '\(Redaction.sanitize(allow))'")
            }
            routerPolicy.brokerAllows = allowances
        }
        let photon = try Photon(
            adapters: context.registry, paths: context.paths, timeout: context.timeout, log: context.log,
            policy: .keepWarm(ReconnectBackoff()), serviceLog: log, cachesStore: true, routerPolicy: routerPolicy)
        var limits = ServiceLimits()
        limits.wakeDestinations = parsed.allValues("wake-broadcast")
        limits.wakePorts = parsed.allValues("wake-port").compactMap(UInt16.init)
        let server = ServiceServer(photon: photon, limits: limits, log: log)
        let mqtt = try await mqttSettings(parsed, context)
        let httpSettings = try await WebServing.settings(parsed, context)
        if parsed.value("homekit-address") != nil, !parsed.flag("homekit") { throw PhotonError(.usage, "--homekit-address needs --homekit") }
        try server.start()
        var door: HTTPDoor?
        if let httpSettings {
            do {
                door = try server.startHTTP(httpSettings)
            } catch {
                await server.stop()
                throw error
            }
        }
        var homeKit: HomeKitDoor?
        if parsed.flag("homekit") {
            var settings = HomeKitDoorSettings()
            if let address = parsed.value("homekit-address") { settings.address = address }
            settings.wake = WakeRequest(
                destinations: limits.wakeDestinations, ports: limits.wakePorts, patience: parsed.seconds("wake-wait") ?? .seconds(45))
            do {
                homeKit = try await server.startHomeKit(settings)
            } catch {
                await server.stop()
                throw error
            }
        }
        let stop = Promise<Int32>()
        if let mqtt {
            // A site another daemon holds (or that retained messages on the broker claim)
            // turns the bridge off, never the daemon: anyone who can publish to the broker
            // could otherwise stop it (round 4, L10).
            try await server.startMQTT(mqtt, version: PhotonCommandLine.version) { error in
                context.terminal.writeError(
                    "photon: error: \(error.message); the MQTT bridge is off, the daemon goes on\n" + (error.hint.map { "  hint: \($0)\n" } ?? ""))
                Task { await server.stopMQTT() }
            }
        }
        let signals = [SIGTERM, SIGINT].map { number -> DispatchSourceSignal in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { stop.succeed(number) }
            source.resume()
            return source
        }
        signal(SIGHUP, SIG_IGN)
        let reload = DispatchSource.makeSignalSource(signal: SIGHUP, queue: .global())
        reload.setEventHandler { Task { await server.reload() } }
        reload.resume()
        defer {
            for signal in signals { signal.cancel() }
            reload.cancel()
        }
        var ready: [(String, JSONValue)] = [("event", "ready"), ("socket", .string(server.socketPath)), ("pid", .int(Int(getpid())))]
        var readyText = "Serving on \(server.socketPath) (pid \(getpid())). Stop with Ctrl-C or SIGTERM."
        if let door {
            let fingerprint = door.fingerprint?.description
            try WebDoorFile(url: door.url, fingerprint: fingerprint, pid: getpid()).write(context.store.paths)
            ready.append(("http", .string(door.url)))
            readyText += "\nWeb remote and HTTP API: \(door.url) (pair a device with `photon web pair`)"
            if let fingerprint {
                ready.append(("fingerprint", .string(fingerprint)))
                readyText += "\nCertificate SHA-256: \(fingerprint)"
            }
        }
        if let homeKit {
            let ports = homeKit.ports
            ready.append(("homekit", .object(ports.sorted { $0.key < $1.key }.map { ($0.key, .int(Int($0.value))) })))
            readyText += "\nHomeKit: \(ports.count) accessor\(ports.count == 1 ? "y" : "ies") (pair with `photon homekit show TV`)"
        }
        defer { if door != nil { WebDoorFile.remove(context.store.paths) } }
        context.emit(.object(ready), text: readyText)
        let accepting = Task { await server.run() }
        var following: (logind: Logind, task: Task<Void, Never>)?
        if let tv = parsed.value("follow") {
            do {
                let (logind, follower) = try await followSetup(tv, parsed, photon: photon, limits: limits, context)
                following = (logind, Task { await follower.run(logind.events, lock: logind) })
            } catch {
                await server.stop()
                await accepting.value
                throw error
            }
        }
        if parsed.flag("preconnect") && mqtt == nil {
            Task { try? await server.preconnect() }
        }
        let number = try await stop.value()
        log.notice("stopping (\(number == SIGINT ? "SIGINT" : "SIGTERM"))")
        if let following {
            following.logind.stop()
            await following.task.value
        }
        await server.stop()
        await accepting.value
        return 0
    }

    /// `--follow TV`: `photon follow`'s follower, acting through this daemon's own router as
    /// the `follow` source.
    static func followSetup(_ tv: String, _ parsed: ParsedCommand, photon: Photon, limits: ServiceLimits, _ context: CLIContext)
        async throws -> (Logind, Follower)
    {
        var options = FollowOptions()
        if let input = parsed.value("follow-input") { options.input = try InputName(parsing: input) }
        if let idle = parsed.value("follow-idle").flatMap(Double.init) { options.idle = .milliseconds(Int(idle * 1000)) }
        let device = try await photon.device(tv)
        var wait: Duration = .seconds(45)
        if let seconds = parsed.value("wake-wait").flatMap(Double.init) { wait = .milliseconds(Int(seconds * 1000)) }
        let wake = WakeRequest(destinations: limits.wakeDestinations, ports: limits.wakePorts, patience: wait)
        return try FollowCommand.follower(of: device, options: options, wake: wake, control: DirectControl(photon: photon, source: .follow), context)
    }

    /// The bridge's settings from the options and the stored broker login.
    static func mqttSettings(_ parsed: ParsedCommand, _ context: CLIContext) async throws -> MQTTSettings? {
        guard let text = parsed.value("mqtt") else {
            for name in ["mqtt-site", "mqtt-prefix", "mqtt-ca", "mqtt-pin"] where parsed.value(name) != nil {
                throw PhotonError(.usage, "--\(name) needs --mqtt URL")
            }
            return nil
        }
        let url = try BrokerURL(text)
        let host = HostName.short ?? "photon"
        var settings = MQTTSettings(
            host: url.host, port: url.port, site: parsed.value("mqtt-site") ?? host, prefix: parsed.value("mqtt-prefix") ?? "homeassistant",
            wakeDestinations: parsed.allValues("wake-broadcast"))
        settings.wakePorts = parsed.allValues("wake-port").compactMap(UInt16.init)
        if let wait = parsed.seconds("wake-wait") { settings.wakePatience = wait }
        guard !settings.prefix.isEmpty, !settings.prefix.contains("+"), !settings.prefix.contains("#") else {
            throw PhotonError(.usage, "--mqtt-prefix is a topic prefix without wildcards")
        }
        let pin = try parsed.value("mqtt-pin").map { try CertificateFingerprint(hex: $0) }
        if url.secure {
            if let pin {
                settings.tls = .pinned(pin)
            } else if let ca = parsed.value("mqtt-ca") {
                guard FileManager.default.isReadableFile(atPath: ca) else { throw PhotonError(.usage, "cannot read the CA file \(ca)") }
                settings.tls = .caFile(ca)
            } else {
                throw PhotonError(
                    .usage, "mqtts needs to know which broker to trust",
                    hint: "give --mqtt-ca FILE (the CA that signed the broker) or --mqtt-pin FINGERPRINT (its certificate)")
            }
        } else if pin != nil || parsed.value("mqtt-ca") != nil {
            throw PhotonError(.usage, "--mqtt-ca and --mqtt-pin are for mqtts:// brokers")
        }
        if let login = try await context.store.brokerCredentials(host: url.host, port: url.port) {
            // mqtt:// sends the password in clear: only to this machine, unless told.
            if !url.secure, !Self.isLoopback(url.host), !parsed.flag("allow-plaintext-login") {
                throw PhotonError(
                    .usage, "the stored login for \(url.host) would travel in clear over mqtt://",
                    hint: "use mqtts:// (with --mqtt-ca or --mqtt-pin), or pass --allow-plaintext-login on a network you trust")
            }
            settings.username = login.username
            settings.password = login.password
        }
        return settings
    }
}

/// `photon serve --http [ADDR:]PORT [--tls-cert FILE --tls-key FILE]` read into the door's
/// settings: loopback serves plain HTTP unless a certificate is given; any other address
/// serves HTTPS with the given certificate or this installation's own self-signed one.
enum WebServing {
    static func settings(_ parsed: ParsedCommand, _ context: CLIContext) async throws -> HTTPDoorSettings? {
        guard let text = parsed.value("http") else {
            for name in ["tls-cert", "tls-key"] where parsed.value(name) != nil { throw PhotonError(.usage, "--\(name) needs --http") }
            return nil
        }
        var settings = HTTPDoorSettings()
        (settings.host, settings.port) = try address(text)
        settings.version = PhotonCommandLine.version
        settings.machineNames = [HostName.full, HostName.short, HostName.short.map { $0 + ".local" }].compactMap { $0 }
        settings.machineAddresses = LocalAddresses.all()
        switch (parsed.value("tls-cert"), parsed.value("tls-key")) {
        case (let cert?, let key?):
            guard let certificatePEM = try? String(contentsOfFile: cert, encoding: .utf8),
                let keyPEM = try? String(contentsOfFile: key, encoding: .utf8)
            else { throw PhotonError(.usage, "cannot read --tls-cert \(cert) or --tls-key \(key)") }
            _ = try Certificate(pem: certificatePEM)
            settings.identity = StoredIdentity(certificatePEM: certificatePEM, privateKeyPEM: keyPEM)
        case (nil, nil):
            if !settings.isLoopback {
                let names = settings.machineNames.map { "DNS:" + $0 } + settings.machineAddresses.filter { !$0.hasPrefix("fe80") }.map { "IP:" + $0 }
                settings.identity = try await context.store.webServerIdentity(subjectAltNames: names)
            }
        default: throw PhotonError(.usage, "--tls-cert and --tls-key go together")
        }
        return settings
    }

    /// `PORT`, `ADDR:PORT` or `[IPV6]:PORT`; the address must be numeric.
    static func address(_ text: String) throws -> (String, UInt16) {
        let usage = PhotonError(.usage, "--http takes [ADDR:]PORT, e.g. 8080, 127.0.0.1:8080 or 0.0.0.0:8443, not '\(Redaction.sanitize(text))'")
        if let port = UInt16(text), port > 0 { return ("127.0.0.1", port) }
        // Port 0 picks a free one (tests); the ready line and `photon web show` say which.
        guard let (host, port) = HTTPOriginPolicy.splitAuthority(text), let port else { throw usage }
        let bare = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        guard SocketAddress(numericHost: bare, port: port) != nil else { throw usage }
        return (bare, port)
    }
}
