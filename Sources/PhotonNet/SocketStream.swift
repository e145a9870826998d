import Glibc
import PhotonCore

/// A plain TCP byte stream. Reads and writes are each serialized, so one reader task and
/// several writer tasks may share it; each system call holds the socket's descriptor
/// lock, so a concurrent `close` can never let it touch a reused descriptor number.
public final class SocketStream: ByteStream {
    let socket: Socket
    public let peerAddress: SocketAddress?
    private let readGate = AsyncGate()
    private let writeGate = AsyncGate()

    init(socket: Socket, peer: SocketAddress?) {
        self.socket = socket
        self.peerAddress = peer
    }

    public var peerCertificate: CertificateInfo? { nil }
    public var localCertificate: CertificateInfo? { nil }

    /// Connects to `host:port`.
    public static func connect(host: String, port: UInt16, timeout: Duration) async throws -> SocketStream {
        let socket = try await Socket.connect(host: host, port: port, timeout: timeout)
        return SocketStream(socket: socket, peer: nil)
    }

    /// Tasks that wait on this stream run best on the event loop's thread.
    public var preferredExecutor: (any TaskExecutor)? { EventLoop.shared }

    public func allowBatchedReadiness() { EventLoop.shared.batchReadiness(socket.registration) }

    public func read(maxLength: Int, timeout: Duration?) async throws -> [UInt8] {
        let end = deadline(after: timeout)
        return try await readGate.withGate {
            while true {
                var failure: Int32 = 0
                var open = true
                let bytes = ReadScratch.read(maxLength: maxLength) { buffer in
                    let n = socket.withOpenDescriptor { recv($0, buffer.baseAddress, buffer.count, Socket.noWait) }
                    if let n, n < 0 { failure = errno }
                    open = n != nil
                    return n ?? 0
                }
                guard open else { throw PhotonError(.connectionClosed, "the connection was closed") }
                if failure == 0 { return bytes }
                switch failure {
                case EAGAIN, EWOULDBLOCK: try await socket.wait(for: .read, deadline: end)
                case EINTR: continue
                case ECONNRESET: return []
                case EBADF: throw PhotonError(.connectionClosed, "the connection was closed")
                default: throw PhotonError(.connectionClosed, "reading failed: \(errnoText(failure))")
                }
            }
        }
    }

    public func write(_ bytes: [UInt8], timeout: Duration?) async throws {
        let end = deadline(after: timeout)
        try await writeGate.withGate {
            var offset = 0
            while offset < bytes.count {
                var failure: Int32 = 0
                let sent = bytes.withUnsafeBytes { buffer in
                    socket.withOpenDescriptor { fd -> Int in
                        let n = send(fd, buffer.baseAddress! + offset, buffer.count - offset, Int32(MSG_NOSIGNAL) | Socket.noWait)
                        if n < 0 { failure = errno }
                        return n
                    }
                }
                guard let n = sent else { throw PhotonError(.connectionClosed, "the connection was closed") }
                if n >= 0 {
                    offset += n
                    continue
                }
                switch failure {
                case EAGAIN, EWOULDBLOCK: try await socket.wait(for: .write, deadline: end)
                case EINTR: continue
                default: throw PhotonError(.connectionClosed, "writing failed: \(errnoText(failure))")
                }
            }
        }
    }

    public func close() async { await socket.closeGracefully() }

    /// Closes at once with a reset (RST) instead of a FIN: what a crashed peer, a NAT that
    /// forgot the flow or a fault proxy does. Unsent and unread bytes are dropped.
    public func abort() {
        _ = socket.withOpenDescriptor { fd in
            var off = linger(l_onoff: 1, l_linger: 0)
            return setsockopt(fd, SOL_SOCKET, SO_LINGER, &off, socklen_t(MemoryLayout<linger>.size))
        }
        socket.close()
    }
}
