import Foundation
import PhotonCore

/// An emulated TV run as a child process, `photon-emulator BRAND --ephemeral`, for
/// `photon demo`: `photon-cli` links no emulator code, so it runs the emulators the package
/// installs beside it and reads where they listen from their `listening` line.
final class DemoTVProcess: Sendable {
    let process: Process
    /// Succeeds when the process has ended.
    private let exited: Promise<Void>
    /// Its ports, by the names its adapter gives them (`remote`, `pairing`, `wss`).
    let ports: [String: UInt16]
    /// Its certificate's SHA-256 fingerprint, for a brand with TLS.
    let fingerprint: String?
    private init(process: Process, exited: Promise<Void>, ports: [String: UInt16], fingerprint: String?) {
        self.process = process
        self.exited = exited
        self.ports = ports
        self.fingerprint = fingerprint
    }

    /// `photon-emulator` beside this program (as `make demo`, `make install` and the package
    /// lay them out), else on PATH.
    static func executable() throws -> String {
        let here = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        let beside = here.appendingPathComponent("photon-emulator").path
        if FileManager.default.isExecutableFile(atPath: beside) { return beside }
        for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") {
            let candidate = "\(directory)/photon-emulator"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        throw PhotonError(
            .notFound, "photon-emulator is not installed beside photon-cli or on PATH; the demo runs its emulated TVs",
            hint: "`make demo` builds it; the Debian package and `make install` install it")
    }

    /// The brands `photon-emulator` at `path` can run (its `--help` lists them).
    static func brands(_ path: String) throws -> Set<String> {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = ["--help"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        // "Brands:" then one indented line per brand, up to the next blank line.
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).drop { !$0.hasPrefix("Brands:") }.dropFirst()
        return Set(lines.prefix { !$0.isEmpty }.compactMap { $0.split(separator: " ").first.map(String.init) })
    }

    /// Starts `photon-emulator BRAND` on free loopback ports and waits (at most 10 s) for
    /// its `listening` line; every line it prints afterwards goes to `onEvent`.
    static func start(_ path: String, brand: String, name: String, onEvent: @escaping @Sendable (JSONValue) -> Void) async throws
        -> DemoTVProcess
    {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = [brand, "--ephemeral", "--name", name]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        let listening = Promise<JSONValue>()
        let exited = Promise<Void>()
        process.terminationHandler = { _ in exited.succeed(()) }
        do {
            try process.run()
        } catch {
            // Foundation wraps the system's reason (ENOENT, EACCES, ETXTBSY…) in a Cocoa error.
            let wrapped = error as NSError
            let reason = (wrapped.userInfo[NSUnderlyingErrorKey] as? NSError).map { underlying in
                underlying.domain == NSPOSIXErrorDomain ? String(cString: strerror(Int32(underlying.code))) : underlying.localizedDescription
            }
            throw PhotonError(
                .internal, "could not start \(path) \(brand): \(reason ?? wrapped.localizedDescription)",
                hint: "check that photon-emulator is installed and executable (`make demo` builds it)")
        }
        // Its output is read on a thread of its own with read(2), retried when a signal
        // interrupts it (FileHandle's readers stop the process on EINTR).
        let descriptor = output.fileHandleForReading.fileDescriptor
        Thread.detachNewThread {
            var pending: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 16 * 1024)
            while true {
                let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { break }
                pending += chunk[..<count]
                while let end = pending.firstIndex(of: 0x0A) {
                    let line = Array(pending[..<end])
                    pending.removeSubrange(...end)
                    guard let event = try? JSONValue.parse(line) else { continue }
                    if event["event"]?.stringValue == "listening" { listening.succeed(event) }
                    onEvent(event)
                }
            }
            listening.fail(PhotonError(.connectionClosed, "photon-emulator \(brand) ended before it listened"))
        }
        let line: JSONValue
        do {
            line = try await withTimeout(.seconds(10), "photon-emulator \(brand)") { try await listening.value() }
        } catch {
            let started = DemoTVProcess(process: process, exited: exited, ports: [:], fingerprint: nil)
            await started.stop()
            throw error
        }
        guard case .object(let fields) = line else { throw PhotonError(.protocolViolation, "photon-emulator \(brand) said nothing readable") }
        var ports: [String: UInt16] = [:]
        for (key, value) in fields where key.hasPrefix("port_") {
            if let port = value.intValue.flatMap(UInt16.init(exactly:)) { ports[String(key.dropFirst(5))] = port }
        }
        return DemoTVProcess(
            process: process, exited: exited, ports: ports, fingerprint: line["fingerprint"]?.stringValue)
    }

    /// Asks the emulator to end (SIGTERM) and waits for it without holding a thread: at most
    /// 5 s, then SIGKILL and 1 s more. (`Process.waitUntilExit` spins a run loop on the
    /// calling thread, one of the two of the cooperative pool on a 2-core machine.)
    func stop() async {
        if process.isRunning { process.terminate() }
        if (try? await waitAtMost(.seconds(5), for: { try await self.exited.value() })) != nil { return }
        kill(process.processIdentifier, SIGKILL)
        _ = try? await waitAtMost(.seconds(1), for: { try await self.exited.value() })
    }
}
