import Foundation
import PhotonCore
import PhotonEmulatorSupport

/// The three key-press measurements every brand gets, each against its Python peer on
/// the same emulator: cold CLI process, warm latency, sustained rate.
enum KeyBench {
    static func rows(
        label: String, receipts: AndroidTVBench.Receipts, photon: String, photonArguments: [String], python: String,
        pythonArguments: (_ mode: String, _ extra: [String]) -> [String], openSession: () async throws -> any RemoteSession
    ) async throws -> [String] {
        var rows: [String] = []

        // 1. Cold: a whole process per key press.
        var ours: [Double] = []
        var theirs: [Double] = []
        for _ in 0..<15 {
            ours.append(try AndroidTVBench.timeProcess(photon, photonArguments))
            theirs.append(try AndroidTVBench.timeProcess(python, pythonArguments("cold", [])))
        }
        let coldOurs = Stats(samples: ours)
        let coldTheirs = Stats(samples: theirs)
        try ColdKeyBreakdown.measure(label: label, photon: photon, arguments: photonArguments)
        rows.append(
            "| \(label): cold `photon key TV home`, process start to exit (p50) | \(ms(coldOurs.p50)) | \(ms(coldTheirs.p50)) | \(ratio(coldTheirs.p50, coldOurs.p50)) |"
        )

        // 2. Warm latency: one key at a time over one session, send → emulator receipt.
        let warmCount = 300
        let session = try await openSession()
        var latencies: [Double] = []
        for _ in 0..<warmCount {
            let before = receipts.count
            let sent = EmulatorEvent.monotonicSeconds()
            try await session.send(.key(.key(.up), .press))
            try await receipts.waitFor(before + 1)
            latencies.append(receipts.since(before)[0] - sent)
            try await Task.sleep(for: .milliseconds(4))
        }
        let before = receipts.count
        let pyWarm = try AndroidTVBench.runJSON(python, pythonArguments("warm", [String(warmCount)]))
        try await receipts.waitFor(before + warmCount)
        let pyLatencies = zip(pyWarm["send_times"] as? [Double] ?? [], receipts.since(before)).map { $1 - $0 }
        let warmOurs = Stats(samples: latencies)
        let warmTheirs = Stats(samples: pyLatencies)
        rows.append(
            "| \(label): warm key latency, send → emulator receipt (p50) | \(ms(warmOurs.p50)) | \(ms(warmTheirs.p50)) | \(ratio(warmTheirs.p50, warmOurs.p50)) |"
        )
        rows.append(
            "| \(label): warm key latency, send → emulator receipt (p99) | \(ms(warmOurs.p99)) | \(ms(warmTheirs.p99)) | \(ratio(warmTheirs.p99, warmOurs.p99)) |"
        )

        // 3. Throughput: keys back to back over one session, first send → last receipt.
        let burst = 5000
        let start0 = receipts.count
        let t0 = EmulatorEvent.monotonicSeconds()
        for _ in 0..<burst { try await session.send(.key(.key(.down), .press)) }
        try await receipts.waitFor(start0 + burst)
        let oursRate = Double(burst) / (receipts.since(start0).last! - t0)
        await session.close()
        let start1 = receipts.count
        let pyBurst = try AndroidTVBench.runJSON(python, pythonArguments("burst", [String(burst)]))
        try await receipts.waitFor(start1 + burst)
        let pyRate = Double(burst) / (receipts.since(start1).last! - (pyBurst["start"] as? Double ?? 0))
        rows.append(
            "| \(label): sustained keys per second over one session | \(String(format: "%.0f /s", oursRate)) | \(String(format: "%.0f /s", pyRate)) | \(ratio(oursRate, pyRate)) |"
        )
        return rows
    }
}
