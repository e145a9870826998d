import Foundation
import Glibc
import PhotonCore
import PhotonJSON
import PhotonKit
import PhotonNet
import PhotonService
import PhotonStore
import PhotonTestSupport
import Testing

/// `photon serve` end to end: the real daemon binary, real emulator processes, and the
/// CLI and raw socket clients talking to it.
@Suite(.serialized) struct DaemonTests {
    typealias Emulator = EmulatorProcess
    let e2e = AndroidTVEndToEndTests()

    /// A paired emulated Android TV and a running daemon for one home.
    struct Setup {
        let emulator: Emulator
        let home: URL
        let daemon: TestProcess
        var socket: String { StorePaths(home: home).socketFile.path }

        func stop() {
            daemon.terminate()
            emulator.process.terminate()
        }
    }

    func startDaemon(_ home: URL, _ extra: [String] = []) async throws -> TestProcess {
        let daemon = try e2e.photon(home, ["serve", "--json"] + extra)
        try await daemon.waitFor("\"event\":\"ready\"")
        return daemon
    }

    func setUp(emulator: Emulator? = nil) async throws -> Setup {
        var tv = emulator
        if tv == nil { tv = try await Emulator.androidTV() }
        let emulator = tv!
        let home = try await TestEnvironment.home("photon-daemon")
        let pairing = try await e2e.pair(emulator, home: home, name: "tv")
        #expect(await pairing.waitForExit() == 0, "\(pairing.standardError)")
        return Setup(emulator: emulator, home: home, daemon: try await startDaemon(home))
    }

    func run(_ home: URL, _ arguments: [String]) async throws -> TestProcess {
        let p = try e2e.photon(home, arguments)
        p.closeStandardInput()
        _ = await p.waitForExit()
        return p
    }

    /// Waits until `condition` holds (what the emulator prints arrives a little after the
    /// daemon's "ok", which means the TV's connection took the command).
    func eventually(within limit: Duration = .seconds(10), _ condition: () -> Bool) async throws {
        let end = ContinuousClock.now + limit
        while !condition() {
            guard ContinuousClock.now < end else { return }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// The texts the emulator received, in order.
    func texts(_ emulator: Emulator) -> [String] { emulator.events("text").compactMap { $0["text"] as? String } }

    @Test func manyCLIInvocationsShareOneTLSSession() async throws {
        let setup = try await setUp()
        defer { setup.stop() }
        let before = setup.emulator.events("client_connected").count
        for index in 0..<8 {
            let p = try await run(setup.home, ["key", "tv", index % 2 == 0 ? "home" : "back", "-v"])
            #expect(p.process.terminationStatus == 0, "\(p.standardError)")
            #expect(p.standardError.contains("using photon serve"))
        }
        let text = try await run(setup.home, ["text", "tv", "through the daemon"])
        #expect(text.process.terminationStatus == 0, "\(text.standardError)")
        let status = try await run(setup.home, ["status", "tv", "--json"])
        #expect(status.standardOutput.contains("\"power\":\"on\""), "\(status.standardOutput) \(status.standardError)")
        try await eventually { setup.emulator.events("key").count >= 8 && !texts(setup.emulator).isEmpty }
        // One remote connection for all ten commands; the keys arrived in order.
        #expect(setup.emulator.events("client_connected").count - before == 1)
        let keys = setup.emulator.events("key").map { $0["key"] as? String ?? "" }
        #expect(keys == (0..<8).map { $0 % 2 == 0 ? "KEYCODE_HOME" : "KEYCODE_BACK" })
        #expect(texts(setup.emulator) == ["through the daemon"])
        // `photon list` shows the daemon's view of each TV.
        let list = try await run(setup.home, ["list"])
        #expect(list.standardOutput.contains("DAEMON") && list.standardOutput.contains("connected"), "\(list.standardOutput)")
        let listJSON = try await run(setup.home, ["list", "--json"])
        #expect(listJSON.standardOutput.contains("\"daemon\":\"connected\""), "\(listJSON.standardOutput)")
        // --direct still opens a connection of its own.
        let direct = try await run(setup.home, ["key", "tv", "home", "--direct"])
        #expect(direct.process.terminationStatus == 0)
        try await eventually { setup.emulator.events("client_connected").count - before >= 2 }
        #expect(setup.emulator.events("client_connected").count - before == 2)

        // SIGTERM: exit 0, the socket removed, the TV session closed.
        kill(setup.daemon.process.processIdentifier, SIGTERM)
        #expect(await setup.daemon.waitForExit(timeout: .seconds(10)) == 0, "\(setup.daemon.standardError)")
        #expect(access(setup.socket, F_OK) != 0)
        #expect(setup.daemon.standardError.contains("stopped"))
        // Without a daemon the CLI connects directly.
        let after = try await run(setup.home, ["key", "tv", "home", "-v"])
        #expect(after.process.terminationStatus == 0, "\(after.standardError)")
        #expect(after.standardError.contains("not running"))
        #expect(!(try await run(setup.home, ["list"])).standardOutput.contains("DAEMON"))
    }

    @Test func twentyClientsFiveHundredCommandsExactlyOnceInOrder() async throws {
        let setup = try await setUp()
        defer { setup.stop() }
        let clients = 20
        let commands = 500
        let failures = Locked<[String]>([])
        let socket = setup.socket
        await withTaskGroup(of: Void.self) { group in
            for c in 0..<clients {
                group.addTask {
                    do {
                        let client = try await DaemonClient.connect(path: socket, timeout: .seconds(5))
                        let open = try await client.request("open", [("tv", "tv")])
                        let session = open["session"]!.stringValue!
                        for n in 0..<commands {
                            try await client.request(
                                "send",
                                [("session", .string(session)), ("seq", .int(n + 1)), ("command", .object([("text", .string("c\(c)-\(n)"))]))])
                        }
                        await client.close()
                    } catch {
                        failures.withLock { $0.append("client \(c): \(error)") }
                    }
                }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 })")
        // Wait for the emulator to print everything it received.
        let end = ContinuousClock.now + .seconds(20)
        while texts(setup.emulator).count < clients * commands, ContinuousClock.now < end { try await Task.sleep(for: .milliseconds(50)) }
        let received = texts(setup.emulator)
        #expect(received.count == clients * commands)
        #expect(Set(received).count == clients * commands, "duplicates")
        for c in 0..<clients {
            let mine = received.filter { $0.hasPrefix("c\(c)-") }
            #expect(mine == (0..<commands).map { "c\(c)-\($0)" }, "client \(c) out of order or incomplete")
        }
        #expect(setup.emulator.events("client_connected").count == 1)
    }

    @Test func emulatorRestartFailsCommandsDuringTheOutageAndReplaysNone() async throws {
        let state = try TestEnvironment.temporaryDirectory("photon-tv-state")
        let first = try await Emulator.start(["androidtv", "--port", "0", "--ping-interval", "0.5", "--state", state.path])
        let setup = try await setUp(emulator: first)
        defer { setup.stop() }
        let client = try await DaemonClient.connect(path: setup.socket, timeout: .seconds(5))
        let session = try await client.request("open", [("tv", "tv")])["session"]!.stringValue!
        var sequence = 0
        func send(_ marker: String) async -> PhotonError? {
            sequence += 1
            do {
                try await client.request(
                    "send", [("session", .string(session)), ("seq", .int(sequence)), ("command", .object([("text", .string(marker))]))])
                return nil
            } catch {
                return PhotonError.wrap(error)
            }
        }
        for n in 0..<50 { #expect(await send("before-\(n)") == nil) }
        // "ok" means the TV's connection took the command; let the emulator print them all.
        let printed = ContinuousClock.now + .seconds(10)
        while texts(first).count < 50, ContinuousClock.now < printed { try await Task.sleep(for: .milliseconds(20)) }

        // The TV goes away. Once the daemon has noticed, every command fails at once.
        first.process.terminate()
        try await Task.sleep(for: .milliseconds(500))
        var outage: [PhotonError] = []
        for n in 0..<20 {
            let start = ContinuousClock.now
            if let error = await send("during-\(n)") { outage.append(error) }
            #expect(ContinuousClock.now - start < .seconds(3))
        }
        #expect(outage.count == 20)
        #expect(outage.allSatisfy { [.unreachable, .connectionClosed, .timeout].contains($0.code) }, "\(outage)")
        #expect(outage.first?.hint?.contains("will not be resent") == true, "\(outage.first.map { "\($0)" } ?? "")")

        // The TV comes back on the same port with the same identity and pairing.
        let second = try await Emulator.start(
            ["androidtv", "--port", String(first.port), "--pairing-port", String(first.pairingPort), "--ping-interval", "0.5", "--state", state.path])
        defer { second.process.terminate() }
        var firstAfter: Int?
        for n in 0..<100 where firstAfter == nil {
            if await send("retry-\(n)") == nil { firstAfter = n } else { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(firstAfter != nil, "the daemon never reconnected: \(setup.daemon.standardError)")
        for n in 0..<50 { #expect(await send("after-\(n)") == nil) }
        await client.close()
        try await eventually { texts(second).count >= 51 }

        let beforeTexts = texts(first)
        let afterTexts = texts(second)
        #expect(beforeTexts == (0..<50).map { "before-\($0)" })
        // Nothing sent during the outage arrived later, and nothing arrived twice.
        #expect(!(beforeTexts + afterTexts).contains { $0.hasPrefix("during-") })
        #expect(afterTexts == ["retry-\(firstAfter ?? -1)"] + (0..<50).map { "after-\($0)" }, "\(afterTexts)")
        #expect(setup.daemon.standardError.contains("connection lost"))
    }

    @Test func garbageAndOverLimitClientsAreDisconnectedWithoutHurtingOthers() async throws {
        let setup = try await setUp()
        defer { setup.stop() }
        let good = try await DaemonClient.connect(path: setup.socket, timeout: .seconds(5))
        let session = try await good.request("open", [("tv", "tv")])["session"]!.stringValue!
        var sequence = 0
        func goodKey() async throws {
            sequence += 1
            try await good.request("send", [("session", .string(session)), ("seq", .int(sequence)), ("command", .object([("key", "home")]))])
        }
        try await goodKey()

        /// Sends raw bytes and returns everything the daemon wrote until it hung up.
        func rawClient(_ bytes: [UInt8], expectHangUp: Bool = true) async throws -> String {
            let stream = try await SocketStream.connect(unixPath: setup.socket, timeout: .seconds(5))
            try await stream.write(bytes, timeout: .seconds(5))
            var received: [UInt8] = []
            let end = ContinuousClock.now + .seconds(5)
            while ContinuousClock.now < end {
                let chunk = try await stream.read(maxLength: 65536, timeout: .seconds(expectHangUp ? 5 : 0.5))
                if chunk.isEmpty { break }
                received += chunk
                if !expectHangUp, received.filter({ $0 == 0x0A }).count >= 2 { break }
            }
            await stream.close()
            return String(decoding: received, as: UTF8.self)
        }

        let garbage = try await rawClient(Array("this is not json\n".utf8))
        #expect(garbage.contains("\"code\":\"protocol_violation\""), "\(garbage)")
        let binary = try await rawClient([0xFF, 0xFE, 0x00, 0x7B, 0x0A])
        #expect(binary.contains("protocol_violation"), "\(binary)")
        let huge = try await rawClient([UInt8](repeating: 0x61, count: 200 * 1024))
        #expect(huge.contains("\"code\":\"message_too_large\""), "\(huge)")
        let deep = try await rawClient(Array((String(repeating: "[", count: 100) + "\n").utf8))
        #expect(deep.contains("protocol_violation"), "\(deep)")
        // A well-formed request for something unknown is answered; the client stays.
        let unknown = try await rawClient(Array("{\"id\":7,\"op\":\"explode\"}\n".utf8), expectHangUp: false)
        #expect(unknown.contains("\"id\":7,\"ok\":false"), "\(unknown)")
        // Another client's session id is not usable.
        let stolen = try await rawClient(
            Array("{\"id\":1,\"op\":\"send\",\"session\":\"\(session)\",\"seq\":99,\"command\":{\"key\":\"power\"}}\n".utf8),
            expectHangUp: false)
        #expect(stolen.contains("\"ok\":false"), "\(stolen)")
        // A request for another protocol version is refused unsent.
        let future = try await rawClient(
            Array("{\"id\":3,\"protocol\":2,\"op\":\"send\",\"tv\":\"tv\",\"command\":{\"key\":\"power\"}}\n".utf8),
            expectHangUp: false)
        #expect(future.contains("\"id\":3,\"ok\":false,\"error\":{\"code\":\"protocol_violation\""), "\(future)")

        // The good client never noticed.
        for _ in 0..<20 { try await goodKey() }
        try await eventually { setup.emulator.events("key").count >= 21 }
        #expect(setup.emulator.events("key").count == 21)
        #expect(!setup.emulator.events("key").contains { $0["key"] as? String == "KEYCODE_POWER" })
        await good.close()
    }

    /// The real binary: `photon serve --homekit` opens an accessory for the paired TV, says
    /// where in its ready line, `photon homekit show` agrees, and the accessory answers a
    /// controller that has not verified with HAP's 470.
    @Test func serveHomeKitOpensAnAccessoryAndShowAgrees() async throws {
        let emulator = try await Emulator.androidTV()
        defer { emulator.process.terminate() }
        let home = try await TestEnvironment.home("photon-daemon-homekit")
        let pairing = try await e2e.pair(emulator, home: home, name: "tv")
        #expect(await pairing.waitForExit() == 0, "\(pairing.standardError)")
        let daemon = try await startDaemon(home, ["--homekit", "--homekit-address", "127.0.0.1"])
        defer { daemon.terminate() }
        let readyLine = try #require(daemon.standardOutput.split(separator: "\n").first { $0.contains("\"ready\"") })
        let ready = try JSONValue.parse(String(readyLine))
        guard case .object(let accessories)? = ready["homekit"], let port = accessories.first?.1.intValue else {
            throw TestFailure("no homekit ports in \(readyLine)")
        }
        let show = try await run(home, ["homekit", "show", "tv", "--json"])
        let shown = try JSONValue.parse(show.standardOutput)
        #expect(shown["port"]?.intValue == port)
        #expect(shown["paired"]?.boolValue == false)
        #expect(shown["setupURI"]?.stringValue?.hasPrefix("X-HM://") == true)
        let stream = try await SocketStream.connect(host: "127.0.0.1", port: UInt16(port), timeout: .seconds(3))
        try await stream.write(Array("GET /accessories HTTP/1.1\r\nHost: tv\r\n\r\n".utf8), timeout: .seconds(3))
        let answer = String(decoding: try await stream.read(maxLength: 4096, timeout: .seconds(3)), as: UTF8.self)
        #expect(answer.hasPrefix("HTTP/1.1 470 "), "\(answer)")
        await stream.close()
    }

    @Test func socketOfTheWrongModeOrOwnerIsRefused() async throws {
        let setup = try await setUp()
        defer { setup.stop() }
        let paths = StorePaths(home: setup.home)

        // A client refuses a socket others could use, rather than falling back silently.
        chmod(setup.socket, 0o666)
        let loose = try await run(setup.home, ["key", "tv", "home"])
        #expect(loose.process.terminationStatus == 1, "\(loose.standardError)")
        #expect(loose.standardError.contains("refusing to use"))
        chmod(setup.socket, 0o600)

        // A second daemon for the same home is refused.
        let second = try e2e.photon(setup.home, ["serve"])
        #expect(await second.waitForExit() == 2)
        #expect(second.standardError.contains("already running"))

        // The daemon refuses to start in a runtime directory others can enter.
        let other = try await TestEnvironment.home("photon-daemon")
        try FileManager.default.createDirectory(at: StorePaths(home: other).runtimeDirectory, withIntermediateDirectories: true)
        chmod(other.path, 0o700)
        chmod(StorePaths(home: other).runtimeDirectory.path, 0o755)
        let open = try e2e.photon(other, ["serve"])
        #expect(await open.waitForExit() == 1)
        #expect(open.standardError.contains("can be read by other users"), "\(open.standardError)")

        // Another uid that reaches the socket is refused by SO_PEERCRED.
        if geteuid() == 0 {
            chmod(setup.home.path, 0o711)
            chmod(paths.runtimeDirectory.path, 0o711)
            chmod(setup.socket, 0o666)
            defer {
                chmod(setup.socket, 0o600)
                chmod(paths.runtimeDirectory.path, 0o700)
                chmod(setup.home.path, 0o700)
            }
            let script = """
                import socket
                s = socket.socket(socket.AF_UNIX)
                s.connect("\(setup.socket)")
                s.sendall(b'{"id":1,"op":"list"}\\n')
                data = b""
                while True:
                    chunk = s.recv(65536)
                    if not chunk: break
                    data += chunk
                print(data.decode())
                """
            let (status, output) = try TestEnvironment.run(
                "/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", "-c", script])
            #expect(status == 0)
            #expect(output.contains("store_permissions"), "\(output)")
            #expect(!output.contains("\"tvs\""))
            #expect(setup.daemon.standardError.contains("refused a client: uid 65534"))
        }
    }

    @Test func samsungThroughTheDaemonUsesOneConnectionAndKeepsTheTokenOutOfSight() async throws {
        let emulator = try await Emulator.samsung()
        defer { emulator.process.terminate() }
        let home = try await TestEnvironment.home("photon-daemon")
        let pair = try await run(
            home,
            [
                "pair", "127.0.0.1:\(emulator.port)", "--rest-port", String(emulator.restPort), "--trust", emulator.fingerprint,
                "--name", "bedroom",
            ])
        #expect(pair.process.terminationStatus == 0, "\(pair.standardError)")
        let token = try #require(await Store(paths: StorePaths(home: home)).secrets(for: "samsung-0200005a4d53")["token"])
        let daemon = try await startDaemon(home, ["-v"])
        defer { daemon.terminate() }
        let connectedBefore = emulator.events("client_connected").count
        for arguments in [["key", "bedroom", "home"], ["key", "bedroom", "up"], ["text", "bedroom", "hello"], ["volume", "bedroom", "up"]] {
            let p = try await run(home, arguments)
            #expect(p.process.terminationStatus == 0, "\(arguments): \(p.standardError)")
        }
        let status = try await run(home, ["status", "bedroom", "--json"])
        #expect(status.process.terminationStatus == 0, "\(status.standardError)")
        try await eventually { emulator.events("key").count >= 3 && !emulator.events("text").isEmpty }
        #expect(emulator.events("client_connected").count - connectedBefore == 1)
        #expect(emulator.events("key").map { $0["key"] as? String ?? "" } == ["KEY_HOME", "KEY_UP", "KEY_VOLUP"])
        #expect(emulator.events("text").first?["text"] as? String == "hello")
        // The daemon's verbose log never shows the token.
        daemon.terminate()
        #expect(!daemon.standardError.contains(token) && !daemon.standardOutput.contains(token))
        #expect(daemon.standardError.contains("opening a session to bedroom"))
    }
}
