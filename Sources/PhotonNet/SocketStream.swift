import Glibc
import PhotonCore

/// A plain TCP byte stream. Reads and writes are each serialized, so one reader task and
/// several writer tasks may share it.
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

    public func read(maxLength: Int, timeout: Duration?) async throws -> [UInt8] {
        let end = deadline(after: timeout)
        return try await readGate.withGate {
            while true {
                var failure: Int32 = 0
                let bytes = [UInt8](unsafeUninitializedCapacity: max(1, maxLength)) { buffer, count in
                    let n = recv(socket.fd, buffer.baseAddress, buffer.count, 0)
                    count = max(n, 0)
                    if n < 0 { failure = errno }
                }
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
                let n = bytes.withUnsafeBytes {
                    send(socket.fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL))
                }
                if n >= 0 {
                    offset += n
                    continue
                }
                switch errno {
                case EAGAIN, EWOULDBLOCK: try await socket.wait(for: .write, deadline: end)
                case EINTR: continue
                default: throw PhotonError(.connectionClosed, "writing failed: \(errnoText())")
                }
            }
        }
    }

    public func close() async { await socket.closeGracefully() }
}
