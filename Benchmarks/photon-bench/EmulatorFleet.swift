import AndroidTVEmulator
import Foundation
import Glibc
import PhotonCore
import PhotonEmulatorSupport
import PhotonNet

/// The fleet's emulated Android TVs, in a process of their own (`photon-bench --emulators`),
/// so the daemon's numbers are the daemon's: the TVs' pings, TLS and bookkeeping do not run
/// in the process that measures, and the measuring process does not share a concurrency
/// pool with thousands of emulators. Events come back over a pipe as lines `k <time>`
/// (a key received) and `c <time>` (a remote connection), CLOCK_MONOTONIC seconds, which
/// both processes read from the same clock.
final class EmulatorFleet: @unchecked Sendable {
    let ports: [(remote: UInt16, pairing: UInt16)]
    private let pid: pid_t
    private let stdinFD: Int32

    /// Starts `count` emulators in a child process, each with a copy of `template` (the
    /// state directory of a TV paired for real), and waits until all listen.
    init(count: Int, template: URL, directory: URL, log: DaemonBench.Log) throws {
        var toChild: [Int32] = [0, 0]
        var fromChild: [Int32] = [0, 0]
        guard pipe(&toChild) == 0, pipe(&fromChild) == 0 else { throw PhotonError(.internal, "pipe: \(String(cString: strerror(errno)))") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, toChild[0], 0)
        posix_spawn_file_actions_adddup2(&actions, fromChild[1], 1)
        for fd in toChild + fromChild { posix_spawn_file_actions_addclose(&actions, fd) }
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL.path
        let arguments = [executable, "--emulators", String(count), "--template", template.path, "--directory", directory.path]
        let argv = arguments.map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        var child: pid_t = 0
        let rc = withChildSignalsUnblocked { posix_spawn(&child, executable, &actions, nil, argv, environ) }
        Glibc.close(toChild[0])
        Glibc.close(fromChild[1])
        guard rc == 0 else { throw PhotonError(.internal, "cannot start the emulator fleet: \(String(cString: strerror(rc)))") }
        pid = child
        stdinFD = toChild[1]
        let input = FileHandle(fileDescriptor: fromChild[0], closeOnDealloc: true)

        // Ports first (`p <remote> <pairing>` per TV, then `ready`), then events until EOF.
        let portsReady = Locked<[(UInt16, UInt16)]?>(nil)
        let done = DispatchSemaphore(value: 0)
        let reader = Thread {
            var ports: [(UInt16, UInt16)] = []
            var pending = Data()
            var announced = false
            while true {
                let chunk = input.availableData
                if chunk.isEmpty { break }
                pending.append(chunk)
                while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                    pending.removeSubrange(pending.startIndex...newline)
                    let parts = line.split(separator: " ")
                    switch parts.first {
                    case "k": if let t = Double(parts[1]) { log.keys.withLock { $0.append(t) } }
                    case "c": if let t = Double(parts[1]) { log.connections.withLock { $0.append(t) } }
                    case "p": ports.append((UInt16(parts[1]) ?? 0, UInt16(parts[2]) ?? 0))
                    case "ready":
                        portsReady.withLock { $0 = ports }
                        announced = true
                        done.signal()
                    default: break
                    }
                }
            }
            if !announced { done.signal() }
        }
        reader.start()
        let waited = done.wait(timeout: .now() + 600)
        guard waited == .success, let started = portsReady.withLock({ $0 }), started.count == count else {
            kill(child, SIGKILL)
            throw PhotonError(.internal, "the emulator fleet did not start \(count) TVs")
        }
        ports = started.map { (remote: $0.0, pairing: $0.1) }
    }

    /// The child's CPU time so far (user + system), to report what the TVs cost.
    var cpuSeconds: Double { DaemonBench.cpuSeconds(pid) }

    /// Ends the child: closing its stdin tells it to stop; it is killed if it lingers.
    func stop() {
        Glibc.close(stdinFD)
        var status: Int32 = 0
        for _ in 0..<300 {
            if waitpid(pid, &status, WNOHANG) == pid { return }
            usleep(10_000)
        }
        kill(pid, SIGKILL)
        waitpid(pid, &status, 0)
    }

    /// The child's side: starts the emulators, prints their ports, streams their events,
    /// and exits when stdin closes (the benchmark ended or died).
    static func runChild(count: Int, template: URL, directory: URL) async throws -> Never {
        EventLoop.raiseDescriptorLimit()
        let output = Locked(())
        @Sendable func emit(_ line: String) {
            output.withLock { _ in
                var bytes = Array((line + "\n").utf8)
                var offset = 0
                while offset < bytes.count {
                    let n = bytes.withUnsafeMutableBytes { Glibc.write(1, $0.baseAddress! + offset, $0.count - offset) }
                    if n <= 0 { if errno == EINTR { continue } else { exit(0) } }
                    offset += n
                }
            }
        }
        let onEvent: @Sendable (EmulatorEvent) -> Void = { event in
            switch event.name {
            case "key": emit("k \(event.time)")
            case "client_connected": emit("c \(event.time)")
            default: break
            }
        }
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var tvs: [EmulatedAndroidTV] = []
        for index in 0..<count {
            let state = directory.appendingPathComponent("tv-\(index)")
            try FileManager.default.copyItem(at: template, to: state)
            var configuration = EmulatedAndroidTV.Configuration()
            configuration.remotePort = 0
            configuration.stateDirectory = state
            tvs.append(try await EmulatedAndroidTV.start(configuration, onEvent: onEvent))
        }
        for tv in tvs { emit("p \(tv.remotePort) \(tv.pairingPort)") }
        emit("ready")
        // Stdin closes when the parent is done (or gone).
        let stdinClosed = DispatchSemaphore(value: 0)
        Thread {
            var byte: UInt8 = 0
            while Glibc.read(0, &byte, 1) > 0 {}
            stdinClosed.signal()
        }.start()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async {
                stdinClosed.wait()
                continuation.resume()
            }
        }
        withExtendedLifetime(tvs) {}
        exit(0)
    }
}
