import Glibc
import PhotonJSON

/// A blocking JSON-lines connection to the daemon's socket, with the checks `photon-cli`
/// makes (socket and directory private to this user, the daemon running as this user).
/// Any doubt returns nil, and `photon-cli` — which refuses loudly — takes over.
final class DaemonLine {
    private let fd: Int32
    private var buffer: [UInt8] = []

    private init(fd: Int32) { self.fd = fd }

    static func connect(_ path: String) -> DaemonLine? {
        guard isPrivate(path), isPrivate(parent(of: path), directory: true) else { return nil }
        let bytes = Array(path.utf8)
        var address = sockaddr_un()
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return nil }
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return nil }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + 1)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, length) }
        }
        // The peer's uid, as the kernel recorded it (struct ucred: pid, uid, gid).
        var credentials: (Int32, UInt32, UInt32) = (0, UInt32.max, 0)
        var size = socklen_t(MemoryLayout.size(ofValue: credentials))
        guard connected == 0, getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &size) == 0, credentials.1 == geteuid() else {
            Glibc.close(fd)
            return nil
        }
        return DaemonLine(fd: fd)
    }

    /// Owned by this user and closed to everyone else (a socket, or a directory).
    static func isPrivate(_ path: String, directory: Bool = false) -> Bool {
        var st = stat()
        guard lstat(path, &st) == 0, st.st_uid == geteuid(), st.st_mode & 0o077 == 0 else { return false }
        return st.st_mode & S_IFMT == (directory ? S_IFDIR : S_IFSOCK)
    }

    static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    func write(_ text: String) -> Bool {
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

    /// The next line as JSON, or nil on timeout, close or garbage.
    func readJSON(timeout seconds: Double) -> JSONValue? {
        let end = Self.monotonicTime() + seconds
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = Array(buffer[..<newline])
                buffer.removeSubrange(...newline)
                return try? JSONValue.parse(line)
            }
            let remaining = end - Self.monotonicTime()
            guard remaining > 0, buffer.count < 1 << 20 else { return nil }
            var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, Int32(min(remaining * 1000 + 1, 3_600_000)))
            if ready < 0, errno == EINTR { continue }
            guard ready > 0 else { return nil }
            var chunk = [UInt8](repeating: 0, count: 16 * 1024)
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { return nil }
            buffer += chunk[..<n]
        }
    }

    func close() { Glibc.close(fd) }

    static func monotonicTime() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    static func unixTime() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    /// A random (version 4) UUID, for the command's id.
    static func randomUUID() -> String {
        var bytes = [UInt8](repeating: 0, count: 16)
        let fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC)
        if fd >= 0 {
            _ = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress, 16) }
            Glibc.close(fd)
        }
        bytes[6] = bytes[6] & 0x0F | 0x40
        bytes[8] = bytes[8] & 0x3F | 0x80
        let hex = bytes.map { byte -> String in
            let digits = String(byte, radix: 16, uppercase: true)
            return digits.count == 1 ? "0" + digits : digits
        }
        return [hex[0..<4], hex[4..<6], hex[6..<8], hex[8..<10], hex[10..<16]].map { $0.joined() }.joined(separator: "-")
    }
}
