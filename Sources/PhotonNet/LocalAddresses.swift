import Glibc

/// This machine's interface addresses, for a server bound to a wildcard address that must
/// know which names it answers to (the HTTP door's `Host` check).
public enum LocalAddresses {
    /// Every IPv4 and IPv6 address of the interfaces that are up (IPv6 link-local too,
    /// without its zone).
    public static func all() -> [String] {
        var out: [String] = []
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return out }
        defer { freeifaddrs(first) }
        var cursor: UnsafeMutablePointer<ifaddrs>? = first
        while let entry = cursor {
            defer { cursor = entry.pointee.ifa_next }
            guard Int32(entry.pointee.ifa_flags) & Int32(IFF_UP) != 0, let address = entry.pointee.ifa_addr else { continue }
            var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            switch Int32(address.pointee.sa_family) {
            case AF_INET:
                address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { sin in
                    var a = sin.pointee.sin_addr
                    _ = inet_ntop(AF_INET, &a, &buffer, socklen_t(buffer.count))
                }
            case AF_INET6:
                address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { sin in
                    var a = sin.pointee.sin6_addr
                    _ = inet_ntop(AF_INET6, &a, &buffer, socklen_t(buffer.count))
                }
            default: continue
            }
            let text = String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if !text.isEmpty, !out.contains(text) { out.append(text) }
        }
        return out
    }
}
