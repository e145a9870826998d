import Foundation
import PhotonCore
import PhotonEmulatorSupport
import PhotonNet
import PhotonStore
import SamsungTV
import SamsungTVEmulator

/// Samsung rows of `make bench`: cold CLI key press, warm key latency and throughput over
/// one session (pacing off), each against samsungtvws (inter-key delay 0) on the same
/// emulator in the same run.
enum SamsungBench {
    struct Trusting: PairingResponder {
        func answer(_ challenge: PairingChallenge) async throws -> PairingAnswer {
            if case .trustCertificate = challenge { return .trust(true) }
            return .wait
        }
    }

    static func run(python: String, repositoryRoot: URL) async throws -> [String] {
        let receipts = AndroidTVBench.Receipts()
        var configuration = EmulatedSamsungTV.Configuration()
        configuration.port = 0
        configuration.restPort = 0
        configuration.pingInterval = .seconds(60)
        let tv = try await EmulatedSamsungTV.start(configuration) { event in
            if event.name == "key" { receipts.add(event.time) }
        }
        defer { Task { await tv.stop() } }

        let home = FileManager.default.temporaryDirectory.appendingPathComponent("photon-bench-samsung-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: home) }
        let store = Store(paths: StorePaths(home: home))
        let identity = try await store.clientIdentity().clientIdentity
        let context = AdapterContext(connector: NetConnector(), clientIdentity: identity, clientName: "bench", timeout: .seconds(10))
        let adapter = SamsungTVAdapter(keyPacing: .zero)
        var paired = try await adapter.pairing(
            with: Endpoint(host: "127.0.0.1", port: tv.port), options: ["rest-port": String(tv.restPort)], context: context
        ).run(responder: Trusting())
        paired.device.nickname = "bench-samsung"
        try await store.save(paired)

        // samsungtvws gets its own token from the same TV (its prompt is auto-accepted).
        let tokenFile = home.appendingPathComponent("samsungtvws.token").path
        let script = repositoryRoot.appendingPathComponent("Benchmarks/peers/samsung_bench.py").path
        let photon = repositoryRoot.appendingPathComponent(".build/release/photon").path
        let port = String(tv.port)
        _ = try AndroidTVBench.runJSON(python, [script, "cold", "127.0.0.1", port, tokenFile])
        var rows: [String] = []

        var ours: [Double] = []
        var theirs: [Double] = []
        for _ in 0..<15 {
            ours.append(try AndroidTVBench.timeProcess(photon, ["key", "bench-samsung", "home", "--home", home.path]))
            theirs.append(try AndroidTVBench.timeProcess(python, [script, "cold", "127.0.0.1", port, tokenFile]))
        }
        let coldOurs = Stats(samples: ours), coldTheirs = Stats(samples: theirs)
        rows.append("| Samsung: cold `photon key TV home`, process start to exit (p50) | \(ms(coldOurs.p50)) | \(ms(coldTheirs.p50)) | \(ratio(coldTheirs.p50, coldOurs.p50)) |")

        let warmCount = 300
        let session = try await adapter.openSession(device: paired.device, secrets: paired.secrets, context: context)
        var latencies: [Double] = []
        for _ in 0..<warmCount {
            let before = receipts.count
            let sent = EmulatorEvent.monotonicSeconds()
            try await session.send(.key(.key(.up), .press))
            try await receipts.waitFor(before + 1)
            latencies.append(receipts.since(before)[0] - sent)
            try await Task.sleep(for: .milliseconds(4))
        }
        let before = receipts.count
        let pyWarm = try AndroidTVBench.runJSON(python, [script, "warm", "127.0.0.1", port, tokenFile, String(warmCount)])
        try await receipts.waitFor(before + warmCount)
        let pyLatencies = zip(pyWarm["send_times"] as? [Double] ?? [], receipts.since(before)).map { $1 - $0 }
        let warmOurs = Stats(samples: latencies), warmTheirs = Stats(samples: pyLatencies)
        rows.append("| Samsung: warm key latency, send → emulator receipt (p50) | \(ms(warmOurs.p50)) | \(ms(warmTheirs.p50)) | \(ratio(warmTheirs.p50, warmOurs.p50)) |")
        rows.append("| Samsung: warm key latency, send → emulator receipt (p99) | \(ms(warmOurs.p99)) | \(ms(warmTheirs.p99)) | \(ratio(warmTheirs.p99, warmOurs.p99)) |")

        let burst = 5000
        let start0 = receipts.count
        let t0 = EmulatorEvent.monotonicSeconds()
        for _ in 0..<burst { try await session.send(.key(.key(.down), .press)) }
        try await receipts.waitFor(start0 + burst)
        let oursRate = Double(burst) / (receipts.since(start0).last! - t0)
        await session.close()
        let start1 = receipts.count
        let pyBurst = try AndroidTVBench.runJSON(python, [script, "burst", "127.0.0.1", port, tokenFile, String(burst)])
        try await receipts.waitFor(start1 + burst)
        let pyRate = Double(burst) / (receipts.since(start1).last! - (pyBurst["start"] as? Double ?? 0))
        rows.append("| Samsung: sustained keys per second over one session (pacing off) | \(String(format: "%.0f /s", oursRate)) | \(String(format: "%.0f /s", pyRate)) | \(ratio(oursRate, pyRate)) |")
        return rows
    }
}
