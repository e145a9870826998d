import Foundation
import Glibc

/// A PulseAudio server of the tests' own, in user space under a temporary folder: a null
/// sink whose monitor is the "microphone" `photon voice` records from, and espeak-ng's
/// speech played into that sink is what it hears. Nothing touches the machine's sound.
public final class PulseAudioServer: @unchecked Sendable {
    public let directory: URL
    public let socket: String
    /// The sink to play into; record from `source`.
    public static let sink = "photon_mic"
    public let source = PulseAudioServer.sink + ".monitor"
    private let process: TestProcess

    public static func start() async throws -> PulseAudioServer {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("photon-pulse-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let server = try PulseAudioServer(directory: directory)
        let end = ContinuousClock.now + .seconds(15)
        while ContinuousClock.now < end {
            // The socket appears once the modules are loaded and the server accepts clients.
            if FileManager.default.fileExists(atPath: server.socket) { return server }
            if let status = server.process.status, status != 0 {
                throw TestFailure("pulseaudio did not start (\(status)): \(server.process.standardError.suffix(2000))")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        server.stop()
        throw TestFailure("pulseaudio did not answer within 15 s: \(server.process.standardError.suffix(2000))")
    }

    private init(directory: URL) throws {
        self.directory = directory
        socket = directory.appendingPathComponent("native").path
        // It daemonizes: a long-lived child of the test process kept Foundation's Process
        // from reaping later children (photon-cli stayed a zombie, its exit never seen).
        process = try TestProcess(
            "/usr/bin/pulseaudio",
            [
                "-n", "--daemonize=yes", "--exit-idle-time=-1", "--disable-shm=yes", "--use-pid-file=yes", "--log-target=stderr",
                "--system=false", "-L", "module-null-sink sink_name=\(Self.sink) rate=16000 channels=1",
                "-L", "module-native-protocol-unix socket=\(socket) auth-anonymous=1",
            ],
            environment: [
                "HOME": directory.path, "XDG_RUNTIME_DIR": directory.path, "XDG_CONFIG_HOME": directory.appendingPathComponent("config").path,
                "PULSE_RUNTIME_PATH": directory.path, "DBUS_SESSION_BUS_ADDRESS": "disabled:",
            ])
        process.closeStandardInput()
    }

    /// What a client needs to reach this server and record from the null sink's monitor.
    public var clientEnvironment: [String: String] {
        ["PULSE_SERVER": "unix:" + socket, "PULSE_SOURCE": source]
    }

    /// Plays a WAV file into the sink (as if spoken into the microphone); returns when
    /// it has been played.
    public func play(_ wav: URL) async throws {
        let player = try TestProcess("/usr/bin/paplay", ["--device=\(Self.sink)", wav.path], environment: clientEnvironment)
        player.closeStandardInput()
        let status = await player.waitForExit(timeout: .seconds(30))
        guard status == 0 else { throw TestFailure("paplay failed (\(status)): \(player.standardError)") }
    }

    public func stop() {
        process.terminate()
        let pidFile = directory.appendingPathComponent("pid").path
        if let text = try? String(contentsOfFile: pidFile, encoding: .utf8), let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)) {
            kill(pid, SIGTERM)
            for _ in 0..<100 where kill(pid, 0) == 0 { usleep(10_000) }
            if kill(pid, 0) == 0 { kill(pid, SIGKILL) }
        }
        try? FileManager.default.removeItem(at: directory)
    }
}

/// espeak-ng as the tests' speaker: phrases rendered to WAV files at test time.
public enum Speaker {
    /// `text` spoken by espeak-ng into a WAV file in `directory`: US English with the Klatt
    /// voice, whose spectrum PocketSphinx's acoustic model (trained on people) matches far
    /// better than the default voice's (about 90 % against 40 % of phrases exactly right);
    /// `voice` picks another of espeak-ng's voices.
    public static func say(_ text: String, in directory: URL, voice: String = "en-us+klatt", wordsPerMinute: Int = 140) async throws -> URL {
        let file = directory.appendingPathComponent("speech-\(UUID().uuidString.prefix(8)).wav")
        let p = try TestProcess("/usr/bin/espeak-ng", ["-v", voice, "-s", String(wordsPerMinute), "-w", file.path, text])
        p.closeStandardInput()
        let status = await p.waitForExit(timeout: .seconds(30))
        guard status == 0 else { throw TestFailure("espeak-ng failed (\(status)): \(p.standardError)") }
        return file
    }
}
