import Foundation
import Glibc
import PhotonCore
import PhotonJSON
import PhotonNet
import PhotonTestSupport
import Testing

/// The front end writes its request before the daemon's greeting arrives; whatever the
/// timing, the command is sent at most once, and never handed on after it may have gone.
@Suite(.serialized) struct FrontEndOnceTests {
    /// A daemon stand-in on the home's socket: greets after `greetingDelay`, then reads
    /// request lines and answers each with `answer` (nil: never answers).
    final class SlowDaemon: Sendable {
        let listener: UnixListener
        let requests = Locked<[String]>([])
        let task: Task<Void, Never>

        init(home: URL, greetingDelay: Duration, answer: String?) throws {
            let run = home.appendingPathComponent("run")
            try FileManager.default.createDirectory(at: run, withIntermediateDirectories: true)
            chmod(run.path, 0o700)
            let listener = try UnixListener(path: run.appendingPathComponent("photon.sock").path)
            self.listener = listener
            let requests = self.requests
            task = Task {
                guard let client = try? await listener.accept() else { return }
                try? await Task.sleep(for: greetingDelay)
                try? await client.write(Array("{\"event\":\"hello\",\"protocol\":1,\"pid\":1}\n".utf8), timeout: .seconds(5))
                var buffer: [UInt8] = []
                while let chunk = try? await client.read(maxLength: 4096, timeout: .seconds(20)), !chunk.isEmpty {
                    buffer += chunk
                    while let newline = buffer.firstIndex(of: 0x0A) {
                        requests.withLock { $0.append(String(decoding: buffer[..<newline], as: UTF8.self)) }
                        buffer.removeSubrange(...newline)
                        if let answer { try? await client.write(Array((answer + "\n").utf8), timeout: .seconds(5)) }
                    }
                }
                await client.close()
            }
        }

        func stop() {
            task.cancel()
            listener.close()
        }
    }

    /// The front end alone in a directory, so handing on fails visibly.
    func frontEnd() throws -> String {
        let alone = try TestEnvironment.temporaryDirectory("photon-front-once")
        let front = alone.appendingPathComponent("photon").path
        try FileManager.default.copyItem(atPath: try AndroidTVEndToEndTests.binary("photon"), toPath: front)
        return front
    }

    @Test func aSlowGreetingIsWaitedForAndTheCommandGoesOnce() async throws {
        let home = try TestEnvironment.temporaryDirectory("photon-slow-daemon")
        let daemon = try SlowDaemon(home: home, greetingDelay: .milliseconds(2000), answer: #"{"id":1,"ok":true,"sent":"home"}"#)
        defer { daemon.stop() }
        let p = try TestProcess(try frontEnd(), ["key", "tv", "home", "--home", home.path])
        p.closeStandardInput()
        #expect(await p.waitForExit(timeout: .seconds(30)) == 0, "\(p.standardError)")
        #expect(!p.standardError.contains("photon-cli"), "\(p.standardError)")
        #expect(daemon.requests.withLock { $0.count } == 1)
    }

    @Test func noAnswerAfterSendingIsReportedNotResent() async throws {
        let home = try TestEnvironment.temporaryDirectory("photon-mute-daemon")
        let daemon = try SlowDaemon(home: home, greetingDelay: .zero, answer: nil)
        defer { daemon.stop() }
        let p = try TestProcess(try frontEnd(), ["key", "tv", "home", "--home", home.path, "--timeout", "1"])
        p.closeStandardInput()
        #expect(await p.waitForExit(timeout: .seconds(30)) == 3, "\(p.standardError)")
        #expect(p.standardError.contains("may or may not have been sent"))
        #expect(!p.standardError.contains("photon-cli"))
        #expect(daemon.requests.withLock { $0.count } == 1)
    }

    @Test func aMalformedMACIsAUsageError() async throws {
        let home = try await TestEnvironment.home("photon-wake-typo")
        let cli = try AndroidTVEndToEndTests.binary("photon-cli")
        for typo in ["11:22:33:44:55", "11:22:33:44:55:6G", "０１:２３:４５:６７:８９:ＡＢ"] {
            let result = try TestEnvironment.run(cli, ["wake", typo, "--home", home.path, "--broadcast", "127.0.0.1"])
            #expect(result.status == 2, "\(typo): \(result.output)")
            #expect(result.output.contains("AA:BB:CC:DD:EE:FF"), "\(typo): \(result.output)")
        }
    }
}
