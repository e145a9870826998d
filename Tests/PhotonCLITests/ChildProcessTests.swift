import Foundation
import Glibc
import PhotonTestSupport
import Testing

/// The processes tests start (daemons, emulators, Python peers, tmux) must end when told
/// to: a child that inherited a blocked SIGTERM ignores it, and one that outlives its test
/// is a leak.
@Suite struct ChildProcessTests {
    @Test func aStartedProcessEndsOnSIGTERMNotOnTheKillFallback() async throws {
        let sleeper = try TestProcess("/bin/sleep", ["30"])
        let blocked = try String(contentsOfFile: "/proc/\(sleeper.process.processIdentifier)/status", encoding: .utf8)
            .split(separator: "\n").first { $0.hasPrefix("SigBlk:") }
        #expect(blocked?.split(separator: "\t").last == "0000000000000000", "the child's blocked signals: \(blocked ?? "?")")
        sleeper.terminate()
        #expect(sleeper.process.terminationReason == .uncaughtSignal)
        #expect(sleeper.process.terminationStatus == SIGTERM)
    }

    @Test func aCommandRunToCompletionSeesNoBlockedSignal() throws {
        let result = try TestEnvironment.run("/bin/sh", ["-c", "grep SigBlk /proc/self/status"])
        #expect(result.output.contains("0000000000000000"), "\(result.output)")
    }
}
