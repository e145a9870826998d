import Foundation
import PhotonCore
import PhotonDiscovery
import PhotonNet

/// Discovery rows of `make bench`: time from an announcement to its discovery through the
/// loopback avahi-daemon, and the `photon probe` time for addresses where nothing answers.
enum DiscoveryBench {
    static func run(repositoryRoot: URL) async throws -> [String] {
        var rows: [String] = []
        var latencies: [Double] = []
        var totals: [Double] = []
        for run in 0..<5 {
            let name = "Photon Bench \(getpid())-\(run)"
            let browser = try AvahiBrowser(types: ["_photonbench._tcp"])
            try await Task.sleep(for: .milliseconds(200))
            let foundAt = Locked<ContinuousClock.Instant?>(nil)
            let watcher = Task {
                for await event in browser.events {
                    if case .found(let s) = event, s.name == name {
                        foundAt.withLock { $0 = .now }
                        return
                    }
                }
            }
            let start = ContinuousClock.now
            let publisher = try AvahiPublisher(name: name, type: "_photonbench._tcp", port: 40000, txt: ["bt": "02:00:00:00:00:01"])
            try await withTimeout(.seconds(10), "the announcement") { try await publisher.established.value() }
            let establishedAt = ContinuousClock.now
            _ = try? await withTimeout(.seconds(10), "discovery") { await watcher.value }
            browser.stop()
            withExtendedLifetime(publisher) {}
            if let found = foundAt.withLock({ $0 }) {
                latencies.append(max(0, (found - establishedAt).seconds))
                totals.append((found - start).seconds)
            }
        }
        let stats = Stats(samples: latencies)
        rows.append(
            "| Discovery: announcement (daemon done probing) → resolved result (p50 of \(latencies.count)) | \(ms(stats.p50)) | — | goal < 100 ms |")
        rows.append(
            "| Discovery: registration → resolved result, including mDNS probing (p50) | \(ms(Stats(samples: totals).p50)) | — | RFC 6762 probing ≈ 750 ms |"
        )

        // Probe: a closed port (refused at once) and a port that accepts but never answers.
        let photon = repositoryRoot.appendingPathComponent(".build/release/photon").path
        // Accepts through the kernel backlog, never answers.
        let silent = try TCPListener()
        defer { silent.close() }
        let silentPort = String(silent.port)
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("photon-bench-probe-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: home) }
        func timeProbe(_ arguments: [String]) -> Double {
            let start = ContinuousClock.now
            let process = Process()
            process.executableURL = URL(fileURLWithPath: photon)
            process.arguments = ["probe", "127.0.0.1", "--home", home.path] + arguments
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try? withChildSignalsUnblocked { try process.run() }
            process.waitUntilExit()
            return (ContinuousClock.now - start).seconds
        }
        // The unicast DNS-SD query goes to a closed port too: the loopback avahi-daemon would
        // hear it and stay silent, as a responder with nothing to say does. Fifteen runs (each
        // ~10 ms): five once gave a p50 of 52 ms, where the same rows alone gave 12 ms.
        let closed = Stats(
            samples: (0..<15).map { _ in timeProbe(["--pairing-port", "1", "--rest-port", "2", "--mdns-port", "3", "--timeout", "1"]) })
        let hanging = Stats(
            samples: (0..<3).map { _ in
                timeProbe(["--pairing-port", silentPort, "--rest-port", silentPort, "--mdns-port", "3", "--timeout", "1"])
            })
        rows.append("| `photon probe` with both ports closed (p50 of 15, --timeout 1) | \(ms(closed.p50)) | — | refused at once |")
        rows.append("| `photon probe` with ports that accept but never answer (p50, --timeout 1) | \(ms(hanging.p50)) | — | goal ≈ the timeout |")
        return rows
    }
}
