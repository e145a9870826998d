import Foundation
import PhotonTestSupport
import Testing

/// `photon follow` against a fake systemd-logind (dbus-next, Tests/peers/fake_logind.py) on a
/// private D-Bus bus (dbus-daemon on a socket of the test's own) and the emulated LG: off
/// before a sleep (the delay lock released each time), on and to its input after a resume,
/// the picture off while idle and on again, a TV showing another input left on, shutdown,
/// a TV gone at wake; and a clear exit 3 when there is no logind.
@Suite(.serialized) struct FollowTests {
    let e2e = AndroidTVEndToEndTests()

    /// A private bus and the fake logind on it.
    struct Bus {
        let daemon: TestProcess
        let logind: TestProcess
        let address: String

        static func start() async throws -> Bus {
            let dir = try TestEnvironment.temporaryDirectory("follow-bus")
            let address = "unix:path=\(dir.appendingPathComponent("bus").path)"
            let daemon = try TestProcess("/usr/bin/dbus-daemon", ["--session", "--address=\(address)", "--nofork", "--print-address"])
            try await daemon.waitFor("unix:path=")
            let logind = try TestProcess(
                try TestEnvironment.python, [TestEnvironment.peerScript("fake_logind.py")], environment: ["DBUS_SYSTEM_BUS_ADDRESS": address])
            try await logind.waitFor("READY")
            return Bus(daemon: daemon, logind: logind, address: address)
        }

        func send(_ line: String) { logind.writeToStandardInput(line + "\n") }

        func stop() {
            logind.terminate()
            daemon.terminate()
        }
    }

    /// Waits until `text` shows `count` times in the process's output.
    func waitFor(_ process: TestProcess, _ text: String, count: Int, within limit: Duration = .seconds(15)) async throws {
        let end = ContinuousClock.now + limit
        while ContinuousClock.now < end {
            if process.standardOutput.components(separatedBy: text).count - 1 >= count { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw TestFailure("'\(text)' not seen \(count) times.\nstdout: \(process.standardOutput)\nstderr: \(process.standardError)")
    }

    @Test func theTVFollowsSleepWakeIdleAndShutdown() async throws {
        let bus = try await Bus.start()
        defer { bus.stop() }
        let tv = try await EmulatorProcess.start(["lg", "--port", "0", "--plain-port", "0"])
        defer { tv.process.terminate() }
        let home = try await TestEnvironment.home("photon-follow")
        let paired = try await e2e.finished(
            home, ["pair", "127.0.0.1:\(tv.port)", "--brand", "lg", "--trust", tv.fingerprint, "--name", "den"], input: nil)
        #expect(paired.process.terminationStatus == 0, "\(paired.standardError)")
        let follow = try TestProcess(
            try AndroidTVEndToEndTests.binary("photon"),
            ["follow", "den", "--input", "hdmi1", "--idle", "0.5", "--broadcast", "127.0.0.1", "--wait", "1", "--home", home.path],
            environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address, "XDG_SESSION_ID": "c1", "PHOTON_NO_DAEMON": "1"])
        defer { follow.terminate() }
        let logind = bus.logind
        try await follow.waitFor("start: following")
        #expect(follow.standardOutput.contains("start: on\nstart: input (hdmi1)"), "\(follow.standardOutput)")
        try await waitFor(logind, "INHIBIT Photon delay sleep:shutdown", count: 1)

        // Sleep: off before the machine goes, then the lock is let go.
        bus.send("sleep")
        try await waitFor(follow, "sleep: released", count: 1)
        #expect(follow.standardOutput.contains("sleep: off\nsleep: released"), "\(follow.standardOutput)")
        try await waitFor(logind, "RELEASED", count: 1)
        #expect(tv.events("power_off").count == 1)

        // Resume: the lock again, on, and this computer's input.
        bus.send("resume")
        try await waitFor(follow, "resume: input (hdmi1)", count: 1)
        try await waitFor(logind, "INHIBIT Photon delay sleep:shutdown", count: 2)
        #expect(tv.events("input").last?["id"] as? String == "HDMI_1")

        // Idle for longer than --idle: the picture off; activity: on again.
        bus.send("idle")
        try await waitFor(follow, "idle: screen-off", count: 1)
        bus.send("active")
        try await waitFor(follow, "active: screen-on", count: 1)
        #expect(tv.events("screen").compactMap { $0["on"] as? Bool } == [false, true])
        // Locked and unlocked again before --idle passed: nothing.
        bus.send("lock")
        bus.send("unlock")
        try await waitFor(logind, "SENT unlock", count: 1)
        try await Task.sleep(for: .milliseconds(800))
        #expect(tv.events("screen").count == 2)

        // Another input showing: the TV is left on at sleep, and the lock still let go.
        let other = try await e2e.finished(home, ["input", "den", "hdmi2"], input: nil)
        #expect(other.process.terminationStatus == 0, "\(other.standardError)")
        bus.send("sleep")
        try await waitFor(follow, "sleep: released", count: 2)
        #expect(follow.standardOutput.contains("sleep: left-on (another input is showing (hdmi2))"), "\(follow.standardOutput)")
        try await waitFor(logind, "RELEASED", count: 2)
        #expect(tv.events("power_off").count == 1)

        // Back on this input; shutdown switches the TV off.
        bus.send("resume")
        try await waitFor(follow, "resume: input (hdmi1)", count: 2)
        bus.send("shutdown")
        try await waitFor(follow, "shutdown: released", count: 1)
        #expect(follow.standardOutput.contains("shutdown: off"), "\(follow.standardOutput)")
        try await waitFor(logind, "RELEASED", count: 3)
        #expect(tv.events("power_off").count == 2)

        // The TV gone at wake: the failure is said, and following goes on.
        tv.process.terminate()
        _ = await tv.process.waitForExit()
        bus.send("resume")
        try await waitFor(follow, "resume: failed", count: 1, within: .seconds(30))
        try await waitFor(logind, "INHIBIT Photon delay sleep:shutdown", count: 4)
        bus.send("sleep")
        try await waitFor(follow, "sleep: released", count: 3)
        try await waitFor(logind, "RELEASED", count: 4)
    }

    /// `photon serve --follow`: the daemon follows logind itself, through its own router, and
    /// lets go of the delay lock when it stops.
    @Test func theDaemonFollowsTooWithServeFollow() async throws {
        let bus = try await Bus.start()
        defer { bus.stop() }
        let tv = try await EmulatorProcess.start(["lg", "--port", "0", "--plain-port", "0"])
        defer { tv.process.terminate() }
        let home = try await TestEnvironment.home("photon-serve-follow")
        let paired = try await e2e.finished(
            home, ["pair", "127.0.0.1:\(tv.port)", "--brand", "lg", "--trust", tv.fingerprint, "--name", "den"], input: nil)
        #expect(paired.process.terminationStatus == 0, "\(paired.standardError)")
        let serve = try TestProcess(
            try AndroidTVEndToEndTests.binary("photon"),
            ["serve", "--follow", "den", "--follow-input", "hdmi1", "--wake-broadcast", "127.0.0.1", "--wake-wait", "1", "--home", home.path],
            environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address, "XDG_SESSION_ID": "c1"])
        defer { serve.terminate() }
        try await waitFor(serve, "start: following", count: 1)
        try await waitFor(serve, "start: input (hdmi1)", count: 1)
        try await waitFor(bus.logind, "INHIBIT Photon delay sleep:shutdown", count: 1)
        bus.send("sleep")
        try await waitFor(serve, "sleep: released", count: 1)
        #expect(serve.standardOutput.contains("sleep: off\nsleep: released"), "\(serve.standardOutput)")
        #expect(tv.events("power_off").count == 1)
        // The daemon's other doors go on meanwhile: a key through it.
        let key = try await e2e.finished(home, ["key", "den", "home"], input: nil)
        #expect(key.process.terminationStatus == 0, "\(key.standardError)")
        bus.send("resume")
        try await waitFor(bus.logind, "INHIBIT Photon delay sleep:shutdown", count: 2)
        kill(serve.process.processIdentifier, SIGTERM)
        #expect(await serve.waitForExit() == 0, "\(serve.standardError)")
        // Stopping the daemon lets go of its lock.
        try await waitFor(bus.logind, "RELEASED", count: 2)
    }

    @Test func withoutLogindFollowSaysSoAndExitsThree() async throws {
        let dir = try TestEnvironment.temporaryDirectory("follow-nobus")
        let daemon = try TestProcess(
            "/usr/bin/dbus-daemon", ["--session", "--address=unix:path=\(dir.appendingPathComponent("bus").path)", "--nofork", "--print-address"])
        defer { daemon.terminate() }
        try await daemon.waitFor("unix:path=")
        let tv = try await EmulatorProcess.start(["lg", "--port", "0", "--plain-port", "0"])
        defer { tv.process.terminate() }
        let home = try await TestEnvironment.home("photon-follow-nobus")
        _ = try await e2e.finished(home, ["pair", "127.0.0.1:\(tv.port)", "--brand", "lg", "--trust", tv.fingerprint, "--name", "den"], input: nil)
        for address in ["unix:path=\(dir.appendingPathComponent("bus").path)", "unix:path=\(dir.appendingPathComponent("nothing").path)"] {
            let follow = try TestProcess(
                try AndroidTVEndToEndTests.binary("photon"), ["follow", "den", "--home", home.path],
                environment: ["DBUS_SYSTEM_BUS_ADDRESS": address, "PHOTON_NO_DAEMON": "1"])
            #expect(await follow.waitForExit(timeout: .seconds(20)) == 3, "\(follow.standardError)")
            #expect(follow.standardError.contains("logind") || follow.standardError.contains("system bus"), "\(follow.standardError)")
        }
        #expect(tv.events("power_on").isEmpty && tv.events("power_off").isEmpty)
    }
}
