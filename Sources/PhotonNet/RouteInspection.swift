import CPhotonSystem
import Foundation
import Glibc
import PhotonCore

/// How this machine reaches an address: the local address and interface the kernel picks,
/// whether the address is on that interface's subnet, and whether the interface can do
/// multicast (mDNS and SSDP need it). No packet is sent: a UDP socket is connected, which
/// only asks the routing table.
public struct RouteInfo: Sendable, Equatable {
    public var localAddress: String
    public var interface: String?
    /// The interface's prefix length (24 for a /24), when found.
    public var prefixLength: Int?
    public var onLocalSubnet: Bool
    public var multicast: Bool
    public var loopback: Bool

    /// The route to `address` (numeric), or an error saying why there is none.
    public static func to(_ address: SocketAddress) throws -> RouteInfo {
        let fd = socket(address.family, Int32(SOCK_DGRAM.rawValue), 0)
        guard fd >= 0 else { throw PhotonError(.unreachable, "cannot open a socket to ask for a route (errno \(errno))") }
        defer { Glibc.close(fd) }
        let connected = address.withSockaddr { Glibc.connect(fd, $0, $1) }
        guard connected == 0 else {
            let code = errno
            throw PhotonError(
                .unreachable, "no route to \(address.host): \(String(cString: strerror(code)))",
                hint: "check that this machine is on the TV's network (cable, Wi-Fi, VPN)")
        }
        var local = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &local) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        let localAddress = SocketAddress(storage: local, length: length)
        var info = RouteInfo(
            localAddress: localAddress.host, interface: nil, prefixLength: nil, onLocalSubnet: false, multicast: false, loopback: false)
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return info }
        defer { freeifaddrs(first) }
        var cursor: UnsafeMutablePointer<ifaddrs>? = first
        while let entry = cursor {
            defer { cursor = entry.pointee.ifa_next }
            guard let addr = entry.pointee.ifa_addr, Int32(addr.pointee.sa_family) == address.family,
                let mask = entry.pointee.ifa_netmask, let mine = Self.bytes(addr), mine == Self.bytes(localAddress),
                let maskBytes = Self.bytes(mask), let target = Self.bytes(address)
            else { continue }
            let flags = entry.pointee.ifa_flags
            info.interface = String(cString: entry.pointee.ifa_name)
            info.prefixLength = maskBytes.reduce(0) { $0 + $1.nonzeroBitCount }
            info.onLocalSubnet = zip(zip(mine, target), maskBytes).allSatisfy { ($0.0 & $1) == ($0.1 & $1) }
            info.multicast = flags & UInt32(IFF_MULTICAST) != 0
            info.loopback = flags & UInt32(IFF_LOOPBACK) != 0
            break
        }
        return info
    }

    /// The address bytes of an IPv4 or IPv6 socket address.
    static func bytes(_ address: SocketAddress) -> [UInt8]? {
        address.withSockaddr { pointer, _ in bytes(UnsafeMutablePointer(mutating: pointer)) }
    }

    static func bytes(_ pointer: UnsafeMutablePointer<sockaddr>) -> [UInt8]? {
        switch Int32(pointer.pointee.sa_family) {
        case AF_INET:
            return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { sin in
                withUnsafeBytes(of: sin.pointee.sin_addr) { Array($0) }
            }
        case AF_INET6:
            return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { sin6 in
                withUnsafeBytes(of: sin6.pointee.sin6_addr) { Array($0) }
            }
        default:
            return nil
        }
    }
}
