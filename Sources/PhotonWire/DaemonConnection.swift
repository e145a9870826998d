import PhotonJSON

#if canImport(Glibc)
    import Glibc
#endif

/// One connection to the daemon's socket, with the checks every client makes: the socket
/// and its directory private to this user, the daemon running as this user (the kernel's
/// SO_PEERCRED), and lines of at most 1 MiB. Blocking and standard library only, so the
/// `photon` front end uses it without loading Foundation; photon-cli's `DaemonClient`
/// runs it on a reader thread of its own. Both clients therefore trust and read the
/// daemon in exactly one way.
public final class DaemonConnection: @unchecked Sendable {
    /// What opening the socket found.
    public enum Opening {
        case connected(DaemonConnection)
        /// No socket, or one nothing listens on (a daemon that died): no daemon runs.
        case absent
        /// A socket that must not be trusted (another user's, or readable by others).
        case refused(String)
    }

    /// What reading a line found.
    public enum Reading {
        case line([UInt8])
        case timedOut
        /// The daemon closed the connection, the connection was shut down, or a line grew
        /// past the limit.
        case closed
    }

    /// The longest line accepted from the daemon.
    public static let lineLimit = 1 << 20

    private let fd: Int32
    private var buffer: [UInt8] = []

    private init(fd: Int32) { self.fd = fd }

    deinit { Glibc.close(fd) }

    /// Connects to the socket at `path` after checking that it and its directory belong
    /// to this user and are closed to everyone else, then checks who serves it.
    public static func open(_ path: String) -> Opening {
        var st = stat()
        guard lstat(path, &st) == 0 else { return .absent }
        guard isPrivate(path, directory: false) else {
            return .refused("the daemon socket \(path) is not a socket private to this user")
        }
        let directory = parent(of: path)
        guard isPrivate(directory, directory: true) else {
            return .refused("the daemon's directory \(directory) is open to other users")
        }
        let bytes = Array(path.utf8)
        var address = sockaddr_un()
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return .refused("the socket path \(path) is too long") }
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return .absent }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + 1)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, length) }
        }
        guard connected == 0 else {
            Glibc.close(fd)
            return .absent
        }
        // The peer's uid, as the kernel recorded it (struct ucred: pid, uid, gid).
        var credentials: (Int32, UInt32, UInt32) = (0, UInt32.max, 0)
        var size = socklen_t(MemoryLayout.size(ofValue: credentials))
        guard getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &size) == 0, credentials.1 == geteuid() else {
            Glibc.close(fd)
            return .refused("the daemon socket is served by another user")
        }
        return .connected(DaemonConnection(fd: fd))
    }

    /// Owned by this user and closed to everyone else (a socket, or a directory).
    public static func isPrivate(_ path: String, directory: Bool) -> Bool {
        var st = stat()
        guard lstat(path, &st) == 0, st.st_uid == geteuid(), st.st_mode & 0o077 == 0 else { return false }
        return st.st_mode & S_IFMT == (directory ? S_IFDIR : S_IFSOCK)
    }

    /// The directory part of `path`.
    public static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// Writes `text` whole (one line); false when the daemon is gone. Writers on several
    /// threads take turns by a lock of their own.
    public func write(_ text: String) -> Bool {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let n = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n < 0 {
                if errno == EINTR { continue }
                return false
            }
            bytes = bytes.dropFirst(n)
        }
        return true
    }

    /// The next line (without its newline), waiting at most `seconds` (nil: until the
    /// daemon writes or closes). One reader at a time.
    public func readLine(timeout seconds: Double?) -> Reading {
        let end = seconds.map { Self.monotonicTime() + $0 }
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = Array(buffer[..<newline])
                buffer.removeSubrange(...newline)
                return .line(line)
            }
            guard buffer.count < Self.lineLimit else { return .closed }
            var wait: Int32 = -1
            if let end {
                let remaining = end - Self.monotonicTime()
                guard remaining > 0 else { return .timedOut }
                wait = Int32(min(remaining * 1000 + 1, 3_600_000))
            }
            var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, wait)
            if ready < 0, errno == EINTR { continue }
            guard ready > 0 else { return ready == 0 ? .timedOut : .closed }
            var chunk = [UInt8](repeating: 0, count: 16 * 1024)
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n < 0, errno == EINTR || errno == EAGAIN { continue }
            guard n > 0 else { return .closed }
            buffer += chunk[..<n]
        }
    }

    /// The next line as JSON; nil on timeout, close or a line that is not JSON.
    public func readJSON(timeout seconds: Double?) -> JSONValue? {
        guard case .line(let line) = readLine(timeout: seconds) else { return nil }
        return try? JSONValue.parse(line)
    }

    /// Ends the connection both ways: a reader blocked in `readLine` returns `.closed`.
    /// The descriptor itself is closed when the connection is released.
    public func shutDown() { _ = Glibc.shutdown(fd, Int32(SHUT_RDWR)) }

    /// CLOCK_MONOTONIC in seconds.
    public static func monotonicTime() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }
}
