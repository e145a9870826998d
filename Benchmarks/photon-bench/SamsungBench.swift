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

        let bench = try await BenchHome.make("samsung")
        defer { bench.remove() }
        let (home, store, context) = (bench.url, bench.store, bench.context)
        let adapter = SamsungTVAdapter(keyPacing: .zero)
        var paired = try await adapter.pairing(
            with: Endpoint(host: "127.0.0.1", port: tv.port), options: AdapterOptionValues(ports: ["rest": tv.restPort]), context: context
        ).run(responder: Trusting())
        paired.device.nickname = "bench-samsung"
        try await store.save(paired)

        // samsungtvws gets its own token from the same TV (its prompt is auto-accepted).
        let tokenFile = home.appendingPathComponent("samsungtvws.token").path
        let script = repositoryRoot.appendingPathComponent("Benchmarks/peers/samsung_bench.py").path
        let photon = repositoryRoot.appendingPathComponent(".build/release/photon").path
        let port = String(tv.port)
        _ = try AndroidTVBench.runJSON(python, [script, "cold", "127.0.0.1", port, tokenFile])
        return try await KeyBench.rows(
            label: "Samsung", receipts: receipts, photon: photon, photonArguments: ["key", "bench-samsung", "home", "--home", home.path],
            python: python, pythonArguments: { [script, $0, "127.0.0.1", port, tokenFile] + $1 },
            openSession: { try await adapter.openSession(device: paired.device, secrets: paired.secrets, context: context) })
    }
}
