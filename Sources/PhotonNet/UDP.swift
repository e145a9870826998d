import CPhotonSystem
import Glibc
import PhotonCore

/// Sends single UDP datagrams (Wake-on-LAN magic packets, SSDP searches).
public enum UDPSender {
    /// Sends `payload` to `host:port`. `broadcast` allows broadcast destinations
    /// (SO_BROADCAST). The host must be numeric.
    public static func send(_ payload: [UInt8], to host: String, port: UInt16, broadcast: Bool = false) throws {
        guard let address = SocketAddress(numericHost: host, port: port) else {
            throw PhotonError(.usage, "'\(Redaction.sanitize(host))' is not a numeric IP address", hint: "give an IPv4 or IPv6 address")
        }
        let fd = socket(address.family, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw PhotonError(.internal, "cannot create a UDP socket: \(errnoText())") }
        defer { close(fd) }
        if broadcast {
            var one: Int32 = 1
            setsockopt(fd, SOL_SOCKET, SO_BROADCAST, &one, socklen_t(MemoryLayout<Int32>.size))
        }
        let sent = payload.withUnsafeBytes { bytes in
            address.withSockaddr { sendto(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL), $0, $1) }
        }
        guard sent == payload.count else {
            throw PhotonError(
                .unreachable, "sending to \(address) failed: \(errnoText())",
                hint: errno == EACCES ? "broadcast needs --broadcast with an address this machine may send to" : nil)
        }
    }
}

/// A bound UDP socket that receives datagrams (tests, SSDP answers).
public final class UDPReceiver: Sendable {
    private let socket: Socket
    public let port: UInt16

    public init(host: String = "127.0.0.1", port: UInt16 = 0) throws {
        guard let address = SocketAddress(numericHost: host, port: port) else {
            throw PhotonError(.usage, "listen address must be numeric: \(host)")
        }
        let fd = Glibc.socket(address.family, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw PhotonError(.internal, "cannot create a UDP socket: \(errnoText())") }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        guard address.withSockaddr({ bind(fd, $0, $1) }) == 0 else {
            let e = errno
            Glibc.close(fd)
            throw PhotonError(.usage, "cannot bind UDP \(address): \(errnoText(e))")
        }
        socket = Socket(adopting: fd)
        self.port = socket.localAddress?.port ?? port
    }

    /// The next datagram (at most `maxLength` bytes) and its sender.
    public func receive(maxLength: Int = 2048, timeout: Duration?) async throws -> ([UInt8], SocketAddress) {
        let end = deadline(after: timeout)
        var buffer = [UInt8](repeating: 0, count: maxLength)
        while true {
            var storage = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let n = buffer.withUnsafeMutableBytes { bytes in
                withUnsafeMutablePointer(to: &storage) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        recvfrom(socket.fd, bytes.baseAddress, bytes.count, 0, $0, &length)
                    }
                }
            }
            if n >= 0 { return (Array(buffer[..<n]), SocketAddress(storage: storage, length: length)) }
            guard errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR else {
                throw PhotonError(.connectionClosed, "UDP receive failed: \(errnoText())")
            }
            try await socket.wait(for: .read, deadline: end)
        }
    }

    public func close() { socket.close() }
}
