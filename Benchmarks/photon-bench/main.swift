import Foundation
import PhotonCore
import PhotonCrypto
import PhotonNet

// Release-built benchmarks for `make bench`. Everything runs on loopback against servers
// this process starts; Python baselines are measured against the same servers in the
// same run. Writes a Markdown table (default docs/benchmarks.md).

var outputPath = "docs/benchmarks.md"
var arguments = Array(CommandLine.arguments.dropFirst())
while let first = arguments.first {
    arguments.removeFirst()
    if first == "--emulators", arguments.count >= 5, let count = Int(arguments[0]) {
        // The child process of the fleet rows: COUNT emulated TVs (see EmulatorFleet).
        try await EmulatorFleet.runChild(
            count: count, template: URL(fileURLWithPath: arguments[2]), directory: URL(fileURLWithPath: arguments[4]))
    }
    if first == "--fleet", let text = arguments.first, let count = Int(text) {
        // The daemon rows up to a fleet of COUNT TVs (500, 2000 or 5000), printed.
        let daemon = try await DaemonBench.run(repositoryRoot: Benchmarks.repositoryRoot, tvCount: count)
        print((daemon.rows + daemon.notes).joined(separator: "\n"))
        exit(0)
    }
    if first == "--daemon-only" {
        // Just the daemon rows, for working on them: printed, not written.
        let daemon = try await DaemonBench.run(repositoryRoot: Benchmarks.repositoryRoot)
        print((daemon.rows + daemon.notes).joined(separator: "\n"))
        exit(0)
    }
    if first == "--only", let brand = arguments.first {
        // One brand's key rows, for working on them: printed, not written.
        let python = Benchmarks.python
        let root = Benchmarks.repositoryRoot
        let rows: [String]
        switch brand {
        case "androidtv": rows = try await AndroidTVBench.run(python: python, repositoryRoot: root)
        case "samsung": rows = try await SamsungBench.run(python: python, repositoryRoot: root)
        case "roku": rows = try await RokuBench.run(python: python, repositoryRoot: root)
        case "lg": rows = try await LGBench.run(python: python, repositoryRoot: root)
        case "firetv": rows = try await FireTVBench.run(python: python, repositoryRoot: root)
        case "appletv": rows = try await AppleTVBench.run(python: python, repositoryRoot: root)
        case "sony": rows = try await SonyBench.run(python: python, repositoryRoot: root)
        case "vizio": rows = try await VizioBench.run(python: python, repositoryRoot: root)
        case "philips": rows = try await PhilipsBench.run(python: python, repositoryRoot: root)
        case "homekit": rows = try await HomeKitBench.run(python: python, repositoryRoot: root)
        case "discovery": rows = try await DiscoveryBench.run(repositoryRoot: root)
        case "voice":
            let voice = try await VoiceBench.run()
            rows = voice.rows + voice.notes
        case "voice-calibration":
            rows = try VoiceCalibration.run(sweep: arguments.contains("--sweep"))
        default:
            print(
                "--only takes androidtv, samsung, roku, lg, firetv, appletv, sony, vizio, philips, homekit, discovery, voice or voice-calibration (--sweep)"
            )
            exit(2)
        }
        print(rows.joined(separator: "\n"))
        // The brand's cold-key breakdown, when its rows measured one.
        for section in ColdKeyBreakdown.sections.withLock({ $0 }) { print("\n" + section) }
        exit(0)
    }
    if first == "--output", let path = arguments.first {
        outputPath = path
        arguments.removeFirst()
    }
}

let report = try await Benchmarks.run()
try report.write(toFile: outputPath, atomically: true, encoding: .utf8)
print(report)
print("written to \(outputPath)")
