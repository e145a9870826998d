import AndroidTV
import AndroidTVEmulator
import Foundation
import Glibc
import PhotonCore
import PhotonEmulatorSupport
import PhotonKit
import PhotonMQTT
import PhotonNet
import PhotonService
import PhotonStore

/// `photon serve` rows of `make bench`: a CLI key press through the daemon against a cold
/// direct one (both from process start to the emulator's receipt), and one daemon holding
/// 500 emulated Android TVs (connect time, memory, idle CPU, one key to every TV).
enum DaemonBench {
    /// Every emulator's key receipts and remote connections, with their monotonic times.
    final class Log: Sendable {
        let keys = Locked<[Double]>([])
        let connections = Locked<[Double]>([])
        let codes = Locked<[String]>([])
        func record(_ event: EmulatorEvent) {
            switch event.name {
            case "key": keys.withLock { $0.append(event.time) }
            case "client_connected": connections.withLock { $0.append(event.time) }
            case "pairing_code": if let code = event["code"]?.string { codes.withLock { $0.append(code) } }
            default: break
            }
        }
    }

    static func run(repositoryRoot: URL, tvCount: Int = 5000) async throws -> (rows: [String], notes: [String]) {
        EventLoop.raiseDescriptorLimit()
        let photon = repositoryRoot.appendingPathComponent(".build/release/photon").path
        let log = Log()
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("pb-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: home) }
        let store = Store(paths: StorePaths(home: home))

        // One TV paired for real; its state directory (identity, paired list) is the
        // template for the other 499.
        let template = home.appendingPathComponent("tv-0")
        var configuration = EmulatedAndroidTV.Configuration()
        configuration.remotePort = 0
        configuration.stateDirectory = template
        let first = try await EmulatedAndroidTV.start(configuration, onEvent: log.record)
        let identity = try await store.clientIdentity().clientIdentity
        let context = AdapterContext(connector: NetConnector(), clientIdentity: identity, clientName: "bench", timeout: .seconds(10))
        let flow = AndroidTVAdapter().pairing(
            with: Endpoint(host: "127.0.0.1", port: first.remotePort), options: AdapterOptionValues(ports: ["pairing": first.pairingPort]),
            context: context)
        var paired = try await flow.run(responder: AndroidTVBench.CodeFromEmulator(codes: log.codes))
        paired.device.nickname = "tv-0"
        try await store.save(paired)

        var rows: [String] = []
        var notes: [String] = []

        // 1. One key press: a new CLI process each time, direct versus through the daemon.
        // posix_spawn directly, so the spawning machinery of Foundation's Process is not
        // part of either number.
        func press(_ extra: [String]) async throws -> Double {
            let before = log.keys.withLock { $0.count }
            let start = EmulatorEvent.monotonicSeconds()
            let pid = try spawn(photon, ["key", "tv-0", "home", "--home", home.path] + extra)
            let end = ContinuousClock.now + .seconds(10)
            while log.keys.withLock({ $0.count }) <= before {
                guard ContinuousClock.now < end else { throw PhotonError(.timeout, "the key never arrived") }
                try await Task.sleep(for: .microseconds(50))
            }
            let received = log.keys.withLock { $0[before] }
            var status: Int32 = 0
            waitpid(pid, &status, 0)
            guard status == 0 else { throw PhotonError(.internal, "photon key exited with status \(status)") }
            return received - start
        }
        var direct: [Double] = []
        for _ in 0..<20 { direct.append(try await press(["--direct"])) }
        let daemon = try startDaemon(photon, home: home, extra: [])
        _ = try await press([])
        var viaDaemon: [Double] = []
        for _ in 0..<20 { viaDaemon.append(try await press([])) }
        let directStats = Stats(samples: direct)
        let daemonStats = Stats(samples: viaDaemon)
        rows.append(
            "| `photon key TV home` through `photon serve` vs cold direct, process start → emulator receipt (p50) | \(ms(daemonStats.p50)) | \(ms(directStats.p50)) (direct) | \(ratio(directStats.p50, daemonStats.p50)) |"
        )
        stop(daemon)

        // 2. The fleet: one daemon with 500, 2,000 and 5,000 TVs, bridged to a real
        // mosquitto broker. The TVs run in a child process and share the first one's
        // identity and pairing (copied state directories), each on its own ports.
        await first.stop()
        let counts = [500, 2000, 5000].filter { $0 <= tvCount }
        let fleet = try EmulatorFleet(
            count: counts.last ?? 1, template: template, directory: home.appendingPathComponent("fleet"), log: log)
        defer { fleet.stop() }
        let broker = try FleetBroker()
        defer { broker.stop() }
        for count in counts {
            do {
                rows += try await fleetRows(
                    count: count, ports: Array(fleet.ports.prefix(count)), fleet: fleet, template: paired,
                    identity: try await store.clientIdentity(), photon: photon, log: log, broker: broker)
            } catch {
                rows.append("| fleet of \(count) TVs | failed: \(PhotonError.wrap(error).message) | — | — |")
            }
        }
        notes.append(
            "Fleet rows: the emulated Android TVs run in one child process of the benchmark (`photon-bench --emulators N`, each TV pinging every 5 s, as real ones do), on the same 2 cores; `photon serve --mqtt` is the release binary in its own process, bridged to a mosquitto broker on loopback; memory is its VmRSS, CPU its utime+stime over 10 s idle. \"Through MQTT\" publishes one `key/set` per TV from this process (libmosquitto, QoS 1) and times the first publish to the last emulator receipt; the latency row times 200 single commands to one TV, publish to receipt. The restart row stops the broker (losing everything retained), starts it again, and times until a new subscriber has seen every TV's discovery config and `online` availability, including libmosquitto's reconnect delay (1 s at first)."
        )
        return (rows, notes)
    }

    /// A mosquitto broker on a free loopback port for the fleet rows.
    final class FleetBroker {
        let port: UInt16
        private var process: Process
        private let config: URL
        init() throws {
            let probe = try TCPListener(host: "127.0.0.1", port: 0)
            port = probe.port
            probe.close()
            // A site's broker for a fleet: QoS 1 messages to one client (the daemon) are not
            // capped at mosquitto's default 1,000 queued (5,000 TVs get a key at once), and
            // the broker's sockets send at once (without it, Nagle's algorithm and delayed
            // acknowledgements put about 40 ms on one command in a hundred).
            config = FileManager.default.temporaryDirectory.appendingPathComponent("photon-bench-mosquitto-\(port).conf")
            try "listener \(port) 127.0.0.1\nallow_anonymous true\nmax_queued_messages 100000\nmax_inflight_messages 0\nset_tcp_nodelay true\n"
                .write(to: config, atomically: true, encoding: .utf8)
            process = try Self.start(config)
        }

        private static func start(_ config: URL) throws -> Process {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/sbin/mosquitto")
            process.arguments = ["-c", config.path]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try withChildSignalsUnblocked { try process.run() }
            usleep(300_000)
            return process
        }

        /// A broker restart as a site sees one: everything retained and queued is gone.
        func restart() throws {
            stop()
            process = try Self.start(config)
        }

        func stop() { DaemonBench.stop(process) }
    }

    /// One fleet size: connect time, memory, idle CPU, a key to every TV through the
    /// socket API and through MQTT, and MQTT command latency.
    static func fleetRows(
        count: Int, ports: [(remote: UInt16, pairing: UInt16)], fleet: EmulatorFleet, template: PairedTV, identity: StoredIdentity, photon: String,
        log: Log, broker: FleetBroker
    ) async throws -> [String] {
        var rows: [String] = []
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("pf-\(count)-\(UUID().uuidString.prefix(6))")
        defer { try? FileManager.default.removeItem(at: home) }
        let store = Store(paths: StorePaths(home: home))
        try await store.update { devices, secrets in
            for (index, (remotePort, pairingPort)) in ports.enumerated() {
                var device = template.device
                device.id = "androidtv-bench-\(index)"
                device.nickname = "tv-\(index)"
                device.port = remotePort
                device.ports = ["pairing": pairingPort]
                devices.devices.append(device)
                secrets.devices[device.id] = template.secrets
            }
        }
        // The paired installation's identity: the emulators know its certificate.
        try await store.update { _, secrets in secrets.identity = identity }
        let connectedBefore = log.connections.withLock { $0.count }
        let spawned = EmulatorEvent.monotonicSeconds()
        let site = "bench\(count)"
        let server = try startDaemon(photon, home: home, extra: ["--mqtt", "mqtt://127.0.0.1:\(broker.port)", "--mqtt-site", site])
        defer { stop(server) }
        let end = ContinuousClock.now + .seconds(300)
        while log.connections.withLock({ $0.count }) < connectedBefore + count {
            guard ContinuousClock.now < end, server.isRunning else {
                throw PhotonError(.timeout, "only \(log.connections.withLock { $0.count } - connectedBefore) of \(count) TVs connected")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        let connectSeconds = log.connections.withLock { $0.last! } - spawned
        rows.append("| fleet of \(count) TVs: `photon serve --mqtt` start → all connected | \(String(format: "%.2f s", connectSeconds)) | — | — |")
        try await Task.sleep(for: .seconds(3))
        let rss = residentMegabytes(server.processIdentifier)
        let idleSeconds = 10.0
        let cpuBefore = cpuSeconds(server.processIdentifier)
        let fleetBefore = fleet.cpuSeconds
        try await Task.sleep(for: .seconds(idleSeconds))
        let idleCPU = (cpuSeconds(server.processIdentifier) - cpuBefore) / idleSeconds * 100
        let fleetCPU = (fleet.cpuSeconds - fleetBefore) / idleSeconds * 100
        rows.append(
            "| fleet of \(count) TVs: daemon resident memory (goal < 500 MB at 5,000) | \(String(format: "%.1f MB (%.1f kB per TV)", rss, rss * 1024 / Double(count))) | — | — |"
        )
        rows.append(
            "| fleet of \(count) TVs: daemon CPU while idle (goal < 5 %) | \(String(format: "%.2f %%", idleCPU)) of one core | — | — |")
        rows.append(
            "| fleet of \(count) TVs: the emulators' process meanwhile, for comparison | \(String(format: "%.2f %%", fleetCPU)) of one core | — | — |"
        )

        // A key to every TV through the socket API: clients of 50 sessions each.
        let socket = StorePaths(home: home).socketFile.path
        var sessions: [(DaemonClient, [String])] = []
        for c in 0..<max(1, count / 50) {
            let client = try await DaemonClient.connect(path: socket, timeout: .seconds(5))
            var ids: [String] = []
            for index in stride(from: c, to: count, by: max(1, count / 50)) {
                ids.append(try await client.request("open", [("tv", .string("tv-\(index)"))])["session"]!.stringValue!)
            }
            sessions.append((client, ids))
        }
        let apiFanOut = try await fanOut(count: count, log: log) {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (client, ids) in sessions {
                    group.addTask {
                        for id in ids {
                            try await client.request("send", [("session", .string(id)), ("seq", 1), ("command", .object([("key", "home")]))])
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
        for (client, _) in sessions { await client.close() }
        rows.append(
            "| fleet of \(count) TVs: one key to every TV through the socket API, first send → last receipt (goal < 1 s) | \(ms(apiFanOut)) | — | — |"
        )

        // The same through MQTT, as Home Assistant or another site would send it.
        var options = MQTTClient.Options(host: "127.0.0.1", port: broker.port, clientID: "bench-\(count)")
        options.keepAlive = 60
        let mqtt = try MQTTClient(options)
        try mqtt.start()
        defer { mqtt.stop() }
        for await event in mqtt.events { if case .connected = event { break } }
        let topics = MQTTTopics(site: site, prefix: "homeassistant")
        let mqttFanOut = try await fanOut(count: count, log: log) {
            for index in 0..<count { mqtt.publish(topics.command("androidtv-bench-\(index)", "key"), "up") }
        }
        rows.append(
            "| fleet of \(count) TVs: one key to every TV through MQTT, first publish → last receipt (goal < 1 s) | \(ms(mqttFanOut)) | — | — |")
        var latencies: [Double] = []
        for _ in 0..<200 {
            let before = log.keys.withLock { $0.count }
            let sent = EmulatorEvent.monotonicSeconds()
            mqtt.publish(topics.command("androidtv-bench-0", "key"), "down")
            let deadline = ContinuousClock.now + .seconds(5)
            while log.keys.withLock({ $0.count }) <= before {
                guard ContinuousClock.now < deadline else { throw PhotonError(.timeout, "an MQTT command never arrived") }
                try await Task.sleep(for: .microseconds(100))
            }
            latencies.append(log.keys.withLock { $0[before] } - sent)
            try await Task.sleep(for: .milliseconds(5))
        }
        let latency = Stats(samples: latencies)
        rows.append(
            "| fleet of \(count) TVs: MQTT command → TV receipt (p50 / p99; goal p50 < 5 ms) | \(ms(latency.p50)) / \(ms(latency.p99)) | — | — |")
        mqtt.stop()
        rows.append(try await brokerRestartRow(count: count, site: site, broker: broker))
        return rows
    }

    /// The broker restarts (losing every retained message): the time until a subscriber
    /// sees every TV's discovery config and `online` availability again, as Home Assistant
    /// would. It includes the daemon's reconnect delay (libmosquitto's, from 1 s).
    static func brokerRestartRow(count: Int, site: String, broker: FleetBroker) async throws -> String {
        try broker.restart()
        let restarted = ContinuousClock.now
        let watcher = try MQTTClient(MQTTClient.Options(host: "127.0.0.1", port: broker.port, clientID: "bench-watch-\(count)"))
        try watcher.start()
        let limit = Task {
            try await Task.sleep(for: .seconds(120))
            watcher.stop()
        }
        defer {
            limit.cancel()
            watcher.stop()
        }
        let configPrefix = "homeassistant/device/photon_\(site)_"
        let statePrefix = "photon/\(site)/"
        var configs = Set<String>()
        var online = Set<String>()
        var elapsed: Duration?
        for await event in watcher.events {
            switch event {
            case .connected:
                try watcher.subscribe("homeassistant/device/+/config")
                try watcher.subscribe("\(statePrefix)+/availability")
            case .message(let message):
                if message.topic.hasPrefix(configPrefix), !message.payload.isEmpty {
                    configs.insert(message.topic)
                } else if message.topic.hasPrefix(statePrefix), message.payload == Array("online".utf8) {
                    online.insert(message.topic)
                }
            default:
                break
            }
            if configs.count == count, online.count == count {
                elapsed = ContinuousClock.now - restarted
                break
            }
        }
        guard let elapsed else {
            throw PhotonError(
                .timeout, "after a broker restart only \(configs.count) configs and \(online.count) TVs online of \(count) came back in 120 s")
        }
        return
            "| fleet of \(count) TVs: MQTT broker restarted, from the new broker up → every TV's discovery config and `online` seen again | \(String(format: "%.2f s", elapsed.seconds)) | — | — |"
    }

    /// Runs `send` and waits until `count` more keys arrived; returns first send → last receipt.
    static func fanOut(count: Int, log: Log, _ send: () async throws -> Void) async throws -> Double {
        let before = log.keys.withLock { $0.count }
        let start = EmulatorEvent.monotonicSeconds()
        try await send()
        let end = ContinuousClock.now + .seconds(60)
        while log.keys.withLock({ $0.count }) < before + count {
            guard ContinuousClock.now < end else {
                throw PhotonError(.timeout, "only \(log.keys.withLock { $0.count } - before) of \(count) TVs got their key")
            }
            try await Task.sleep(for: .milliseconds(1))
        }
        return log.keys.withLock { $0[before + count - 1] } - start
    }

    /// Starts `path` with its output discarded; returns its pid.
    static func spawn(_ path: String, _ arguments: [String]) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        var pid: pid_t = 0
        let rc = withChildSignalsUnblocked { posix_spawn(&pid, path, &actions, nil, argv, environ) }
        guard rc == 0 else { throw PhotonError(.internal, "cannot start \(path): \(String(cString: strerror(rc)))") }
        return pid
    }

    static func startDaemon(_ photon: String, home: URL, extra: [String]) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: photon)
        process.arguments = ["serve", "--home", home.path] + extra
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try withChildSignalsUnblocked { try process.run() }
        let socket = StorePaths(home: home).socketFile.path
        let end = ContinuousClock.now + .seconds(10)
        while access(socket, F_OK) != 0 {
            guard ContinuousClock.now < end, process.isRunning else { throw PhotonError(.internal, "photon serve did not start") }
            usleep(2000)
        }
        return process
    }

    static func stop(_ process: Process) {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGTERM)
        for _ in 0..<500 where process.isRunning { usleep(10_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    static func residentMegabytes(_ pid: Int32) -> Double {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
            let kilobytes = Double(line.split(separator: " ").dropFirst().first ?? "")
        else { return .nan }
        return kilobytes / 1024
    }

    /// User plus system CPU time of a process, in seconds.
    static func cpuSeconds(_ pid: Int32) -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return .nan }
        // Fields after the command name: state is field 3; utime and stime are 14 and 15.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return .nan }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }
}
