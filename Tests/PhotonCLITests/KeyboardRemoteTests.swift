import Foundation
import PhotonCore
import PhotonStore
import PhotonTestSupport
import Testing

@testable import PhotonCLI

/// The keyboard remote's parts: the key decoder, the key map, the press queue and the
/// screen.
@Suite struct KeyboardRemoteUnitTests {
    @Test func escapeSequencesInBothFormsAndSplitAcrossReads() {
        var decoder = TerminalKeyDecoder()
        #expect(decoder.feed(Array("\u{1B}[A\u{1B}OB\u{1B}[C\u{1B}[D".utf8)) == [.up, .down, .right, .left])
        #expect(decoder.feed(Array("\u{1B}[H\u{1B}[1~\u{1B}OH\u{1B}[7~".utf8)) == [.home, .home, .home, .home])
        // A sequence split over reads waits for its end.
        #expect(decoder.feed([0x1B, UInt8(ascii: "[")]) == [])
        #expect(decoder.isPending)
        #expect(decoder.feed([UInt8(ascii: "A")]) == [.up])
        // Function keys and the like are not mistaken for anything.
        #expect(decoder.feed(Array("\u{1B}[15~".utf8)) == [.unknown])
    }

    @Test func aBareEscIsToldApartByTime() {
        var decoder = TerminalKeyDecoder()
        #expect(decoder.feed([0x1B]) == [])
        #expect(decoder.isPending)
        #expect(decoder.flushEscape() == [.escape])
        #expect(!decoder.isPending)
        // Esc followed by another key at once: Esc, then the key.
        #expect(decoder.feed([0x1B, UInt8(ascii: "q")]) == [.escape, .character("q")])
    }

    @Test func controlBytesAndUTF8() {
        var decoder = TerminalKeyDecoder()
        #expect(decoder.feed([0x0D, 0x7F, 0x08, 0x03, 0x04, 0x09]) == [.enter, .backspace, .backspace, .interrupt, .interrupt, .tab])
        #expect(decoder.feed(Array("é".utf8).prefix(1).map { $0 }) == [])
        #expect(decoder.feed(Array(Array("é".utf8).dropFirst())) == [.character("é")])
        #expect(decoder.feed([0xFF]) == [.unknown])
    }

    @Test func theDefaultKeyMap() {
        let cases: [(TerminalInput, RemoteAction)] = [
            (.up, .send(.key(.key(.up), .press))), (.enter, .send(.key(.key(.select), .press))),
            (.backspace, .send(.key(.key(.back), .press))), (.escape, .send(.key(.key(.back), .press))),
            (.character("h"), .send(.key(.key(.home), .press))), (.home, .send(.key(.key(.home), .press))),
            (.character("+"), .send(.volume(.up))), (.character("-"), .send(.volume(.down))), (.character("m"), .send(.volume(.mute))),
            (.character(" "), .send(.key(.key(.playPause), .press))), (.character("p"), .send(.key(.key(.power), .press))),
            (.character("7"), .send(.key(.key(.digit7), .press))), (.character("/"), .textLine), (.character("a"), .appList),
            (.character("?"), .help), (.character("q"), .quit), (.interrupt, .quit),
        ]
        for (input, action) in cases { #expect(RemoteKeyMap.action(for: input) == action, "\(input)") }
        #expect(RemoteKeyMap.action(for: .character("z")) == nil)
        #expect(RemoteKeyMap.action(for: .character("٣")) == nil)
    }

    @Test func keysTheTVLacksAreUnavailable() {
        let keys: Set<RemoteKey> = [.up, .down, .left, .right, .select, .back, .home]
        let caps = Capabilities(.keys)
        #expect(RemoteKeyMap.unavailability(of: .send(.key(.key(.up), .press)), keys: keys, capabilities: caps) == nil)
        #expect(RemoteKeyMap.unavailability(of: .send(.key(.key(.playPause), .press)), keys: keys, capabilities: caps) != nil)
        #expect(RemoteKeyMap.unavailability(of: .send(.key(.key(.digit1), .press)), keys: keys, capabilities: caps) != nil)
        #expect(RemoteKeyMap.unavailability(of: .textLine, keys: keys, capabilities: caps) != nil)
        #expect(RemoteKeyMap.unavailability(of: .appList, keys: keys, capabilities: Capabilities(.keys, .appList)) == nil)
    }

    /// Sends that end only when the test lets them: the queue's rules are checked by what
    /// is in flight, not by how long anything took.
    final class Permits: Sendable {
        private let state = Locked<(available: Int, waiting: [CheckedContinuation<Void, Never>])>((0, []))
        func acquire() async {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { s -> Bool in
                    if s.available > 0 {
                        s.available -= 1
                        return true
                    }
                    s.waiting.append(continuation)
                    return false
                }
                if now { continuation.resume() }
            }
        }
        func release() {
            let waiter = state.withLock { s -> CheckedContinuation<Void, Never>? in
                if s.waiting.isEmpty {
                    s.available += 1
                    return nil
                }
                return s.waiting.removeFirst()
            }
            waiter?.resume()
        }
    }

    func until(_ condition: () -> Bool) async throws {
        for _ in 0..<1000 where !condition() { try await Task.sleep(for: .milliseconds(5)) }
        #expect(condition())
    }

    @Test func aHeldKeyGoesAtTheTVsPaceAndDifferentKeysAllGoInOrder() async throws {
        let started = Locked<[RemoteCommand]>([])
        let finished = Locked(0)
        let permits = Permits()
        let queue = PressQueue(
            send: { command in
                started.withLock { $0.append(command) }
                await permits.acquire()
            }, report: { _, _ in finished.withLock { $0 += 1 } })
        let up = RemoteCommand.key(.key(.up), .press)
        // Auto-repeat while the TV takes the first press: every repeat is dropped.
        #expect(queue.submit(up, label: "up"))
        try await until { started.withLock { $0.count } == 1 }
        for _ in 0..<39 { #expect(!queue.submit(up, label: "up")) }
        #expect(queue.droppedCount == 39)
        permits.release()
        try await until { finished.withLock { $0 } == 1 }
        // Let go: nothing more is sent; the next repeat after the TV took the press goes.
        #expect(started.withLock { $0.count } == 1)
        #expect(queue.submit(up, label: "up"))
        try await until { started.withLock { $0.count } == 2 }
        permits.release()
        try await until { finished.withLock { $0 } == 2 }
        // Typed quickly, different keys all arrive, in order, behind the one in flight.
        started.withLock { $0 = [] }
        let typed: [RemoteKey] = [.up, .select, .home, .digit5, .back]
        for key in typed { #expect(queue.submit(.key(.key(key), .press), label: key.rawValue)) }
        for _ in typed { permits.release() }
        try await until { finished.withLock { $0 } == 2 + typed.count }
        #expect(started.withLock { $0 } == typed.map { .key(.key($0), .press) })
        // Text is never dropped as a repeat.
        started.withLock { $0 = [] }
        #expect(queue.submit(.text("a"), label: "text", repeatable: false))
        #expect(queue.submit(.text("a"), label: "text", repeatable: false))
        permits.release()
        permits.release()
        try await until { finished.withLock { $0 } == 4 + typed.count }
        #expect(started.withLock { $0.count } == 2)
    }

    @Test func theScreenMarksUnavailableKeysAndHonoursNoColor() {
        var screen = RemoteScreen(name: "den", route: "direct", color: false)
        screen.unavailable["a"] = "this TV cannot list its apps"
        screen.apply(.power(isOn: true))
        screen.apply(.currentApp("netflix"))
        screen.apply(.volume(VolumeState(level: 9, maximum: 100, muted: true)))
        let plain = screen.render(columns: 100, rows: 30)
        #expect(plain.contains("apps — unavailable: this TV cannot list its apps"))
        #expect(plain.contains("power: on") && plain.contains("app: netflix") && plain.contains("volume: 9/100 muted"))
        // Without colour, the only escapes are cursor positioning and line clearing.
        #expect(!plain.contains("\u{1B}[7m") && !plain.contains("\u{1B}[1m"))
        screen.color = true
        #expect(screen.render(columns: 100, rows: 30).contains("\u{1B}[7m"))
        // A tiny window still ends with the status and message lines, cut to its width.
        let tiny = screen.render(columns: 20, rows: 5).components(separatedBy: "\r\n")
        #expect(tiny.count == 5)
        // Text from the TV cannot break the screen.
        screen.apply(.currentApp("evil\u{1B}[2Japp"))
        #expect(!screen.render(columns: 100, rows: 30).contains("evil\u{1B}[2J"))
    }
}

/// `photon remote` in a real terminal: tmux runs it against an emulated TV; keys are typed
/// with `send-keys`, the screen is read with `capture-pane`, and the emulator says what
/// arrived.
@Suite(.serialized) struct KeyboardRemoteTmuxTests {
    final class Tmux {
        let socket: String
        let session = "remote"
        init() throws {
            socket = FileManager.default.temporaryDirectory.appendingPathComponent("photon-tmux-\(UUID().uuidString.prefix(8))").path
            try run([
                "new-session", "-d", "-s", session, "-x", "100", "-y", "30",
                "env -i PATH=/usr/bin:/bin TERM=xterm-256color HOME=/tmp bash --norc --noprofile",
            ])
        }

        /// Runs a tmux command. Its output goes through a file: tmux hands the client's
        /// descriptors to its server, which would hold a pipe open for ever.
        @discardableResult
        func run(_ arguments: [String]) throws -> String {
            let out = FileManager.default.temporaryDirectory.appendingPathComponent("tmux-out-\(UUID().uuidString)").path
            defer { try? FileManager.default.removeItem(atPath: out) }
            // Every descriptor but 0–2 is closed first: the server tmux starts would keep
            // one this test process leaked (a pipe it waits on) open for ever.
            let script =
                #"for fd in $(ls /proc/$$/fd); do [ "$fd" -gt 2 ] && eval "exec $fd>&-" 2>/dev/null; done; out=$1; shift; exec "$@" </dev/null >"$out" 2>&1"#
            let result = try TestEnvironment.run("/bin/bash", ["-c", script, "bash", out, "/usr/bin/tmux", "-S", socket] + arguments)
            let output = (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
            guard result.status == 0 else { throw TestFailure("tmux \(arguments): \(output)") }
            return output
        }
        func type(_ keys: String...) throws { for key in keys { try run(["send-keys", "-t", session, key]) } }
        func literal(_ text: String) throws { try run(["send-keys", "-t", session, "-l", text]) }
        func screen() throws -> String { try run(["capture-pane", "-t", session, "-p"]) }
        func waitFor(_ text: String, timeout: Duration = .seconds(15)) async throws {
            let end = ContinuousClock.now + timeout
            while ContinuousClock.now < end {
                if try screen().contains(text) { return }
                try await Task.sleep(for: .milliseconds(50))
            }
            throw TestFailure("the screen never showed '\(text)':\n\(try screen())")
        }
        deinit { _ = try? TestEnvironment.run("/usr/bin/tmux", ["-S", socket, "kill-server"]) }
    }

    static var tmuxAvailable: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux") }

    func pair(_ emulator: EmulatorProcess, _ home: URL, brand: String) async throws {
        let p = try TestProcess(
            try AndroidTVEndToEndTests.binary("photon"),
            ["pair", "127.0.0.1:\(emulator.port)", "--brand", brand, "--trust", emulator.fingerprint, "--name", "den", "--home", home.path]
                + (brand == "samsung" ? ["--rest-port", String(emulator.restPort)] : []))
        p.closeStandardInput()
        #expect(await p.waitForExit() == 0, "\(p.standardError)")
    }

    func keys(_ emulator: EmulatorProcess) -> [String] { emulator.events("key").compactMap { $0["key"] as? String } }

    /// `photon mqtt login` at a terminal: the password typed is not shown.
    @Test func theBrokerPasswordIsNotEchoed() async throws {
        try #require(Self.tmuxAvailable, "tmux is installed by scripts/setup.sh test")
        let home = try TestEnvironment.temporaryDirectory("photon-login")
        let tmux = try Tmux()
        let photon = try AndroidTVEndToEndTests.binary("photon")
        try tmux.literal("\(photon) mqtt login mqtt://127.0.0.1:1883 --username ha --home \(home.path); echo EXIT=$?")
        try tmux.type("Enter")
        try await tmux.waitFor("Password")
        try tmux.literal("Pa55-visible?")
        try tmux.type("Enter")
        try await tmux.waitFor("EXIT=0")
        let screen = try tmux.screen()
        #expect(!screen.contains("Pa55-visible?"), "\(screen)")
        #expect(try String(contentsOf: StorePaths(home: home).secretsFile, encoding: .utf8).contains("Pa55-visible?"))
        // The terminal echoes again afterwards.
        try tmux.literal("echo-is-back")
        try await tmux.waitFor("echo-is-back")
    }

    @Test func drivesTheTVAndRestoresTheTerminal() async throws {
        try #require(Self.tmuxAvailable, "tmux is installed by scripts/setup.sh test")
        let emulator = try await EmulatorProcess.start(["lg", "--port", "0", "--plain-port", "0"])
        defer { emulator.process.terminate() }
        let home = try await TestEnvironment.home("photon-remote")
        try await pair(emulator, home, brand: "lg")
        let tmux = try Tmux()
        let photon = try AndroidTVEndToEndTests.binary("photon")
        try tmux.literal("\(photon) remote den --home \(home.path); echo EXIT=$?")
        try tmux.type("Enter")
        try await tmux.waitFor("Photon remote — den")
        // The key map is shown on start, and the status line follows the TV.
        try await tmux.waitFor("app: com.webos.app.home")
        #expect(try tmux.screen().contains("Backspace Esc back"))
        // Distinct keys typed quickly all arrive, in order.
        try tmux.type("Up", "Enter", "h", "+", "5", "BSpace")
        for _ in 0..<100 where keys(emulator).count < 6 { try await Task.sleep(for: .milliseconds(50)) }
        #expect(keys(emulator) == ["UP", "ENTER", "HOME", "VOLUMEUP", "5", "BACK"])
        // A bare Esc is back, told apart from an arrow's escape sequence.
        try tmux.type("Escape")
        for _ in 0..<100 where keys(emulator).count < 7 { try await Task.sleep(for: .milliseconds(50)) }
        #expect(keys(emulator).last == "BACK")
        // The text line.
        try tmux.type("/")
        try await tmux.waitFor("Enter sends it")
        try tmux.literal("the expanse")
        try tmux.type("Enter")
        for _ in 0..<100 where emulator.events("text").isEmpty { try await Task.sleep(for: .milliseconds(50)) }
        #expect(emulator.events("text").first?["text"] as? String == "the expanse")
        // The app pick list.
        try tmux.type("a")
        try await tmux.waitFor("Enter launches")
        try tmux.type("Down", "Down", "Enter")
        for _ in 0..<100 where emulator.events("launch").isEmpty { try await Task.sleep(for: .milliseconds(50)) }
        #expect(emulator.events("launch").first?["app"] as? String == "youtube.leanback.v4")
        try await tmux.waitFor("app: youtube.leanback.v4")
        // ? hides and shows the key map.
        try tmux.type("?")
        try await tmux.waitFor("Press ? for the key map")
        // q quits with 0, and the terminal is as it was.
        try tmux.type("q")
        try await tmux.waitFor("EXIT=0")
        try tmux.literal("stty -a | tr ' ' '\\n' | grep -x -e icanon -e echo -e isig | tr '\\n' ,; echo")
        try tmux.type("Enter")
        try await tmux.waitFor("isig,icanon,echo,")
    }

    @Test func sigtermAndCtrlCRestoreTheTerminalAndAHeldKeyDoesNotFlood() async throws {
        try #require(Self.tmuxAvailable, "tmux is installed by scripts/setup.sh test")
        // Samsung paces keys (300 ms): auto-repeat must not queue up behind it.
        let emulator = try await EmulatorProcess.samsung()
        defer { emulator.process.terminate() }
        let home = try await TestEnvironment.home("photon-remote")
        try await pair(emulator, home, brand: "samsung")
        let tmux = try Tmux()
        let photon = try AndroidTVEndToEndTests.binary("photon")
        try tmux.literal("\(photon) remote den --home \(home.path); echo EXIT=$?")
        try tmux.type("Enter")
        try await tmux.waitFor("connected (direct)")
        // Hold Up: 30 repeats, 10 ms apart plus what each tmux call takes (300 ms on an
        // idle machine, over a second on a loaded one). At the TV's pace (one key per 300
        // ms) that is one key per 300 ms held, and one more in flight: never 30.
        let holding = ContinuousClock.now
        for _ in 0..<30 {
            try tmux.type("Up")
            try await Task.sleep(for: .milliseconds(10))
        }
        let held = ContinuousClock.now - holding
        try await Task.sleep(for: .milliseconds(1500))
        let sent = keys(emulator).count
        let paced = Int(held / .milliseconds(300)) + 2
        #expect(sent >= 1 && sent <= paced, "\(sent) keys for a key held \(held) (at most \(paced) at the TV's pace)")
        try await Task.sleep(for: .milliseconds(700))
        #expect(keys(emulator).count == sent, "keys went on after the key was let go")
        // Ctrl-C quits (raw mode: it is a byte, not a signal).
        try tmux.type("C-c")
        try await tmux.waitFor("EXIT=0")
        // SIGTERM: the terminal is restored and the exit status says so.
        try tmux.literal("\(photon) remote den --home \(home.path); echo TERM=$?")
        try tmux.type("Enter")
        try await tmux.waitFor("connected (direct)")
        let shell = try tmux.run(["display-message", "-p", "-t", tmux.session, "#{pane_pid}"]).trimmingCharacters(in: .whitespacesAndNewlines)
        let child = try TestEnvironment.run("/usr/bin/pgrep", ["-P", shell]).output.split(separator: "\n").first.flatMap { Int32($0) }
        kill(try #require(child), SIGTERM)
        try await tmux.waitFor("TERM=143")
        try tmux.literal("stty -a | tr ' ' '\\n' | grep -x -e icanon -e echo | tr '\\n' ,; echo")
        try tmux.type("Enter")
        try await tmux.waitFor("icanon,echo,")
        // SIGTSTP hands the terminal back while stopped; SIGQUIT restores it and exits.
        try tmux.literal("clear; \(photon) remote den --home \(home.path)")
        try tmux.type("Enter")
        try await tmux.waitFor("connected (direct)")
        let remote = try TestEnvironment.run("/usr/bin/pgrep", ["-P", shell]).output.split(separator: "\n").first.flatMap { Int32($0) }
        let pid = try #require(remote)
        kill(pid, SIGTSTP)
        try await tmux.waitFor("Stopped")
        try tmux.literal("stty -a | tr ' ' '\\n' | grep -x -e icanon -e echo | tr '\\n' ,; echo STOPPED")
        try tmux.type("Enter")
        try await tmux.waitFor("icanon,echo,STOPPED")
        try tmux.literal("fg")
        try tmux.type("Enter")
        try await tmux.waitFor("connected (direct)")
        kill(pid, SIGQUIT)
        // A job resumed with fg ends its command line there: wait for the process itself.
        for _ in 0..<500 where kill(pid, 0) == 0 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(kill(pid, 0) != 0, "photon remote outlived SIGQUIT")
        try tmux.literal("stty -a | tr ' ' '\\n' | grep -x -e icanon -e echo | tr '\\n' ,; echo DONE")
        try tmux.type("Enter")
        try await tmux.waitFor("icanon,echo,DONE")
    }

    @Test func goesThroughTheDaemonWhenItRuns() async throws {
        try #require(Self.tmuxAvailable, "tmux is installed by scripts/setup.sh test")
        let emulator = try await EmulatorProcess.start(["lg", "--port", "0", "--plain-port", "0"])
        defer { emulator.process.terminate() }
        let home = try await TestEnvironment.home("photon-remote")
        try await pair(emulator, home, brand: "lg")
        let daemon = try TestProcess(try AndroidTVEndToEndTests.binary("photon"), ["serve", "--json", "--home", home.path])
        defer { daemon.terminate() }
        try await daemon.waitFor("\"event\":\"ready\"")
        let tmux = try Tmux()
        try tmux.literal("\(try AndroidTVEndToEndTests.binary("photon")) remote den --home \(home.path); echo EXIT=$?")
        try tmux.type("Enter")
        try await tmux.waitFor("connected (photon serve)")
        try await tmux.waitFor("volume: 12/100")
        try tmux.type("Right", "Left", "-")
        for _ in 0..<100 where keys(emulator).count < 3 { try await Task.sleep(for: .milliseconds(50)) }
        #expect(keys(emulator) == ["RIGHT", "LEFT", "VOLUMEDOWN"])
        // The TV's own change reaches the status line through the daemon's events.
        try await tmux.waitFor("volume: 11/100")
        try tmux.type("q")
        try await tmux.waitFor("EXIT=0")
        // Two connections to the TV in all: pairing's and the daemon's.
        #expect(emulator.events("client_connected").count == 2)
    }

    @Test func theTmuxServerEndsWithItsTest() async throws {
        try #require(Self.tmuxAvailable, "tmux is installed by scripts/setup.sh test")
        var socket = ""
        do {
            let tmux = try Tmux()
            socket = tmux.socket
            try tmux.literal("echo ready")
        }
        // The server gets SIGTERM from `kill-server` in Tmux's deinit; it is gone once its
        // socket stops answering.
        let end = ContinuousClock.now + .seconds(10)
        var answering = true
        while answering, ContinuousClock.now < end {
            answering = try TestEnvironment.run("/usr/bin/tmux", ["-S", socket, "list-sessions"]).status == 0
            if answering { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(!answering, "the tmux server of a finished test is still running")
        try? FileManager.default.removeItem(atPath: socket)
    }

    @Test func withoutATerminalItIsAUsageError() async throws {
        let home = try await TestEnvironment.home("photon-remote")
        let p = try TestProcess(try AndroidTVEndToEndTests.binary("photon"), ["remote", "den", "--home", home.path])
        p.closeStandardInput()
        #expect(await p.waitForExit() == 2)
        #expect(p.standardError.contains("needs a terminal"))
    }
}
