import Foundation
import PhotonCore
import PhotonEmulatorSupport
import PhotonNet
import PhotonStore
import Sony
import SonyEmulator

/// Sony rows of `make bench`: cold CLI key press, warm key latency and throughput over one
/// session (IRCC over one kept-alive HTTP connection), each against pybravia on the same
/// emulated Bravia in the same run, both with the TV's pre-shared key.
enum SonyBench {
    struct Consents: PairingResponder {
        func answer(_ challenge: PairingChallenge) async throws -> PairingAnswer { .trust(true) }
    }

    static func run(python: String, repositoryRoot: URL) async throws -> [String] {
        let receipts = AndroidTVBench.Receipts()
        var configuration = EmulatedSony.Configuration()
        configuration.port = 0
        configuration.psk = "bench-psk"
        let tv = try EmulatedSony.start(configuration) { event in
            if event.name == "key" { receipts.add(event.time) }
        }
        defer { Task { await tv.stop() } }

        let bench = try await BenchHome.make("sony")
        defer { bench.remove() }
        let (home, store, context) = (bench.url, bench.store, bench.context)
        let adapter = SonyAdapter(pollInterval: .seconds(60))
        var options = AdapterOptionValues()
        options.texts["psk"] = configuration.psk
        var paired = try await adapter.pairing(with: Endpoint(host: "127.0.0.1", port: tv.port), options: options, context: context)
            .run(responder: Consents())
        paired.device.nickname = "bench-sony"
        try await store.save(paired)

        let script = repositoryRoot.appendingPathComponent("Benchmarks/peers/sony_bench.py").path
        let photon = repositoryRoot.appendingPathComponent(".build/release/photon").path
        let port = String(tv.port)
        return try await KeyBench.rows(
            label: "Sony", receipts: receipts, photon: photon, photonArguments: ["key", "bench-sony", "home", "--home", home.path],
            python: python, pythonArguments: { [script, $0, "127.0.0.1", port, "bench-psk"] + $1 },
            openSession: { try await adapter.openSession(device: paired.device, secrets: paired.secrets, context: context) })
    }
}
