import CPhotonSystem
import Foundation
import Glibc
import PhotonCore

/// Who is at the other end of a Unix socket, as the kernel saw it at connect time
/// (SO_PEERCRED): the daemon admits only its own user, and its clients check the daemon
/// is theirs too.
public struct PeerCredentials: Sendable, Hashable {
    public var pid: Int32
    public var uid: UInt32
    public var gid: UInt32
}

/// A listening Unix-domain stream socket: the daemon's local API. The socket file gets
/// mode 0600 right after binding (its directory should be 0700, so there is no window in
/// which another user can reach it) and is removed on `close`.
public final class UnixListener: Sendable {
    let socket: Socket
    public let path: String

    /// Binds `path`. A file already there is replaced only when it is a socket that
    /// nothing answers on (left by a daemon that died); a live one is an error.
    public init(path: String, mode: mode_t = 0o600, backlog: Int32 = 128) throws {
        var existing = stat()
        if lstat(path, &existing) == 0 {
            guard existing.st_mode & S_IFMT == S_IFSOCK else {
                throw PhotonError(.usage, "\(path) exists and is not a socket", hint: "move it away")
            }
            if UnixListener.answers(path) {
                throw PhotonError(.usage, "something already listens on \(path)", hint: "is `photon serve` already running?")
            }
            unlink(path)
        }
        let fd = try UnixListener.socketDescriptor()
        let bindResult = try UnixListener.withAddress(path) { bind(fd, $0, $1) }
        guard bindResult == 0 else {
            let e = errno
            Glibc.close(fd)
            throw PhotonError(.storeIO, "cannot bind \(path): \(errnoText(e))", hint: "check the directory's permissions")
        }
        guard chmod(path, mode) == 0, listen(fd, backlog) == 0 else {
            let e = errno
            Glibc.close(fd)
            unlink(path)
            throw PhotonError(.storeIO, "cannot listen on \(path): \(errnoText(e))")
        }
        socket = Socket(adopting: fd)
        self.path = path
    }

    /// Waits for the next connection. Throws `connectionClosed` once the listener closes.
    public func accept() async throws -> SocketStream {
        let (s, _, _) = try await socket.acceptConnection()
        return SocketStream(socket: s, peer: nil)
    }

    /// Stops listening and removes the socket file.
    public func close() {
        guard !socket.isClosed else { return }
        unlink(path)
        socket.close()
    }

    /// Whether a process accepts connections on `path` right now.
    static func answers(_ path: String) -> Bool {
        guard let fd = try? socketDescriptor() else { return false }
        defer { Glibc.close(fd) }
        return (try? withAddress(path) { connect(fd, $0, $1) }) == 0
    }

    static func socketDescriptor() throws -> Int32 {
        let fd = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Socket.birthFlags, 0)
        guard fd >= 0 else { throw PhotonError(.internal, "cannot create a Unix socket: \(errnoText())") }
        return fd
    }

    /// Calls `body` with a `sockaddr_un` for `path`, or throws when the path is too long
    /// for one (108 bytes on Linux).
    static func withAddress<R>(_ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> R) throws -> R {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard !bytes.isEmpty, bytes.count < capacity else {
            throw PhotonError(
                .usage, "the socket path \(path) is longer than the \(capacity - 1) bytes a Unix socket allows",
                hint: "use a shorter --home (or XDG_RUNTIME_DIR)")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
        }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + 1)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, length) }
        }
    }
}

extension SocketStream {
    /// Connects to the Unix socket at `path`.
    public static func connect(unixPath path: String, timeout: Duration) async throws -> SocketStream {
        let end = ContinuousClock.now + timeout
        while true {
            let fd = try UnixListener.socketDescriptor()
            let result = try UnixListener.withAddress(path) { Glibc.connect(fd, $0, $1) }
            if result == 0 { return SocketStream(socket: Socket(adopting: fd), peer: nil) }
            let e = errno
            Glibc.close(fd)
            // A full backlog answers EAGAIN: wait a little, within the time allowed.
            guard e == EAGAIN || e == EINTR, ContinuousClock.now < end else {
                let hint: String? = e == ENOENT || e == ECONNREFUSED ? "is `photon serve` running?" : nil
                throw PhotonError(e == EAGAIN ? .timeout : .unreachable, "cannot connect to \(path): \(errnoText(e))", hint: hint)
            }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    /// The process at the other end, for Unix sockets.
    public var peerCredentials: PeerCredentials? {
        var credentials = photon_peer_credentials()
        guard socket.withOpenDescriptor({ photon_get_peer_credentials($0, &credentials) }) == 0 else { return nil }
        return PeerCredentials(pid: credentials.pid, uid: credentials.uid, gid: credentials.gid)
    }
}
