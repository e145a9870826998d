import Foundation
import Glibc
import PhotonCore

/// A child process for tests (openssl s_server, Python peers, the photon CLI), with its
/// output collected line by line so a test can wait for a line, bounded in time.
public final class TestProcess: @unchecked Sendable {
    public let process = Process()
    private let stdoutPipe = Pipe()
    private let stderrPipe = Pipe()
    private let stdinPipe = Pipe()
    /// What each pipe's reader has taken so far, and whether a read is under way.
    private let pipes = [PipeReader(), PipeReader()]
    /// The exit status, once Foundation has recorded it (its termination handler ran).
    /// `isRunning` can turn false before `terminationStatus` may be read, and reading it
    /// then traps, so waits go by this instead.
    private let exitStatus = Locked<Int32?>(nil)

    public init(_ executable: String, _ arguments: [String], environment: [String: String]? = nil, directory: URL? = nil) throws {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        if let directory { process.currentDirectoryURL = directory }
        process.standardOutput = stdoutPipe
        process.standardError = stderrPipe
        process.standardInput = stdinPipe
        // One reader thread per pipe keeps chunks in order (readability handlers can run
        // concurrently and interleave them).
        for (pipe, reader) in zip([stdoutPipe, stderrPipe], pipes) {
            // The thread holds the handle, so the descriptor stays open (and its number
            // cannot be given to another file) until the pipe's end is read.
            let handle = pipe.fileHandleForReading
            Thread { withExtendedLifetime(handle) { reader.readToEnd(handle.fileDescriptor) } }.start()
        }
        process.terminationHandler = { [exitStatus] finished in exitStatus.withLock { $0 = finished.terminationStatus } }
        try TestEnvironment.launch(process)
    }

    /// The exit status, or nil while the process runs (or its end is not yet recorded).
    public var status: Int32? { exitStatus.withLock { $0 } }

    /// Everything the child had written to stdout when this was read: it waits (a bounded
    /// moment) for the reader to take what is already in the pipe, so a test that saw the
    /// child's answer elsewhere (a socket, a broker) also sees what it printed before it.
    public var standardOutput: String { pipes[0].text(caughtUpWith: stdoutPipe.fileHandleForReading.fileDescriptor) }
    public var standardError: String { pipes[1].text(caughtUpWith: stderrPipe.fileHandleForReading.fileDescriptor) }

    public func writeToStandardInput(_ text: String) {
        stdinPipe.fileHandleForWriting.write(Data(text.utf8))
    }

    public func closeStandardInput() { try? stdinPipe.fileHandleForWriting.close() }

    /// Waits until stdout or stderr contains `text`; throws after `timeout`.
    public func waitFor(_ text: String, timeout: Duration = .seconds(15)) async throws {
        let end = ContinuousClock.now + timeout
        while ContinuousClock.now < end {
            if standardOutput.contains(text) || standardError.contains(text) { return }
            if !process.isRunning {
                try await Task.sleep(for: .milliseconds(50))
                if standardOutput.contains(text) || standardError.contains(text) { return }
                throw TestFailure(
                    "process exited (\(status.map(String.init) ?? "?")) before printing '\(text)'.\nstdout: \(standardOutput)\nstderr: \(standardError)"
                )
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw TestFailure("timed out waiting for '\(text)'.\nstdout: \(standardOutput)\nstderr: \(standardError)")
    }

    /// Waits for the process to exit (killing it after `timeout`) and returns its status.
    @discardableResult
    public func waitForExit(timeout: Duration = .seconds(30)) async -> Int32 {
        let end = ContinuousClock.now + timeout
        while status == nil && ContinuousClock.now < end { try? await Task.sleep(for: .milliseconds(10)) }
        if status == nil { terminate() }
        // The termination handler runs shortly after the end; then the readers drain the
        // last output, up to the pipes' end (a busy machine can take a while to schedule
        // them). A child that left a process of its own holding the pipes gets a bound.
        let recorded = ContinuousClock.now + .seconds(5)
        while status == nil && ContinuousClock.now < recorded { try? await Task.sleep(for: .milliseconds(5)) }
        let drained = ContinuousClock.now + .seconds(2)
        while !pipes.allSatisfy(\.isDrained) && ContinuousClock.now < drained { try? await Task.sleep(for: .milliseconds(2)) }
        return status ?? -1
    }

    /// Ends the process: SIGTERM, then SIGKILL if it is still there after 0.3 s.
    /// Polls instead of `waitUntilExit`, which can wait forever on Linux.
    public func terminate() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGTERM)
        for attempt in 0..<300 {
            if !process.isRunning { return }
            if attempt == 30 { kill(process.processIdentifier, SIGKILL) }
            usleep(10_000)
        }
    }

    deinit { terminate() }
}

/// One output pipe's reader: the bytes taken so far, whether a read is under way and how
/// many have begun, so a caller can tell when nothing written is left unread.
private final class PipeReader: Sendable {
    private struct State {
        var bytes = Data()
        var isReading = false
        var readsBegun = 0
        var isDrained = false
    }
    private let state = Locked(State())

    var isDrained: Bool { state.withLock { $0.isDrained } }

    /// Reads until the pipe's end. Waits with poll, then marks a read as under way before
    /// taking bytes out of the pipe, so "not reading and the pipe empty" means caught up.
    func readToEnd(_ descriptor: Int32) {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            var waiting = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            if poll(&waiting, 1, -1) < 0 {
                if errno == EINTR { continue }
                break
            }
            state.withLock {
                $0.isReading = true
                $0.readsBegun += 1
            }
            let count = read(descriptor, &buffer, buffer.count)
            if count < 0 && (errno == EINTR || errno == EAGAIN) {
                state.withLock { $0.isReading = false }
                continue
            }
            state.withLock {
                if count > 0 { $0.bytes.append(contentsOf: buffer[0..<count]) }
                $0.isReading = false
            }
            if count <= 0 { break }
        }
        state.withLock { $0.isDrained = true }
    }

    /// The text read so far, once the reader has taken what the pipe held when this was
    /// called (bounded at one second: a child writing without pause never lets it settle).
    func text(caughtUpWith descriptor: Int32) -> String {
        let end = ContinuousClock.now + .seconds(1)
        while ContinuousClock.now < end {
            let before = state.withLock { (reading: $0.isReading, begun: $0.readsBegun, drained: $0.isDrained) }
            if before.drained { break }
            var pending: Int32 = 0
            let empty = ioctl(descriptor, UInt(FIONREAD), &pending) == 0 && pending == 0
            let after = state.withLock { (reading: $0.isReading, begun: $0.readsBegun) }
            if empty && !before.reading && !after.reading && before.begun == after.begun { break }
            usleep(100)
        }
        return state.withLock { String(decoding: $0.bytes, as: UTF8.self) }
    }
}

public struct TestFailure: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// Paths and scratch space shared by the test targets.
public enum TestEnvironment {
    /// The repository root (this file is Tests/PhotonTestSupport/TestProcess.swift).
    public static let repositoryRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The Python of the test venv that `make test` creates with the pinned peers.
    public static var python: String {
        get throws {
            let path = repositoryRoot.appendingPathComponent(".venv/bin/python").path
            guard FileManager.default.isExecutableFile(atPath: path) else {
                throw TestFailure("no test venv at \(path): run `make test`, which creates it with the pinned peers")
            }
            return path
        }
    }

    public static func peerScript(_ name: String) -> String {
        repositoryRoot.appendingPathComponent("Tests/peers/\(name)").path
    }

    /// A fresh private temporary directory.
    public static func temporaryDirectory(_ label: String = "photon-test") throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(label)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Starts `process` with no signal blocked in it. A child inherits the signal mask of
    /// the thread that starts it, and the threads Swift concurrency runs tests on block
    /// nearly every signal: started from one of them, a daemon or a Python peer would
    /// ignore SIGTERM (so every stop waited for the SIGKILL fallback), and a tmux server
    /// would outlive its test (`kill-server` makes tmux send SIGTERM to itself).
    public static func launch(_ process: Process) throws {
        var none = sigset_t()
        sigemptyset(&none)
        var saved = sigset_t()
        pthread_sigmask(SIG_SETMASK, &none, &saved)
        defer { pthread_sigmask(SIG_SETMASK, &saved, nil) }
        try process.run()
    }

    /// Runs a command to completion and returns its exit status and output; `environment`
    /// is added to (or replaces in) this process's.
    @discardableResult
    public static func run(
        _ executable: String, _ arguments: [String], input: String? = nil, environment: [String: String] = [:]
    ) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, added in added }
        }
        let out = Pipe()
        process.standardOutput = out
        process.standardError = out
        let inPipe = Pipe()
        process.standardInput = inPipe
        try launch(process)
        if let input { inPipe.fileHandleForWriting.write(Data(input.utf8)) }
        try inPipe.fileHandleForWriting.close()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
