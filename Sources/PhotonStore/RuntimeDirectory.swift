import Foundation
import Glibc
import PhotonCore

/// The daemon's runtime directory (its socket and lock): private to this user.
extension Store {
    /// Creates the runtime directory (0700) or checks that an existing one is ours and
    /// closed to everyone else.
    public func prepareRuntimeDirectory() throws {
        try SecureFiles.ensurePrivateDirectory(paths.runtimePath)
    }

    /// Checks, without creating anything, that the runtime directory is ours and private
    /// and that the socket in it is a socket only we can use. A client must not talk to
    /// a socket someone else could have put there.
    public func checkServiceSocket() throws {
        let directory = paths.runtimePath
        try Self.requirePrivate(
            directory, type: S_IFDIR, refusal: "refusing to use the daemon in \(directory): it is not a private directory of this user",
            hint: "run `chmod 700 \(directory)` and restart `photon serve`, or pass --direct")
        let socket = paths.socketPath
        try Self.requirePrivate(
            socket, type: S_IFSOCK, refusal: "refusing to use \(socket): it is not a socket only this user can use",
            hint: "stop whatever made it, remove it, and restart `photon serve`; or pass --direct")
    }

    /// Throws unless `path` exists, is of `type`, belongs to this user and is closed to
    /// everyone else.
    private static func requirePrivate(_ path: String, type: mode_t, refusal: String, hint: String) throws {
        var st = stat()
        guard lstat(path, &st) == 0 else {
            throw PhotonError(.notFound, "\(path) does not exist", hint: "start the daemon with `photon serve`")
        }
        guard st.st_mode & S_IFMT == type, st.st_uid == geteuid(), st.st_mode & 0o077 == 0 else {
            throw PhotonError(.storePermissions, "\(refusal) (mode \(String(st.st_mode & 0o777, radix: 8)))", hint: hint)
        }
    }

    /// Takes the daemon's lock without waiting; nil when another daemon holds it. The
    /// lock file records the holder's pid, for the message the next one prints.
    public func acquireServiceLock() throws -> ServiceLock? {
        let path = paths.serviceLockFile.path
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else {
            throw PhotonError(.storeIO, "cannot open \(path): \(String(cString: strerror(errno)))")
        }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            close(fd)
            return nil
        }
        let pid = Array("\(getpid())\n".utf8)
        _ = ftruncate(fd, 0)
        _ = pid.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        return ServiceLock(fd: fd)
    }

    /// The pid recorded by the daemon that holds (or held) the lock.
    public func serviceLockHolder() -> Int32? {
        guard let text = try? String(contentsOf: paths.serviceLockFile, encoding: .utf8) else { return nil }
        return Int32(text.trimmingCharacters(in: .whitespacesAndNewlines))
    }
}

/// Held by a running daemon for as long as it serves a home.
public final class ServiceLock: Sendable {
    private let fd: Int32
    init(fd: Int32) { self.fd = fd }
    deinit {
        flock(fd, LOCK_UN)
        close(fd)
    }
}
