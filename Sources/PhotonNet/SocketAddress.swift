import CPhotonSystem
import Foundation
import Glibc
import PhotonCore

/// An IPv4 or IPv6 socket address, resolved from a host string.
public struct SocketAddress: Sendable, CustomStringConvertible {
    var storage: sockaddr_storage
    var length: socklen_t

    public var family: Int32 { Int32(storage.ss_family) }

    /// The numeric host, as `inet_ntop` prints it.
    public var host: String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        var copy = storage
        withUnsafePointer(to: &copy) { raw in
            raw.withMemoryRebound(to: UInt8.self, capacity: MemoryLayout<sockaddr_storage>.size) { bytes in
                if family == AF_INET {
                    bytes.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { sin in
                        var a = sin.pointee.sin_addr
                        _ = inet_ntop(AF_INET, &a, &buffer, socklen_t(buffer.count))
                    }
                } else {
                    bytes.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { sin6 in
                        var a = sin6.pointee.sin6_addr
                        _ = inet_ntop(AF_INET6, &a, &buffer, socklen_t(buffer.count))
                    }
                }
            }
        }
        return String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    public var port: UInt16 {
        var copy = storage
        return withUnsafePointer(to: &copy) { raw in
            raw.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin_port) }
        }
    }

    public var description: String { family == AF_INET6 ? "[\(host)]:\(port)" : "\(host):\(port)" }

    func withSockaddr<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
        var copy = storage
        return withUnsafePointer(to: &copy) { raw in
            raw.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, length) }
        }
    }

    init(storage: sockaddr_storage, length: socklen_t) {
        self.storage = storage
        self.length = length
    }

    /// Parses a numeric IPv4 or IPv6 address without any lookup.
    public init?(numericHost host: String, port: UInt16) {
        var storage = sockaddr_storage()
        var sin = sockaddr_in()
        if inet_pton(AF_INET, host, &sin.sin_addr) == 1 {
            sin.sin_family = sa_family_t(AF_INET)
            sin.sin_port = port.bigEndian
            withUnsafeMutablePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee = sin }
            }
            self.init(storage: storage, length: socklen_t(MemoryLayout<sockaddr_in>.size))
            return
        }
        var sin6 = sockaddr_in6()
        let bare = host.split(separator: "%", maxSplits: 1).first.map(String.init) ?? host
        if inet_pton(AF_INET6, bare, &sin6.sin6_addr) == 1 {
            sin6.sin6_family = sa_family_t(AF_INET6)
            sin6.sin6_port = port.bigEndian
            if bare != host { sin6.sin6_scope_id = if_nametoindex(String(host.split(separator: "%")[1])) }
            withUnsafeMutablePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee = sin6 }
            }
            self.init(storage: storage, length: socklen_t(MemoryLayout<sockaddr_in6>.size))
            return
        }
        return nil
    }

    /// Resolves `host` (numeric or a name) to addresses. Name lookups run off the
    /// cooperative pool, since `getaddrinfo` blocks.
    public static func resolve(host: String, port: UInt16, timeout: Duration) async throws -> [SocketAddress] {
        if let numeric = SocketAddress(numericHost: host, port: port) { return [numeric] }
        let lookup = Task.detached { () throws -> [SocketAddress] in
            try await withCheckedThrowingContinuation { continuation in
                DispatchQueue.global().async {
                    continuation.resume(with: Result { try getAddresses(host: host, port: port) })
                }
            }
        }
        // A hung resolver ignores cancellation: past the timeout the lookup is left to
        // finish on its own (withTimeout would wait for it).
        guard let addresses = try await waitAtMost(timeout, for: { try await lookup.value }) else {
            throw PhotonError.timedOut("looking up \(host)", after: timeout.seconds)
        }
        return addresses
    }

    private static func getAddresses(host: String, port: UInt16) throws -> [SocketAddress] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var result: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &result)
        guard status == 0, let first = result else {
            throw PhotonError(
                .unreachable, "cannot resolve host '\(Redaction.sanitize(host))': \(String(cString: gai_strerror(status)))",
                hint: "check the name, or use the TV's IP address")
        }
        defer { freeaddrinfo(first) }
        var out: [SocketAddress] = []
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let info = cursor {
            var storage = sockaddr_storage()
            memcpy(&storage, info.pointee.ai_addr, Int(info.pointee.ai_addrlen))
            out.append(SocketAddress(storage: storage, length: info.pointee.ai_addrlen))
            cursor = info.pointee.ai_next
        }
        return out
    }
}
