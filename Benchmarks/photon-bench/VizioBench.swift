import Foundation
import PhotonCore
import PhotonEmulatorSupport
import PhotonNet
import PhotonStore
import Vizio
import VizioEmulator

/// Vizio rows of `make bench`: cold CLI key press, warm key latency and throughput over one
/// session (key commands over one kept-alive HTTPS connection), each against pyvizio on the
/// same emulated TV in the same run, both with the token paired here.
enum VizioBench {
    static func run(python: String, repositoryRoot: URL) async throws -> [String] {
        let receipts = AndroidTVBench.Receipts()
        var configuration = EmulatedVizio.Configuration()
        configuration.port = 0
        configuration.pin = "4826"
        let tv = try EmulatedVizio.start(configuration) { event in
            if event.name == "key" { receipts.add(event.time) }
        }
        defer { Task { await tv.stop() } }

        let bench = try await BenchHome.make("vizio")
        defer { bench.remove() }
        let (home, store, context) = (bench.url, bench.store, bench.context)
        let adapter = VizioAdapter(pollInterval: .seconds(60))
        var paired = try await adapter.pairing(with: Endpoint(host: "127.0.0.1", port: tv.port), options: AdapterOptionValues(), context: context)
            .run(responder: BenchPINUser(fingerprint: tv.fingerprint))
        paired.device.nickname = "bench-vizio"
        try await store.save(paired)
        let token = paired.secrets[VizioAdapter.tokenSecret] ?? ""

        let script = repositoryRoot.appendingPathComponent("Benchmarks/peers/vizio_bench.py").path
        let photon = repositoryRoot.appendingPathComponent(".build/release/photon").path
        let address = "127.0.0.1:\(tv.port)"
        return try await KeyBench.rows(
            label: "Vizio", receipts: receipts, photon: photon, photonArguments: ["key", "bench-vizio", "home", "--home", home.path],
            python: python, pythonArguments: { [script, $0, address, token] + $1 },
            openSession: { try await adapter.openSession(device: paired.device, secrets: paired.secrets, context: context) })
    }
}
