import Foundation
import Glibc
import PhotonCore
import PhotonWire

/// File operations with the guarantees the security model asks for: private
/// directories (0700) and files (0600) owned by this user, atomic replacement (temp file,
/// fsync, rename, fsync of the directory), and refusal of files others can read.
enum SecureFiles {
    /// Creates the directory (and parents) with mode 0700, or checks an existing one is a
    /// directory owned by us that no one else can enter. A symbolic link is refused
    /// (`lstat`), and a directory that appeared between our check and our `mkdir`
    /// (EEXIST) is checked like any other, never trusted because we meant to create it.
    static func ensurePrivateDirectory(_ url: URL) throws { try ensurePrivateDirectory(url.path) }

    static func ensurePrivateDirectory(_ path: String) throws {
        var st = stat()
        if lstat(path, &st) != 0 {
            let parent = parentPath(of: path)
            if parent != path, access(parent, F_OK) != 0 {
                try FileManager.default.createDirectory(
                    atPath: parent, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            }
            if mkdir(path, 0o700) == 0 {
                chmod(path, 0o700)
            } else if errno != EEXIST {
                throw PhotonError(
                    .storeIO, "cannot create \(path): \(String(cString: strerror(errno)))",
                    hint: "check the permissions of \(parent), or use --home")
            }
            guard lstat(path, &st) == 0 else {
                throw PhotonError(.storeIO, "\(path) vanished while it was being created", hint: "run the command again")
            }
        }
        guard st.st_mode & S_IFMT == S_IFDIR else {
            let what = st.st_mode & S_IFMT == S_IFLNK ? "a symbolic link" : "not a directory"
            throw PhotonError(.storePermissions, "\(path) is \(what)", hint: "move it away or choose another --home")
        }
        guard st.st_uid == geteuid() else {
            throw PhotonError(
                .storePermissions, "\(path) belongs to another user",
                hint: "use a directory of your own with --home")
        }
        if st.st_mode & 0o077 != 0 {
            throw PhotonError(
                .storePermissions,
                "\(path) can be read by other users (mode \(String(st.st_mode & 0o777, radix: 8)))",
                hint: "run `chmod 700 \(path)`")
        }
    }

    /// The directory `path` is in ("/" for a top-level name), by the rule the front end
    /// uses to find photon-cli beside itself.
    static func parentPath(of path: String) -> String { DaemonConnection.parent(of: path) }

    /// The last component of `path`.
    static func fileName(of path: String) -> String {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return path }
        return String(path[path.utf8.index(after: slash)...])
    }

    /// Reads a file, or nil if it does not exist. Refuses files others can access.
    static func read(_ url: URL) throws -> Data? { try read(url.path) }

    static func read(_ path: String) throws -> Data? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        if fd < 0 {
            if errno == ENOENT { return nil }
            throw PhotonError(
                .storeIO, "cannot open \(path): \(String(cString: strerror(errno)))",
                hint: "check its permissions (it should be yours, mode 600)")
        }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw PhotonError(.storeIO, "cannot stat \(path)") }
        guard st.st_uid == geteuid() else {
            throw PhotonError(.storePermissions, "\(path) belongs to another user", hint: "remove it or use --home")
        }
        guard st.st_mode & 0o077 == 0 else {
            throw PhotonError(
                .storePermissions,
                "\(path) can be read by other users (mode \(String(st.st_mode & 0o777, radix: 8)))",
                hint: "run `chmod 600 \(path)`; if others could read secrets, also run `photon identity regenerate`")
        }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = Glibc.read(fd, &buffer, buffer.count)
            if n < 0 {
                if errno == EINTR { continue }
                throw PhotonError(.storeIO, "cannot read \(path): \(String(cString: strerror(errno)))")
            }
            if n == 0 { break }
            data.append(contentsOf: buffer[..<n])
            guard data.count <= 16 << 20 else {
                throw PhotonError(.storeCorrupt, "\(path) is larger than 16 MiB", hint: "it is not a Photon store file")
            }
        }
        return data
    }

    /// Replaces `url` atomically with `data`, mode 0600. `durable: false` skips the two
    /// fsyncs, for a cache whose loss in a crash costs nothing but time.
    static func writeAtomically(_ data: Data, to url: URL, durable: Bool = true) throws {
        try writeAtomically(data, to: url.path, durable: durable)
    }

    static func writeAtomically(_ data: Data, to path: String, durable: Bool = true) throws {
        let directory = parentPath(of: path)
        let temp = directory + "/.\(fileName(of: path)).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp"
        let fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else {
            throw PhotonError(.storeIO, "cannot create \(temp): \(String(cString: strerror(errno)))")
        }
        var ok = false
        defer {
            if !ok { unlink(temp) }
        }
        do {
            defer { close(fd) }
            try data.withUnsafeBytes { raw in
                var offset = 0
                while offset < raw.count {
                    let n = Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset)
                    if n < 0 {
                        if errno == EINTR { continue }
                        throw PhotonError(
                            .storeIO, "cannot write \(temp): \(String(cString: strerror(errno)))",
                            hint: "check free disk space")
                    }
                    offset += n
                }
            }
            guard !durable || fsync(fd) == 0 else { throw PhotonError(.storeIO, "fsync of \(temp) failed") }
        }
        guard rename(temp, path) == 0 else {
            throw PhotonError(.storeIO, "cannot replace \(path): \(String(cString: strerror(errno)))")
        }
        ok = true
        guard durable else { return }
        let dirfd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dirfd >= 0 {
            fsync(dirfd)
            close(dirfd)
        }
    }

    /// Moves a bad file aside (never deleting it) and returns where it went.
    static func keepAside(_ url: URL) -> URL {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        var target = url.appendingPathExtension("corrupt-\(formatter.string(from: Date()))")
        var n = 1
        while access(target.path, F_OK) == 0 {
            target = url.appendingPathExtension("corrupt-\(formatter.string(from: Date()))-\(n)")
            n += 1
        }
        rename(url.path, target.path)
        return target
    }
}

/// An exclusive advisory lock (flock) on the store's lock file, held while reading and
/// rewriting the store so that concurrent processes never lose each other's changes.
/// Waiting polls with a non-blocking flock, so no thread is ever parked in the kernel.
final class StoreLock: Sendable {
    private let fd: Int32

    private init(fd: Int32) { self.fd = fd }

    static func acquire(_ url: URL, timeout: Duration) async throws -> StoreLock {
        try await acquire(url.path, timeout: timeout)
    }

    static func acquire(_ path: String, timeout: Duration) async throws -> StoreLock {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else {
            throw PhotonError(.storeIO, "cannot open the lock file \(path): \(String(cString: strerror(errno)))")
        }
        let end = ContinuousClock.now + timeout
        var delay = Duration.milliseconds(1)
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR else {
                close(fd)
                throw PhotonError(.storeIO, "cannot lock \(path): \(String(cString: strerror(errno)))")
            }
            guard ContinuousClock.now < end else {
                close(fd)
                throw PhotonError(
                    .storeIO, "the store is locked by another Photon process",
                    hint: "wait for it to finish, or look for a stuck `photon` process")
            }
            do {
                try await Task.sleep(for: delay)
            } catch {
                close(fd)
                throw error
            }
            delay = min(delay * 2, .milliseconds(20))
        }
        return StoreLock(fd: fd)
    }

    deinit {
        flock(fd, LOCK_UN)
        close(fd)
    }
}
