import Foundation
import Philips
import PhilipsEmulator
import PhotonCore
import PhotonEmulatorSupport
import PhotonNet
import PhotonStore

/// Philips rows of `make bench`: cold CLI key press, warm key latency and throughput over
/// one session (`input/key` POSTs over one kept-alive HTTPS connection with Digest), each
/// against ha-philipsjs on the same emulated TV in the same run, both with the pairing made
/// here.
enum PhilipsBench {
    static func run(python: String, repositoryRoot: URL) async throws -> [String] {
        let receipts = AndroidTVBench.Receipts()
        var configuration = EmulatedPhilips.Configuration()
        configuration.httpsPort = 0
        configuration.httpPort = 0
        configuration.pin = "4826"
        let tv = try EmulatedPhilips.start(configuration) { event in
            if event.name == "key" { receipts.add(event.time) }
        }
        defer { Task { await tv.stop() } }

        let bench = try await BenchHome.make("philips")
        defer { bench.remove() }
        let (home, store, context) = (bench.url, bench.store, bench.context)
        let adapter = PhilipsAdapter()
        var options = AdapterOptionValues()
        options.ports["http"] = tv.httpPort
        var paired = try await adapter.pairing(with: Endpoint(host: "127.0.0.1", port: tv.httpsPort), options: options, context: context)
            .run(responder: BenchPINUser(fingerprint: tv.fingerprint))
        paired.device.nickname = "bench-philips"
        try await store.save(paired)
        let user = paired.secrets[PhilipsAdapter.deviceIDSecret] ?? ""
        let password = paired.secrets[PhilipsAdapter.authKeySecret] ?? ""

        let script = repositoryRoot.appendingPathComponent("Benchmarks/peers/philips_bench.py").path
        let photon = repositoryRoot.appendingPathComponent(".build/release/photon").path
        let ports = "\(tv.httpsPort):\(tv.httpPort)"
        return try await KeyBench.rows(
            label: "Philips", receipts: receipts, photon: photon, photonArguments: ["key", "bench-philips", "home", "--home", home.path],
            python: python, pythonArguments: { [script, $0, ports, user, password] + $1 },
            openSession: { try await adapter.openSession(device: paired.device, secrets: paired.secrets, context: context) })
    }
}
