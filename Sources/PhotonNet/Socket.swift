import CPhotonSystem
import Foundation
import Glibc
import PhotonCore

/// A non-blocking socket registered with the event loop. Owns its fd: `close` deregisters
/// then closes it, exactly once.
final class Socket: Sendable {
    let registration: EventLoop.Registration
    /// Whether the descriptor is closed. Its lock is held around every system call on the
    /// descriptor (all non-blocking, so briefly) and around closing it, so a call can
    /// never reach a later file or connection that reused the number.
    private let closed = Locked(false)
    /// The graceful close in progress: every closer waits for the same one.
    private let gracefulClose = Locked<Task<Void, Never>?>(nil)
    var fd: Int32 { registration.fd }

    /// Flags every socket is created with: non-blocking and close-on-exec from birth. A
    /// descriptor that is blocking even for an instant can hang a cooperative thread (and,
    /// on a small machine, every task) if a stale call ever reaches it. Every recv and send
    /// also says MSG_DONTWAIT, so none can block even if the descriptor's mode was changed
    /// under us (seen once in a test run: a cooperative thread stuck in recv on a blocking
    /// descriptor, every other task starved behind it).
    static let birthFlags = Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
    /// MSG_DONTWAIT, for every recv and send.
    static let noWait = Int32(MSG_DONTWAIT)

    init(adopting fd: Int32) {
        let flags = fcntl(fd, F_GETFL)
        _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
        registration = EventLoop.shared.register(fd)
    }

    var isClosed: Bool { closed.withLock { $0 } }

    /// Runs `body` with the descriptor if it is still open (nil once closed); closing
    /// waits until `body` returns. `body` must not block or close the socket.
    func withOpenDescriptor<R>(_ body: (Int32) throws -> R) rethrows -> R? {
        try closed.withLock { isClosed in isClosed ? nil : try body(fd) }
    }

    func close() {
        closed.withLock { isClosed in
            guard !isClosed else { return }
            isClosed = true
            EventLoop.shared.deregister(registration)
            Glibc.close(fd)
        }
    }

    /// Closes gracefully: sends FIN, then reads and drops what the peer still sends until
    /// it closes too (bounded by `linger`). Closing with unread data would make the kernel
    /// send a reset, and a reset can destroy our last message before the peer reads it.
    /// Every caller returns only when the socket is closed; the drain runs in a task of
    /// its own, so a caller's cancellation (a session's reader being stopped) cannot cut
    /// it short.
    func closeGracefully(linger: Duration = .seconds(2)) async {
        let closing = gracefulClose.withLock { current -> Task<Void, Never> in
            if let current { return current }
            let task = Task { await self.drainThenClose(linger: linger) }
            current = task
            return task
        }
        await closing.value
    }

    private func drainThenClose(linger: Duration) async {
        defer { close() }
        guard withOpenDescriptor({ shutdown($0, Int32(SHUT_WR)) }) != nil else { return }
        let end = ContinuousClock.now + linger
        var scratch = [UInt8](repeating: 0, count: 4096)
        while ContinuousClock.now < end {
            var failure: Int32 = 0
            guard
                let n = withOpenDescriptor({ fd -> Int in
                    let n = scratch.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Self.noWait) }
                    if n < 0 { failure = errno }
                    return n
                })
            else { return }
            if n > 0 { continue }
            if n == 0 { return }
            guard failure == EAGAIN || failure == EWOULDBLOCK || failure == EINTR else { return }
            do { try await wait(for: .read, deadline: end) } catch { return }
        }
    }

    /// A new socket of `type` bound to `address` (SO_REUSEADDR; IPv6 sockets IPv6-only),
    /// or a clear error naming the address.
    static func bound(to address: SocketAddress, type: __socket_type) throws -> Int32 {
        let fd = Glibc.socket(address.family, Int32(type.rawValue) | Socket.birthFlags, 0)
        guard fd >= 0 else { throw PhotonError(.internal, "cannot create a socket: \(errnoText())") }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        if address.family == AF_INET6 {
            setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &one, socklen_t(MemoryLayout<Int32>.size))
        }
        guard address.withSockaddr({ bind(fd, $0, $1) }) == 0 else {
            let e = errno
            Glibc.close(fd)
            throw PhotonError(
                .usage, "cannot use \(address): \(errnoText(e))",
                hint: e == EADDRINUSE ? "another program uses that port: pick another with --port" : nil)
        }
        return fd
    }

    /// Waits for the next connection on a listening socket. Throws `connectionClosed`
    /// once the socket closes; running out of descriptors pauses instead of failing.
    func acceptConnection() async throws -> (Socket, sockaddr_storage, socklen_t) {
        while true {
            var storage = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            // Under the descriptor's lock: once this listener is closed its number may belong
            // to another socket, and an accept on that one could take its connection or block.
            let accepted = withUnsafeMutablePointer(to: &storage) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                    withOpenDescriptor { fd in photon_accept_nonblocking(fd, address, &length) }
                }
            }
            guard let accepted else { throw PhotonError(.connectionClosed, "the listener was closed") }
            if accepted >= 0 {
                return (Socket(adopting: accepted), storage, length)
            }
            switch errno {
            case EAGAIN, EWOULDBLOCK, EINTR, ECONNABORTED: break
            case EMFILE, ENFILE:
                try await Task.sleep(for: .milliseconds(50))
                continue
            default:
                throw PhotonError(.connectionClosed, "accept failed: \(errnoText())")
            }
            if isClosed { throw PhotonError(.connectionClosed, "the listener was closed") }
            try await wait(for: .read, deadline: nil)
        }
    }

    func wait(for interest: EventLoop.Interest, deadline: ContinuousClock.Instant?) async throws {
        try await EventLoop.shared.wait(registration, for: interest, deadline: deadline)
    }

    func setNoDelay() {
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    }

    /// Whether the socket is connected (a non-blocking connect has completed).
    var hasPeer: Bool {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        return withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(fd, $0, &length) }
        } == 0
    }

    /// Local address the socket is bound to.
    var localAddress: SocketAddress? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let rc = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return rc == 0 ? SocketAddress(storage: storage, length: length) : nil
    }

    deinit { close() }

    /// Opens a TCP connection to the first address of `host` that answers, within
    /// `timeout` for the whole attempt.
    static func connect(host: String, port: UInt16, timeout: Duration) async throws -> Socket {
        let end = ContinuousClock.now + timeout
        let addresses = try await SocketAddress.resolve(host: host, port: port, timeout: timeout)
        var lastError: PhotonError?
        for address in addresses {
            do {
                return try await connect(to: address, deadline: end, timeout: timeout)
            } catch let error as PhotonError where error.code == .unreachable {
                lastError = error
            }
        }
        throw lastError ?? PhotonError(.unreachable, "no address found for \(host)")
    }

    static func connect(to address: SocketAddress, deadline: ContinuousClock.Instant, timeout: Duration) async throws
        -> Socket
    {
        let fd = Glibc.socket(address.family, Int32(SOCK_STREAM.rawValue) | Socket.birthFlags, 0)
        guard fd >= 0 else { throw PhotonError(.unreachable, "cannot create a socket: \(errnoText())") }
        let socket = Socket(adopting: fd)
        socket.setNoDelay()
        let rc = address.withSockaddr { Glibc.connect(fd, $0, $1) }
        if rc != 0 {
            guard errno == EINPROGRESS else {
                let e = errno
                socket.close()
                throw connectError(address, e)
            }
            // A wake-up only says "look again": the connection is made once the socket has
            // a peer, and failed once it reports an error.
            while true {
                do {
                    try await socket.wait(for: .write, deadline: deadline)
                } catch let error as PhotonError where error.code == .timeout {
                    socket.close()
                    throw PhotonError(
                        .timeout, "connecting to \(address) timed out after \(formatted(timeout)) s",
                        hint: "check that the TV is on and on this network, or raise --timeout")
                } catch {
                    socket.close()
                    throw error
                }
                var soError: Int32 = 0
                var length = socklen_t(MemoryLayout<Int32>.size)
                getsockopt(fd, SOL_SOCKET, SO_ERROR, &soError, &length)
                if soError != 0 {
                    socket.close()
                    throw connectError(address, soError)
                }
                if socket.hasPeer { break }
            }
        }
        return socket
    }

    private static func connectError(_ address: SocketAddress, _ code: Int32) -> PhotonError {
        let hint: String
        switch code {
        case ECONNREFUSED: hint = "nothing listens on that port: check the port, and that the TV's remote service is on"
        case EHOSTUNREACH, ENETUNREACH: hint = "the address is not reachable from this machine: check the network"
        default: hint = "check that the TV is on and on this network"
        }
        return PhotonError(.unreachable, "cannot connect to \(address): \(errnoText(code))", hint: hint)
    }
}

func formatted(_ d: Duration) -> String {
    let s = d.seconds
    return s == s.rounded() ? String(Int(s)) : String(format: "%.2f", s)
}

/// A listening TCP socket (emulators, the WebSocket test server).
public final class TCPListener: Sendable {
    let socket: Socket
    /// The port actually bound (useful with port 0).
    public let port: UInt16
    public let host: String

    /// Listens on `host:port` (port 0 picks a free one).
    public init(host: String = "127.0.0.1", port: UInt16 = 0, backlog: Int32 = 128) throws {
        guard let address = SocketAddress(numericHost: host, port: port) else {
            throw PhotonError(.usage, "listen address must be numeric: \(host)")
        }
        let fd = try Socket.bound(to: address, type: SOCK_STREAM)
        guard listen(fd, backlog) == 0 else {
            let e = errno
            Glibc.close(fd)
            throw PhotonError(.internal, "listen failed: \(errnoText(e))")
        }
        socket = Socket(adopting: fd)
        self.host = host
        self.port = socket.localAddress?.port ?? port
    }

    /// Waits for the next connection. Throws `connectionClosed` once the listener closes.
    func acceptSocket() async throws -> (Socket, SocketAddress) {
        let (s, storage, length) = try await socket.acceptConnection()
        s.setNoDelay()
        return (s, SocketAddress(storage: storage, length: length))
    }

    /// Accepts the next plain TCP connection.
    public func accept() async throws -> SocketStream {
        let (s, peer) = try await acceptSocket()
        return SocketStream(socket: s, peer: peer)
    }

    public func close() { socket.close() }
}
