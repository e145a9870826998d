import Foundation
import PhotonCore
import PhotonCrypto
import PhotonNet

/// Summary statistics of a set of timings.
struct Stats {
    let samples: [Double]
    var sorted: [Double] { samples.sorted() }
    func percentile(_ p: Double) -> Double {
        let s = sorted
        guard !s.isEmpty else { return .nan }
        return s[min(s.count - 1, Int((Double(s.count - 1) * p).rounded()))]
    }
    var p50: Double { percentile(0.5) }
    var p99: Double { percentile(0.99) }
    var mean: Double { samples.reduce(0, +) / Double(max(samples.count, 1)) }
}

func ms(_ seconds: Double) -> String { String(format: "%.3f ms", seconds * 1000) }
func ratio(_ a: Double, _ b: Double) -> String { String(format: "%.1f×", a / b) }

enum Benchmarks {
    static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    static var python: String { repositoryRoot.appendingPathComponent(".venv/bin/python").path }
    static var pythonScript: String { repositoryRoot.appendingPathComponent("Benchmarks/peers/bench_client.py").path }

    static func run() async throws -> String {
        let server = try IdentityFactory.makeClientIdentity(commonName: "Bench TV")
        let client = try IdentityFactory.makeClientIdentity(commonName: "Bench client")
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("photon-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let certPath = dir.appendingPathComponent("client.pem").path
        let keyPath = dir.appendingPathComponent("client.key").path
        try client.certificatePEM.write(toFile: certPath, atomically: true, encoding: .utf8)
        try client.privateKeyPEM.write(toFile: keyPath, atomically: true, encoding: .utf8)

        let tls = try TLSListener(
            configuration: TLSServerConfiguration(certificatePEM: server.certificatePEM, privateKeyPEM: server.privateKeyPEM))
        let tlsServer = Task { await serveTLSEcho(tls) }
        let ws = try TCPListener()
        let wsServer = Task { await serveWebSocketEcho(ws) }
        defer {
            tlsServer.cancel()
            wsServer.cancel()
            tls.close()
            ws.close()
        }

        let options = TLSClientOptions(identity: client, trust: .captureForFirstUse)
        var rows: [String] = []
        var notes: [String] = []

        // 1. TLS handshake with a client certificate.
        let handshakes = 300
        // One warm-up connection builds the client context, as Python builds its own
        // before its loop.
        await (try TLSStream.connect(host: "127.0.0.1", port: tls.port, options: options, timeout: .seconds(10))).close()
        var ours: [Double] = []
        for _ in 0..<handshakes {
            let start = ContinuousClock.now
            let stream = try await TLSStream.connect(host: "127.0.0.1", port: tls.port, options: options, timeout: .seconds(10))
            ours.append((ContinuousClock.now - start).seconds)
            await stream.close()
        }
        let oursStats = Stats(samples: ours)
        let py = try runPython(["tls-handshake", String(tls.port), certPath, keyPath, String(handshakes)])
        let pyStats = Stats(samples: py["samples"] as? [Double] ?? [])
        rows.append(
            "| TLS 1.3 handshake with client certificate (p50) | \(ms(oursStats.p50)) | \(ms(pyStats.p50)) | \(ratio(pyStats.p50, oursStats.p50)) |")
        rows.append(
            "| TLS 1.3 handshake with client certificate (p99) | \(ms(oursStats.p99)) | \(ms(pyStats.p99)) | \(ratio(pyStats.p99, oursStats.p99)) |")

        // 2. Echo throughput over loopback TLS: 64 KiB writes, 128 MiB each way.
        let stream = try await TLSStream.connect(host: "127.0.0.1", port: tls.port, options: options, timeout: .seconds(10))
        let chunk = [UInt8](repeating: 0x5A, count: 64 * 1024)
        let total = 128 * 1024 * 1024
        let start = ContinuousClock.now
        async let drained: Int = {
            var received = 0
            while received < total {
                let bytes = try await stream.read(maxLength: 256 * 1024, timeout: .seconds(30))
                if bytes.isEmpty { break }
                received += bytes.count
            }
            return received
        }()
        var sent = 0
        while sent < total {
            try await stream.write(chunk, timeout: .seconds(30))
            sent += chunk.count
        }
        let received = try await drained
        let tlsSeconds = (ContinuousClock.now - start).seconds
        await stream.close()
        let tlsMBps = Double(received + sent) / tlsSeconds / 1_048_576
        rows.append("| TLS echo throughput (both directions, one connection) | \(String(format: "%.0f MiB/s", tlsMBps)) | — | — |")
        notes.append("TLS echo moved \(received / 1_048_576) MiB each way in \(String(format: "%.2f", tlsSeconds)) s.")

        // 3. WebSocket: small-message round trips and large-message throughput.
        let url = "ws://127.0.0.1:\(ws.port)/echo"
        let roundTrips = 5000
        let socket = try await SocketStream.connect(host: "127.0.0.1", port: ws.port, timeout: .seconds(5))
        let connection = try await WebSocketClient.connect(
            over: socket, host: "127.0.0.1:\(ws.port)", target: "/echo", maxMessageSize: 1 << 26, timeout: .seconds(5))
        var trips: [Double] = []
        let small = WebSocketMessage.binary([UInt8](repeating: 1, count: 64))
        for _ in 0..<roundTrips {
            let t0 = ContinuousClock.now
            try await connection.send(small)
            _ = try await connection.receive(timeout: .seconds(5))
            trips.append((ContinuousClock.now - t0).seconds)
        }
        let tripStats = Stats(samples: trips)
        let pyTrips = Stats(samples: try runPython(["ws-roundtrip", url, String(roundTrips), "64"])["samples"] as? [Double] ?? [])
        rows.append("| WebSocket 64-byte round trip (p50) | \(ms(tripStats.p50)) | \(ms(pyTrips.p50)) | \(ratio(pyTrips.p50, tripStats.p50)) |")
        rows.append("| WebSocket 64-byte round trip (p99) | \(ms(tripStats.p99)) | \(ms(pyTrips.p99)) | \(ratio(pyTrips.p99, tripStats.p99)) |")

        let bigCount = 64
        let bigSize = 1 << 20
        let big = WebSocketMessage.binary([UInt8](repeating: 2, count: bigSize))
        let t0 = ContinuousClock.now
        for _ in 0..<bigCount {
            try await connection.send(big)
            _ = try await connection.receive(timeout: .seconds(10))
        }
        let wsSeconds = (ContinuousClock.now - t0).seconds
        let wsMBps = Double(bigCount * bigSize * 2) / wsSeconds / 1_048_576
        let pyBig = try runPython(["ws-throughput", url, String(bigCount), String(bigSize)])
        let pyMBps = (pyBig["bytes"] as? Double ?? 0) / (pyBig["seconds"] as? Double ?? 1) / 1_048_576
        rows.append(
            "| WebSocket echo throughput, 1 MiB messages | \(String(format: "%.0f MiB/s", wsMBps)) | \(String(format: "%.0f MiB/s", pyMBps)) | \(ratio(wsMBps, pyMBps)) |"
        )
        await connection.close(code: 1000, reason: "")

        // 4. Android TV against the emulator, versus androidtvremote2.
        rows += try await AndroidTVBench.run(python: python, repositoryRoot: repositoryRoot)

        // 5. Samsung against the emulator, versus samsungtvws.
        rows += try await SamsungBench.run(python: python, repositoryRoot: repositoryRoot)

        // 5b. Roku against its emulator, versus rokuecp.
        rows += try await RokuBench.run(python: python, repositoryRoot: repositoryRoot)

        // 5c. LG against its emulator, versus aiowebostv.
        rows += try await LGBench.run(python: python, repositoryRoot: repositoryRoot)

        // 5d. Fire TV against its emulator, versus adb-shell.
        rows += try await FireTVBench.run(python: python, repositoryRoot: repositoryRoot)

        // 5e. Apple TV against its emulator, versus pyatv.
        rows += try await AppleTVBench.run(python: python, repositoryRoot: repositoryRoot)

        // 5e'. Sony against its emulator, versus pybravia.
        rows += try await SonyBench.run(python: python, repositoryRoot: repositoryRoot)

        // 5e''. Vizio against its emulator, versus pyvizio.
        rows += try await VizioBench.run(python: python, repositoryRoot: repositoryRoot)

        // 5e'''. Philips against its emulator, versus ha-philipsjs.
        rows += try await PhilipsBench.run(python: python, repositoryRoot: repositoryRoot)
        rows += try await HomeKitBench.run(python: python, repositoryRoot: repositoryRoot)

        // 5f. Voice: recognition on this machine (no peer), and live Android TV pieces.
        let voice = try await VoiceBench.run()
        rows += voice.rows
        notes += voice.notes

        // 6. Discovery and probing.
        rows += try await DiscoveryBench.run(repositoryRoot: repositoryRoot)

        // 7. The daemon: a key press through it, and 500 TVs at once.
        let daemon = try await DaemonBench.run(repositoryRoot: repositoryRoot)
        rows += daemon.rows
        notes += daemon.notes

        let date = ISO8601DateFormatter().string(from: Date())
        return """
            # Benchmarks

            Measured by `make bench` (release build of `photon-bench`) on \(date), on this
            project's 2-core machine, all on loopback. The server side is always Photon's own
            (TLS echo server, WebSocket echo server) started by the benchmark; the Python column
            drives the same servers in the same run (Python \(pythonVersion()), `ssl` and
            `websockets` from the test venv). Numbers from a shared machine vary by ±20 %;
            compare ratios, not absolutes.

            | measurement | Photon (Swift) | Python peer | Photon advantage (>1: Photon better) |
            |---|---|---|---|
            \(rows.joined(separator: "\n"))

            Notes:
            - Handshakes: \(handshakes) sequential TLS 1.3 connections, each presenting a
              client certificate (RSA-2048), closed after the handshake. Python's figure
              includes its `socket.create_connection`, as ours includes our connect.
            - \(notes.joined(separator: "\n- "))
            - WebSocket round trips: \(roundTrips) sequential 64-byte binary messages over one
              connection (send, then wait for the echo); client frames are masked as RFC 6455
              requires.
            - Android TV rows: Photon's emulated TV runs inside the benchmark process; the Python
              column is androidtvremote2 0.3.2 with the same (already paired) client certificate.
              Cold: 15 runs each of `photon key bench-tv home` (release build) and of a Python
              script that connects, sends HOME and disconnects, timed from process start to
              exit. Warm: 300 keys one at a time (4 ms apart), latency from the sender's
              CLOCK_MONOTONIC send time to the emulator's receipt time. Throughput: 5000 keys
              back to back, first send to last receipt.
            - Discovery: five announcements (in-process Avahi publisher) timed to their resolved
              result in an in-process browser, through the loopback-only avahi-daemon of
              `make test`. Probe: the release `photon probe` process, wall time.
            - Samsung rows: the emulated Samsung TV inside the benchmark process; the Python
              column is samsungtvws 3.0.6 (websocket-client) with `key_press_delay=0`, TLS forced
              for the emulator's port, its own token. Photon's key pacing is off for the
              measurement (its default is 300 ms between keys, to keep real TVs from dropping
              bursts). Same cold / warm / burst method as Android TV.
            - Roku rows: the emulated Roku inside the benchmark process (ECP over HTTP/1.1 on
              loopback); the Python column is rokuecp 0.19.5 (aiohttp, one session per run).
              Photon keeps one HTTP connection alive per session. Same method as Android TV.
            - Sony rows: the emulated Bravia inside the benchmark process (IRCC-SOAP over
              HTTP/1.1 on loopback, with the TV's pre-shared key); the Python column is pybravia
              0.5.3 (aiohttp), which reads the TV's key table and sends an empty IRCC code before
              its first key, as Photon does. Same method as Android TV.
            - Vizio rows: the emulated SmartCast TV inside the benchmark process (key commands
              as HTTPS PUTs on loopback, the certificate pinned); the Python column is pyvizio
              0.1.64 (aiohttp, one session for the run, certificate not checked). Same method
              as Android TV.
            - Philips rows: the emulated JointSpace TV inside the benchmark process (`input/key`
              as HTTPS POSTs with Digest on loopback, the certificate pinned); the Python column
              is ha-philipsjs 3.3.0 (httpx, its cached Digest challenge, certificate not
              checked). Same method as Android TV.
            - LG rows: the emulated LG TV inside the benchmark process (SSAP over WSS, keys over
              the pointer socket); the Python column is aiowebostv 0.10.0, whose connect also
              subscribes to eight state services before the first key. Same method as Android TV.
            - Apple TV rows: the emulated Apple TV (Companion) inside the benchmark process; the
              Python column is pyatv 0.18.0 on the same emulator. A key is a HID press and
              release, each a request the Apple TV answers; pyatv's cold run includes importing
              pyatv and its connect sequence.
            - HomeKit rows: aiohomekit 4.0.1 (Home Assistant's HomeKit controller) paired with
              the door of a daemon running in the benchmark process, then 300 RemoteKey (select)
              writes one after another, each timed in Python from the write to the door's answer,
              which the door sends once the emulated Roku has taken the key (its HTTP answer came
              back): aiohomekit's framing and encryption both ways, the door's, the router's and
              the Roku's HTTP round trip. No Python peer serves HomeKit for a TV, so no ratio.
            - Cold rows and phase tables time the child with `posix_spawn` and `waitpid` (Foundation's
              `Process` adds about 2 ms to each run). Probe rows send the unicast DNS-SD query to a
              closed port too (`--mdns-port`), so "closed" means nothing listens at all.
            - How the voice rule's thresholds were chosen (every English voice of espeak-ng,
              `photon-bench --only voice-calibration`, 6.8 min, not run here) is in docs/voice.md.

            ## Where a cold key spends its time

            Each cold key above goes: the `photon` front end starts, finds no daemon and execs
            `photon-cli`, which reads the store and this installation's identity, connects,
            makes the TLS context, handshakes, opens the brand's session, sends, closes and
            exits. Run with `PHOTON_TIMINGS=1`, photon-cli prints when each phase ended
            (CLOCK_MONOTONIC); the benchmark stamps the spawn and the moment its `waitpid` returns
            on the same clock, so a table's total is what its cold row measures. Anyone can do
            the same: `PHOTON_TIMINGS=1 photon key TV home` prints one JSON line on stderr. While
            `photon serve` runs, the front end sends a key itself and never runs photon-cli: its
            line then says `"route":"photon serve (front end)"` and marks the socket connected, the
            request written, the daemon's greeting and its answer.

            A TLS brand's handshake resumes the TV's last session after the first run (kept in
            the store, docs/security.md), as a user's second key press does: the TV signs
            nothing and sends no certificate. The Python peers run a full handshake every time.
            Before main, glibc probes the CPU: on this VM every CPUID instruction traps to the
            hypervisor (10–13 µs each, 68 of them in glibc's start, in each of the two programs),
            which is most of "photon main" and half of "photon-cli main". photon-cli does not
            link OpenSSL: it opens it on first use (COpenSSLLoader), on the warm-up's thread, so
            a key to a TV without TLS never loads it.
            Release builds link libstdc++ and libgcc into photon-cli and give the Swift runtime
            its arguments without reading /proc/self/maps (Package.swift says how).
            While photon-cli reads its arguments and the store, a second thread makes the one
            client TLS context every connection of the process uses, then the event loop
            ("network warm-up", on the other core: OpenSSL's first use, opening it included);
            whatever uses OpenSSL first — a TLS connection, a Fire TV's ADB key, an Apple TV's
            pair-verify — waits for it rather than initialise OpenSSL at the same time. The installation's TLS identity is read only when a TV asks for a
            client certificate, which a resumed handshake never does. A session opened for a
            command sends it before its own state reads (power, volume, the app), and an LG
            session opened for a button connects its pointer socket while it registers.
            The cold rows above alternate with the Python peer's run, which leaves the other
            core idle; the tables below run their keys back to back. The difference is this
            VM's: its kernel runs with `haltpoll.guest_halt_poll_ns=0`, so a vCPU with nothing
            to do halts at once, and each wake of a halted one goes through the hypervisor. A
            cold key wakes the other core about 35 times (the warm-up, the task pool, the event
            loop and the emulated TV take turns; inter-processor interrupts counted over one
            key), so the same key is slower after the machine sat idle: each table's last line
            says by how much.
            Before that thread starts, photon-cli maps its .bss writable in one call: each
            page the runtime first read and then wrote would otherwise cost a TLB flush of the
            other core, an inter-processor interrupt this VM makes dear. photon-cli's main
            is synchronous (an async main's thread leaves through `pthread_exit`, which loads
            libgcc_s to unwind it before the first task may run).

            \(ColdKeyBreakdown.sections.withLock { $0 }.joined(separator: "\n\n"))

            """
    }

    static func pythonVersion() -> String {
        (try? runProcess(python, ["-c", "import sys; print(sys.version.split()[0])"]))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "?"
    }

    static func runPython(_ arguments: [String]) throws -> [String: Any] {
        let output = try runProcess(python, [pythonScript] + arguments)
        guard let object = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any] else {
            throw PhotonError(.internal, "the Python baseline printed no JSON: \(output)")
        }
        return object
    }

    static func runProcess(_ path: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        try withChildSignalsUnblocked { try process.run() }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw PhotonError(.internal, "\(path) \(arguments.first ?? "") failed", hint: "run `make test` first to create .venv")
        }
        return String(decoding: data, as: UTF8.self)
    }

    static func serveTLSEcho(_ listener: TLSListener) async {
        await withTaskGroup(of: Void.self) { group in
            while !Task.isCancelled {
                guard let pending = try? await listener.acceptPending() else { break }
                group.addTask {
                    guard let stream = try? await pending.handshake() else { return }
                    while let bytes = try? await stream.read(maxLength: 256 * 1024, timeout: .seconds(60)), !bytes.isEmpty {
                        guard (try? await stream.write(bytes, timeout: .seconds(30))) != nil else { break }
                    }
                    await stream.close()
                }
            }
        }
    }

    static func serveWebSocketEcho(_ listener: TCPListener) async {
        await withTaskGroup(of: Void.self) { group in
            while !Task.isCancelled {
                guard let stream = try? await listener.accept() else { break }
                group.addTask {
                    guard let request = try? await HTTPServerRequest.read(from: stream, timeout: .seconds(5)),
                        let ws = try? await request.upgrade(maxMessageSize: 1 << 26)
                    else { return }
                    while let message = try? await ws.receive(timeout: .seconds(60)) {
                        guard (try? await ws.send(message)) != nil else { break }
                    }
                    await stream.close()
                }
            }
        }
    }
}
