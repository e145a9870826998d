import Foundation
import LGWebOS
import LGWebOSEmulator
import PhotonCore
import PhotonNet
import PhotonStore

/// LG rows of `make bench`: cold CLI key press, warm key latency and throughput over one
/// session (keys over the pointer socket), each against aiowebostv 0.10.0 on the same
/// emulator in the same run.
enum LGBench {
    struct User: PairingResponder {
        func answer(_ challenge: PairingChallenge) async throws -> PairingAnswer {
            if case .trustCertificate = challenge { return .trust(true) }
            return .wait
        }
    }

    static func run(python: String, repositoryRoot: URL) async throws -> [String] {
        let receipts = AndroidTVBench.Receipts()
        var configuration = EmulatedLGTV.Configuration()
        configuration.port = 0
        configuration.plainPort = nil
        let tv = try await EmulatedLGTV.start(configuration) { event in
            if event.name == "key" { receipts.add(event.time) }
        }
        defer { Task { await tv.stop() } }
        let closed = try TCPListener(host: "127.0.0.1", port: 0)
        let closedPort = String(closed.port)
        closed.close()

        let bench = try await BenchHome.make("lg")
        defer { bench.remove() }
        let (home, store, context) = (bench.url, bench.store, bench.context)
        let adapter = LGWebOSAdapter()
        var paired = try await adapter.pairing(with: Endpoint(host: "127.0.0.1", port: tv.port!), options: AdapterOptionValues(), context: context)
            .run(responder: User())
        paired.device.nickname = "bench-lg"
        try await store.save(paired)

        let keyFile = home.appendingPathComponent("aiowebostv.key").path
        let script = repositoryRoot.appendingPathComponent("Benchmarks/peers/lg_bench.py").path
        let photon = repositoryRoot.appendingPathComponent(".build/release/photon").path
        let port = String(tv.port!)
        // aiowebostv pairs once (the emulator accepts) and keeps its key.
        _ = try AndroidTVBench.runJSON(python, [script, "cold", "127.0.0.1", port, closedPort, keyFile])
        return try await KeyBench.rows(
            label: "LG", receipts: receipts, photon: photon, photonArguments: ["key", "bench-lg", "home", "--home", home.path],
            python: python, pythonArguments: { [script, $0, "127.0.0.1", port, closedPort, keyFile] + $1 },
            openSession: { try await adapter.openSession(device: paired.device, secrets: paired.secrets, context: context) })
    }
}
