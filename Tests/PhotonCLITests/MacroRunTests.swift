import Foundation
import PhotonTestSupport
import Testing

/// `photon run` and `photon macro` against emulated TVs: timing from the TV's own
/// receipts, the first failure stopping the macro, wait-for on the TV's reports (and its
/// timeout), saved macros, and the daemon running a macro to its end after the client is
/// killed.
@Suite(.serialized) struct MacroRunTests {
    let e2e = AndroidTVEndToEndTests()

    func run(_ home: URL, _ arguments: [String], input: String? = nil) async throws -> TestProcess {
        try await e2e.finished(home, arguments, input: input)
    }

    static func times(_ events: [[String: Any]]) -> [Double] { events.compactMap { $0["t"] as? Double } }

    @Test func stepsRunInOrderWithTheirWaitsAndTheFirstFailureStopsTheMacro() async throws {
        let roku = try await EmulatorProcess.start(["roku", "--port", "0"])
        defer { roku.process.terminate() }
        let home = try await TestEnvironment.home("photon-macro")
        #expect(try await run(home, ["pair", "127.0.0.1:\(roku.port)", "--brand", "roku", "--name", "den"]).process.terminationStatus == 0)

        let timed = try await run(home, ["run", "den", "key home", "wait 400ms", "key up", "--json"])
        #expect(timed.process.terminationStatus == 0, "\(timed.standardError)")
        #expect(timed.standardOutput.split(separator: "\n").count == 3)
        #expect(timed.standardOutput.contains(#""step":2,"text":"wait 400ms","ok":true"#), "\(timed.standardOutput)")
        let keyTimes = Self.times(roku.events("key"))
        #expect(keyTimes.count == 2 && keyTimes[1] - keyTimes[0] >= 0.4, "\(keyTimes)")

        // Keys in a row are paced as `photon key` paces them (they came 0.5 ms apart before).
        let burst = try await run(home, ["run", "den", "key down down", "key select"])
        #expect(burst.process.terminationStatus == 0, "\(burst.standardError)")
        let burstTimes = Array(Self.times(roku.events("key")).suffix(3))
        #expect(burstTimes.count == 3 && zip(burstTimes, burstTimes.dropFirst()).allSatisfy { $1 - $0 >= 0.09 }, "\(burstTimes)")

        // A step the TV refuses (no such channel app): the steps after it are not sent.
        let failed = try await run(home, ["run", "den", "key home", "launch 999999", "key up"])
        #expect(failed.process.terminationStatus == 1, "\(failed.standardError)")
        #expect(
            failed.standardError.contains("step 2 (launch 999999)") && failed.standardError.contains("1 step after it"), "\(failed.standardError)")
        // A step the brand cannot do: exit 6, and nothing after it.
        let unsupported = try await run(home, ["run", "den", "notify hello", "key up"])
        #expect(unsupported.process.terminationStatus == 6, "\(unsupported.standardError)")
        // A typo anywhere: nothing at all is sent.
        let typo = try await run(home, ["run", "den", "key home", "lunch youtube"])
        #expect(typo.process.terminationStatus == 2)
        #expect(typo.standardError.contains("step 2"), "\(typo.standardError)")
        // A marker after them: the emulator prints in order, so once it shows, nothing else is coming.
        #expect(try await run(home, ["run", "den", "key back"]).process.terminationStatus == 0)
        try await Self.waitUntil { roku.events("key").count >= 7 }
        #expect(roku.events("key").compactMap { $0["key"] as? String } == ["Home", "Up", "Down", "Down", "Select", "Home", "Back"])

        // Saved macros: from a file with comments, run by name, listed, shown, deleted.
        let file = home.appendingPathComponent("evening.txt")
        try "# evening\nkey home\n\nwait 100ms\nlaunch youtube\n".write(to: file, atomically: true, encoding: .utf8)
        #expect(try await run(home, ["macro", "save", "evening", "-f", file.path]).process.terminationStatus == 0)
        #expect(try await run(home, ["macro", "save", "broken", "-f", "-"], input: "key home\nlunch x\n").process.terminationStatus == 2)
        #expect(try await run(home, ["macro", "list"]).standardOutput == "evening\n")
        #expect(try await run(home, ["macro", "show", "evening"]).standardOutput.contains("launch youtube"))
        let named = try await run(home, ["run", "den", "@evening", "key select"])
        #expect(named.process.terminationStatus == 0, "\(named.standardError)")
        #expect(roku.events("launch").compactMap { $0["app"] as? String } == ["837"])
        #expect(try await run(home, ["run", "den", "@nothing"]).process.terminationStatus == 1)
        #expect(try await run(home, ["macro", "delete", "evening"]).process.terminationStatus == 0)
        #expect(try await run(home, ["macro", "list"]).standardOutput.isEmpty)
        #expect(try await run(home, ["macro", "save", "../x", "-f", file.path]).process.terminationStatus == 2)
        // Steps as arguments, as `photon run` takes them (newcomer #23); neither steps nor a
        // file is a usage error that names both ways.
        #expect(try await run(home, ["macro", "save", "quick", "launch youtube", "wait 100ms"]).process.terminationStatus == 0)
        #expect(try await run(home, ["macro", "show", "quick"]).standardOutput.contains("wait 100ms"))
        let neither = try await run(home, ["macro", "save", "empty"])
        #expect(neither.process.terminationStatus == 2 && neither.standardError.contains("-f FILE"), "\(neither.standardError)")
        #expect(try await run(home, ["macro", "save", "both", "key home", "-f", file.path]).process.terminationStatus == 2)
        #expect(try await run(home, ["macro", "save", "typo", "lunch youtube"]).process.terminationStatus == 2)
    }

    @Test func waitForFollowsTheTVsReportsAndAPowerChangeStopsTheMacro() async throws {
        let lg = try await EmulatorProcess.start(["lg", "--port", "0", "--plain-port", "0"])
        defer { lg.process.terminate() }
        let home = try await TestEnvironment.home("photon-macro-lg")
        #expect(
            try await run(home, ["pair", "127.0.0.1:\(lg.port)", "--brand", "lg", "--trust", lg.fingerprint, "--name", "den"]).process
                .terminationStatus == 0)
        let app = try await run(home, ["run", "den", "launch youtube", "wait-for app youtube 5s", "key select"])
        #expect(app.process.terminationStatus == 0, "\(app.standardError)")
        // Never in front: exit 3 after the wait, and what came after was not sent.
        let never = try await run(home, ["run", "den", "wait-for app netflix 500ms", "key home"])
        #expect(never.process.terminationStatus == 3, "\(never.standardError)")
        #expect(never.standardError.contains("youtube.leanback.v4"), "\(never.standardError)")
        // The TV goes to standby in the middle: waiting for it to be on fails.
        let power = try await run(home, ["run", "den", "power off", "wait-for power standby 5s", "wait-for power on 500ms", "key home"])
        #expect(power.process.terminationStatus == 3, "\(power.standardError)")
        #expect(power.standardError.contains("step 3"), "\(power.standardError)")
        #expect(try await run(home, ["run", "den", "key back"]).process.terminationStatus == 0)
        try await Self.waitUntil { lg.events("key").count >= 2 }
        #expect(lg.events("key").compactMap { $0["key"] as? String } == ["ENTER", "BACK"])
    }

    /// Through the daemon the macro is one request that the daemon runs to its end: a
    /// client killed in the middle does not stop it.
    @Test func theDaemonFinishesAMacroWhoseClientWasKilled() async throws {
        let roku = try await EmulatorProcess.start(["roku", "--port", "0"])
        defer { roku.process.terminate() }
        let home = try await TestEnvironment.home("photon-macro-daemon")
        #expect(try await run(home, ["pair", "127.0.0.1:\(roku.port)", "--brand", "roku", "--name", "den"]).process.terminationStatus == 0)
        let daemon = try e2e.photon(home, ["serve", "--json"])
        defer { daemon.terminate() }
        try await daemon.waitFor("\"event\":\"ready\"")
        let served = try await run(home, ["run", "den", "key home", "wait 200ms", "key up", "--json"])
        #expect(served.process.terminationStatus == 0, "\(served.standardError)")
        #expect(served.standardOutput.split(separator: "\n").count == 3)
        let client = try e2e.photon(home, ["run", "den", "key left", "wait 1s", "key right"])
        client.closeStandardInput()
        try await Task.sleep(for: .milliseconds(400))
        client.terminate()
        _ = await client.waitForExit()
        try await Self.waitUntil { roku.events("key").count >= 4 }
        // And nothing after it: a marker through the daemon arrives next.
        #expect(try await run(home, ["key", "den", "back"]).process.terminationStatus == 0)
        try await Self.waitUntil { roku.events("key").count >= 5 }
        #expect(roku.events("key").compactMap { $0["key"] as? String } == ["Home", "Up", "Left", "Right", "Back"])
        daemon.terminate()
    }

    /// Waits (at most 10 s) until `condition` holds; what the test checks comes after.
    static func waitUntil(_ condition: () -> Bool) async throws {
        let end = ContinuousClock.now + .seconds(10)
        while !condition(), ContinuousClock.now < end { try await Task.sleep(for: .milliseconds(10)) }
    }
}
