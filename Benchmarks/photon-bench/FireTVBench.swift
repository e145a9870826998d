import FireTV
import FireTVEmulator
import Foundation
import PhotonCore
import PhotonEmulatorSupport
import PhotonNet
import PhotonStore

/// Fire TV rows of `make bench`: cold CLI key press, warm key latency and throughput over
/// one session (one ADB connection, a shell stream per key), each against adb-shell on the
/// same emulated Fire TV in the same run.
enum FireTVBench {
    struct Consenting: PairingResponder {
        func answer(_ challenge: PairingChallenge) async throws -> PairingAnswer {
            if case .allowUnencrypted = challenge { return .trust(true) }
            return .wait
        }
    }

    static func run(python: String, repositoryRoot: URL) async throws -> [String] {
        let receipts = AndroidTVBench.Receipts()
        var configuration = EmulatedFireTV.Configuration()
        configuration.port = 0
        let tv = try EmulatedFireTV.start(configuration) { event in
            if event.name == "key" { receipts.add(event.time) }
        }
        defer { Task { await tv.stop() } }

        let bench = try await BenchHome.make("firetv")
        defer { bench.remove() }
        let (home, store, context) = (bench.url, bench.store, bench.context)
        let adapter = FireTVAdapter(pollInterval: .seconds(600))
        var paired = try await adapter.pairing(with: Endpoint(host: "127.0.0.1", port: tv.port), options: AdapterOptionValues(), context: context)
            .run(responder: Consenting())
        paired.device.nickname = "bench-firetv"
        try await store.save(paired)

        // adb-shell's key, made and allowed once before anything is timed.
        let keys = home.appendingPathComponent("adb-shell")
        try FileManager.default.createDirectory(at: keys, withIntermediateDirectories: true)
        let script = repositoryRoot.appendingPathComponent("Benchmarks/peers/adb_shell_bench.py").path
        _ = try AndroidTVBench.timeProcess(python, [script, "cold", "127.0.0.1", String(tv.port), keys.path])

        let photon = repositoryRoot.appendingPathComponent(".build/release/photon").path
        let port = String(tv.port)
        return try await KeyBench.rows(
            label: "Fire TV", receipts: receipts, photon: photon, photonArguments: ["key", "bench-firetv", "home", "--home", home.path],
            python: python, pythonArguments: { [script, $0, "127.0.0.1", port, keys.path] + $1 },
            openSession: { try await adapter.openSession(device: paired.device, secrets: paired.secrets, context: context) })
    }
}
