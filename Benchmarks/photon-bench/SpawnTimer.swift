import Foundation
import Glibc
import PhotonCore

/// Times a child process from the moment it is spawned to the moment it has exited, as
/// a user's shell sees it: `posix_spawn`, then a blocking `waitpid`. Foundation's
/// `Process` adds time of its own around a short child (its spawn preparation, and the
/// run-loop wake-up that notices the exit: about 2 ms in a 10 ms run on this machine), and
/// that would be counted against whichever command it ran, ours and the Python peer's
/// alike. The child gets no blocked signal, stdout to /dev/null, and stderr kept.
enum SpawnTimer {
    struct Run {
        /// From just before the spawn to the exit being collected.
        var seconds: Double
        var status: Int32
        var standardError: String
    }

    static func run(_ path: String, _ arguments: [String], environment extra: [String: String] = [:]) throws -> Run {
        let environment = ProcessInfo.processInfo.environment.merging(extra) { $1 }
        let errorFile = FileManager.default.temporaryDirectory.appendingPathComponent("photon-bench-\(UUID().uuidString).err")
        defer { unlink(errorFile.path) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, errorFile.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var envp = environment.filter { $0.key != "PHOTON_TIMINGS_SPAWNED_AT" }.map { strdup("\($0.key)=\($0.value)") }
        var pid: pid_t = 0
        let start = PhaseTimer.monotonicSeconds()
        // With timings on, the child's phases start at the spawn, on the same clock.
        if environment["PHOTON_TIMINGS"] != nil { envp.append(strdup("PHOTON_TIMINGS_SPAWNED_AT=\(start)")) }
        envp.append(nil)
        defer { for pointer in envp { free(pointer) } }
        let spawned = posix_spawn(&pid, path, &actions, &attributes, argv, envp)
        guard spawned == 0 else { throw PhotonError(.internal, "cannot run \(path): \(String(cString: strerror(spawned)))") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { throw PhotonError(.internal, "waiting for \(path): \(String(cString: strerror(errno)))") }
        }
        let end = PhaseTimer.monotonicSeconds()
        let errors = (try? String(contentsOf: errorFile, encoding: .utf8)) ?? ""
        // Exited normally: the exit code; killed: 128 + the signal, as a shell reports it.
        let code = status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        return Run(seconds: end - start, status: code, standardError: errors)
    }
}
