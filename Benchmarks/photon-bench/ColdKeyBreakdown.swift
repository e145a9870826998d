import Foundation
import PhotonCore

/// Where a cold `photon key` spends its time, phase by phase: the command is run with
/// `PHOTON_TIMINGS=1`, and photon-cli's marks (CLOCK_MONOTONIC, like our spawn time) give
/// each phase's length; the table shows each phase's median over the runs.
enum ColdKeyBreakdown {
    /// The sections measured so far, one per brand, for docs/benchmarks.md.
    static let sections = Locked<[String]>([])

    static func measure(label: String, photon: String, arguments: [String], runs: Int = 15) throws {
        var phases: [String] = []
        var lengths: [String: [Double]] = [:]
        var totals: [Double] = []
        // Work on the other core (the TLS warm-up) is no step of the chain: when it ended.
        var concurrent: [String: [Double]] = [:]
        // The same two process starts doing nothing else, run between the keys: how fast
        // this machine starts a process while the table was measured (it drifts by a few
        // tens of percent over minutes), to read one table against another.
        var versionRuns: [Double] = []
        for _ in 0..<runs {
            versionRuns.append(try SpawnTimer.run(photon, ["--version"]).seconds)
            let all = try timedRun(photon, arguments)
            guard let first = all.first, let last = all.last else { continue }
            totals.append(last.1 - first.1)
            // A phase seen twice in a run (LG's second connection, for its pointer socket)
            // is its own row.
            var seen: [String: Int] = [:]
            let marks = all.filter { !$0.0.hasSuffix("(other core)") }.map { mark -> (String, Double) in
                seen[mark.0, default: 0] += 1
                return (seen[mark.0]! > 1 ? "\(mark.0) (again: \(seen[mark.0]!))" : mark.0, mark.1)
            }
            for mark in all where mark.0.hasSuffix("(other core)") { concurrent[mark.0, default: []].append(mark.1 - first.1) }
            for (previous, mark) in zip(marks, marks.dropFirst()) {
                if !phases.contains(mark.0) { phases.append(mark.0) }
                lengths[mark.0, default: []].append(mark.1 - previous.1)
            }
        }
        // The same key after the machine sat idle: this VM halts an idle vCPU at once (no
        // halt polling), and each wake of one on the key's path then costs, as after the
        // Python peer's run in the cold rows (which use the other core little).
        var afterIdle: [Double] = []
        for _ in 0..<7 {
            Thread.sleep(forTimeInterval: 0.2)
            afterIdle.append(try SpawnTimer.run(photon, arguments).seconds)
        }
        let total = Stats(samples: totals).p50
        var lines = [
            "### \(label): a cold `photon key TV home`, phase by phase (p50 of \(runs) runs)", "",
            "| phase (ends when…) | p50 | share of the median total |", "|---|---|---|",
        ]
        for phase in phases {
            let p50 = Stats(samples: lengths[phase] ?? []).p50
            lines.append("| \(phase) | \(ms(p50)) | \(String(format: "%.0f %%", p50 / total * 100)) |")
        }
        lines.append("| **total, spawn → reaped** | **\(ms(total))** | |")
        lines.append("")
        lines.append(
            "The machine meanwhile: `photon --version` (the front end, then photon-cli, nothing else), run between these keys, took \(ms(Stats(samples: versionRuns).p50)) (p50). The same key after 0.2 s with nothing running took \(ms(Stats(samples: afterIdle).p50)) (p50 of 7)."
        )
        for (phase, ends) in concurrent.sorted(by: { $0.key < $1.key }) {
            lines.append("")
            lines.append(
                "Meanwhile, on the other core: \(phase.replacingOccurrences(of: " (other core)", with: "")) \(ms(Stats(samples: ends).p50)) after the spawn (p50)."
            )
        }
        sections.withLock { $0.append(lines.joined(separator: "\n")) }
    }

    /// One run: its marks in order, the first being the spawn.
    static func timedRun(_ path: String, _ arguments: [String]) throws -> [(String, Double)] {
        let run = try SpawnTimer.run(path, arguments, environment: ["PHOTON_TIMINGS": "1"])
        let text = run.standardError
        guard run.status == 0,
            let line = text.split(separator: "\n").last(where: { $0.hasPrefix("{\"timings\"") }),
            let timings = try JSONValue.parse(Array(line.utf8))["timings"]?.arrayValue
        else { throw PhotonError(.internal, "\(path) printed no timings: \(text)") }
        let marks = timings.compactMap { entry -> (String, Double)? in
            guard let pair = entry.arrayValue, pair.count == 2, let name = pair[0].stringValue, let at = pair[1].doubleValue else { return nil }
            return (name, at)
        }
        // The last phase is the kernel's: from photon-cli's exit to the parent's waitpid
        // returning (what the cold rows also count).
        guard let spawned = marks.first(where: { $0.0 == "spawned" }) else { return marks }
        return marks + [("process gone (reaped by the parent)", spawned.1 + run.seconds)]
    }
}
