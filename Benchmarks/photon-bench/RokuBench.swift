import Foundation
import PhotonCore
import PhotonEmulatorSupport
import PhotonNet
import PhotonStore
import Roku
import RokuEmulator

/// Roku rows of `make bench`: cold CLI key press, warm key latency and throughput over one
/// session (one kept-alive HTTP connection), each against rokuecp on the same emulated
/// Roku in the same run.
enum RokuBench {
    struct NoQuestions: PairingResponder {
        func answer(_ challenge: PairingChallenge) async throws -> PairingAnswer { .wait }
    }

    static func run(python: String, repositoryRoot: URL) async throws -> [String] {
        let receipts = AndroidTVBench.Receipts()
        var configuration = EmulatedRoku.Configuration()
        configuration.port = 0
        let tv = try EmulatedRoku.start(configuration) { event in
            if event.name == "key" { receipts.add(event.time) }
        }
        defer { Task { await tv.stop() } }

        let bench = try await BenchHome.make("roku")
        defer { bench.remove() }
        let (home, store, context) = (bench.url, bench.store, bench.context)
        let adapter = RokuAdapter(pollInterval: .seconds(60))
        var paired = try await adapter.pairing(with: Endpoint(host: "127.0.0.1", port: tv.port), options: AdapterOptionValues(), context: context)
            .run(responder: NoQuestions())
        paired.device.nickname = "bench-roku"
        try await store.save(paired)

        let script = repositoryRoot.appendingPathComponent("Benchmarks/peers/roku_bench.py").path
        let photon = repositoryRoot.appendingPathComponent(".build/release/photon").path
        let port = String(tv.port)
        return try await KeyBench.rows(
            label: "Roku", receipts: receipts, photon: photon, photonArguments: ["key", "bench-roku", "home", "--home", home.path],
            python: python, pythonArguments: { [script, $0, "127.0.0.1", port] + $1 },
            openSession: { try await adapter.openSession(device: paired.device, secrets: paired.secrets, context: context) })
    }
}
