import AndroidTV
import AndroidTVEmulator
import Foundation
import PhotonCore
import PhotonEmulatorSupport
import PhotonNet
import PhotonStore

/// Android TV rows of `make bench`: cold CLI key press, warm key latency and sustained
/// keys per second, each against androidtvremote2 driving the same emulator in the same run.
enum AndroidTVBench {
    /// Key events the emulator received, with their CLOCK_MONOTONIC times.
    final class Receipts: Sendable {
        private let times = Locked<[Double]>([])
        func add(_ t: Double) { times.withLock { $0.append(t) } }
        var count: Int { times.withLock { $0.count } }
        func since(_ n: Int) -> [Double] { times.withLock { Array($0.dropFirst(n)) } }
        func waitFor(_ n: Int, timeout: Duration = .seconds(30)) async throws {
            let end = ContinuousClock.now + timeout
            while count < n {
                guard ContinuousClock.now < end else { throw PhotonError(.timeout, "the emulator saw \(count) of \(n) keys") }
                try await Task.sleep(for: .microseconds(200))
            }
        }
    }

    static func run(python: String, repositoryRoot: URL) async throws -> [String] {
        let receipts = Receipts()
        let codes = Locked<[String]>([])
        var configuration = EmulatedAndroidTV.Configuration()
        configuration.remotePort = 0
        configuration.pingInterval = .seconds(60)
        let tv = try await EmulatedAndroidTV.start(configuration) { event in
            if event.name == "key" { receipts.add(event.time) }
            if event.name == "pairing_code", let code = event["code"]?.string { codes.withLock { $0.append(code) } }
        }
        defer { Task { await tv.stop() } }

        // Pair once through the library, store it like the CLI does.
        let bench = try await BenchHome.make("atv")
        defer { bench.remove() }
        let (home, store, context) = (bench.url, bench.store, bench.context)
        let identity = context.clientIdentity
        let flow = AndroidTVAdapter().pairing(
            with: Endpoint(host: "127.0.0.1", port: tv.remotePort), options: AdapterOptionValues(ports: ["pairing": tv.pairingPort]), context: context
        )
        var paired = try await flow.run(responder: CodeFromEmulator(codes: codes))
        paired.device.nickname = "bench-tv"
        try await store.save(paired)

        let certPath = home.appendingPathComponent("client.pem").path
        let keyPath = home.appendingPathComponent("client.key").path
        try identity.certificatePEM.write(toFile: certPath, atomically: true, encoding: .utf8)
        try identity.privateKeyPEM.write(toFile: keyPath, atomically: true, encoding: .utf8)
        let script = repositoryRoot.appendingPathComponent("Benchmarks/peers/atv_bench.py").path
        let photon = repositoryRoot.appendingPathComponent(".build/release/photon").path
        let port = String(tv.remotePort)
        return try await KeyBench.rows(
            label: "Android TV", receipts: receipts, photon: photon, photonArguments: ["key", "bench-tv", "home", "--home", home.path],
            python: python, pythonArguments: { [script, $0, "127.0.0.1", port, certPath, keyPath] + $1 },
            openSession: { try await AndroidTVAdapter().openSession(device: paired.device, secrets: paired.secrets, context: context) })
    }

    struct CodeFromEmulator: PairingResponder {
        let codes: Locked<[String]>
        func answer(_ challenge: PairingChallenge) async throws -> PairingAnswer {
            switch challenge {
            case .trustCertificate: return .trust(true)
            case .confirmOnTV: return .wait
            case .allowUnencrypted: return .trust(false)
            case .enterCode:
                for _ in 0..<1000 {
                    if let code = codes.withLock({ $0.last }) { return .code(code) }
                    try await Task.sleep(for: .milliseconds(5))
                }
                throw PhotonError(.timeout, "the emulator showed no code")
            }
        }
    }

    /// Spawn to exit of one run (see `SpawnTimer`); a failed run stops the benchmark.
    static func timeProcess(_ path: String, _ arguments: [String]) throws -> Double {
        let run = try SpawnTimer.run(path, arguments)
        guard run.status == 0 else { throw PhotonError(.internal, "\(path) failed (\(run.status)): \(run.standardError)") }
        return run.seconds
    }

    static func runJSON(_ path: String, _ arguments: [String]) throws -> [String: Any] {
        let output = try Benchmarks.runProcess(path, arguments)
        guard let object = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any] else {
            throw PhotonError(.internal, "no JSON from \(arguments.first ?? path)")
        }
        return object
    }
}
