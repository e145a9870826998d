import AppleTV
import AppleTVEmulator
import Foundation
import PhotonCore
import PhotonEmulatorSupport
import PhotonNet
import PhotonStore

/// Apple TV rows of `make bench`: cold CLI key press (connect, pair-verify, session start,
/// one HID press), warm key latency and throughput over one verified session, each against
/// pyatv 0.18.0 on the same emulated Apple TV in the same run.
enum AppleTVBench {
    static func run(python: String, repositoryRoot: URL) async throws -> [String] {
        let receipts = AndroidTVBench.Receipts()
        let codes = Locked<[String]>([])
        var configuration = EmulatedAppleTV.Configuration()
        configuration.port = 0
        configuration.pin = "2468"
        let tv = try EmulatedAppleTV.start(configuration) { event in
            if event.name == "key" { receipts.add(event.time) }
            if event.name == "pairing_code", let code = event["code"]?.string { codes.withLock { $0.append(code) } }
        }
        defer { Task { await tv.stop() } }

        let bench = try await BenchHome.make("appletv")
        defer { bench.remove() }
        let (home, store, context) = (bench.url, bench.store, bench.context)
        let adapter = AppleTVAdapter()
        var paired = try await adapter.pairing(with: Endpoint(host: "127.0.0.1", port: tv.port), options: AdapterOptionValues(), context: context)
            .run(responder: AndroidTVBench.CodeFromEmulator(codes: codes))
        paired.device.nickname = "bench-appletv"
        try await store.save(paired)

        // pyatv pairs once, before anything is timed.
        let script = repositoryRoot.appendingPathComponent("Benchmarks/peers/pyatv_bench.py").path
        let port = String(tv.port)
        let identifier = configuration.identifier
        let pairing = try AndroidTVBench.runJSON(python, [script, "pair", "127.0.0.1", port, identifier, "2468"])
        guard let credentials = pairing["credentials"] as? String else { throw PhotonError(.internal, "pyatv did not pair: \(pairing)") }

        let photon = repositoryRoot.appendingPathComponent(".build/release/photon").path
        return try await KeyBench.rows(
            label: "Apple TV", receipts: receipts, photon: photon, photonArguments: ["key", "bench-appletv", "home", "--home", home.path],
            python: python, pythonArguments: { [script, $0, "127.0.0.1", port, identifier, credentials] + $1 },
            openSession: { try await adapter.openSession(device: paired.device, secrets: paired.secrets, context: context) })
    }
}
