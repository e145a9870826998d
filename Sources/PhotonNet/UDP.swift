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
        let fd = socket(address.family, Int32(SOCK_DGRAM.rawValue) | Socket.birthFlags, 0)
        guard fd >= 0 else { throw PhotonError(.internal, "cannot create a UDP socket: \(errnoText())") }
        defer { close(fd) }
        if broadcast {
            var one: Int32 = 1
            setsockopt(fd, SOL_SOCKET, SO_BROADCAST, &one, socklen_t(MemoryLayout<Int32>.size))
        }
        let sent = payload.withUnsafeBytes { bytes in
            address.withSockaddr { sendto(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL) | Socket.noWait, $0, $1) }
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
        let fd = try Socket.bound(to: address, type: SOCK_DGRAM)
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
            var failure: Int32 = 0
            let received = buffer.withUnsafeMutableBytes { bytes in
                withUnsafeMutablePointer(to: &storage) { address in
                    socket.withOpenDescriptor { fd -> Int in
                        let n = address.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                            recvfrom(fd, bytes.baseAddress, bytes.count, Socket.noWait, $0, &length)
                        }
                        if n < 0 { failure = errno }
                        return n
                    }
                }
            }
            guard let n = received else { throw PhotonError(.connectionClosed, "the UDP socket was closed") }
            if n >= 0 { return (Array(buffer[..<n]), SocketAddress(storage: storage, length: length)) }
            guard failure == EAGAIN || failure == EWOULDBLOCK || failure == EINTR else {
                if failure == ECONNREFUSED {
                    // A connected socket hears the ICMP "port unreachable" its last datagram met.
                    throw PhotonError(.unreachable, "nothing listens on the UDP port asked", hint: "check the address and the port")
                }
                throw PhotonError(.connectionClosed, "UDP receive failed: \(errnoText(failure))")
            }
            try await socket.wait(for: .read, deadline: end)
        }
    }

    /// Sends a datagram from this socket (so answers come back to it).
    public func send(_ payload: [UInt8], to host: String, port: UInt16) throws {
        guard let address = SocketAddress(numericHost: host, port: port) else {
            throw PhotonError(.usage, "'\(Redaction.sanitize(host))' is not a numeric IP address")
        }
        let sent = payload.withUnsafeBytes { bytes in
            address.withSockaddr { sockaddr, length in
                socket.withOpenDescriptor { sendto($0, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL) | Socket.noWait, sockaddr, length) }
            }
        }
        guard let sent else { throw PhotonError(.connectionClosed, "the UDP socket was closed") }
        guard sent == payload.count else { throw PhotonError(.unreachable, "sending to \(address) failed: \(errnoText())") }
    }

    /// Talks to `host:port` only from now on: datagrams from anyone else are dropped by the
    /// kernel, and an ICMP "port unreachable" for what was sent makes the next `receive`
    /// throw `.unreachable` at once instead of waiting out its timeout.
    public func connect(to host: String, port: UInt16) throws {
        guard let address = SocketAddress(numericHost: host, port: port) else {
            throw PhotonError(.usage, "'\(Redaction.sanitize(host))' is not a numeric IP address")
        }
        let result = address.withSockaddr { sockaddr, length in socket.withOpenDescriptor { Glibc.connect($0, sockaddr, length) } }
        guard let result else { throw PhotonError(.connectionClosed, "the UDP socket was closed") }
        guard result == 0 else { throw PhotonError(.unreachable, "cannot address \(address): \(errnoText())") }
    }

    public func close() { socket.close() }
}

/// An SSDP M-SEARCH client: multicast by default, or unicast to one host.
public enum SSDPSearcher {
    /// Sends the searches and collects valid answers until `timeout`; malformed answers
    /// are dropped.
    public static func search(
        targets: [String], host: String = SSDP.multicastHost, port: UInt16 = SSDP.port, timeout: Duration
    ) async throws -> [SSDP.Response] {
        let socket = try UDPReceiver(host: "0.0.0.0", port: 0)
        defer { socket.close() }
        for target in targets { try socket.send(SSDP.searchRequest(target: target), to: host, port: port) }
        let end = ContinuousClock.now + timeout
        var answers: [SSDP.Response] = []
        while ContinuousClock.now < end, answers.count < 256 {
            guard let (bytes, sender) = try? await socket.receive(maxLength: SSDP.maximumResponseSize + 1, timeout: end - ContinuousClock.now)
            else { break }
            if let answer = try? SSDP.parse(bytes, sender: sender.host), !answers.contains(answer) { answers.append(answer) }
        }
        return answers
    }
}

/// Sends Wake-on-LAN packets on the network.
public enum WakeOnLANSender {
    /// The limited broadcast plus each IPv4 interface's directed broadcast (loopback and
    /// interfaces without broadcast are skipped).
    public static func defaultDestinations() -> [String] {
        var out = ["255.255.255.255"]
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return out }
        defer { freeifaddrs(first) }
        var cursor: UnsafeMutablePointer<ifaddrs>? = first
        while let entry = cursor {
            defer { cursor = entry.pointee.ifa_next }
            let flags = Int32(entry.pointee.ifa_flags)
            guard flags & Int32(IFF_BROADCAST) != 0, flags & Int32(IFF_LOOPBACK) == 0,
                let address = entry.pointee.ifa_ifu.ifu_broadaddr, address.pointee.sa_family == sa_family_t(AF_INET)
            else { continue }
            var buffer = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
            address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { sin in
                var a = sin.pointee.sin_addr
                _ = inet_ntop(AF_INET, &a, &buffer, socklen_t(buffer.count))
            }
            let text = String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if !text.isEmpty, !out.contains(text) { out.append(text) }
        }
        return out
    }

    /// Sends the magic packet for `mac` to every destination and port; returns where it
    /// went. Fails only if no packet could be sent at all.
    @discardableResult
    public static func wake(mac: [UInt8], destinations: [String], ports: [UInt16]) throws -> [String] {
        let packet = try WakeOnLAN.magicPacket(mac: mac)
        var sent: [String] = []
        var lastError: (any Error)?
        for destination in destinations {
            for port in ports {
                do {
                    try UDPSender.send(packet, to: destination, port: port, broadcast: true)
                    sent.append("\(destination):\(port)")
                } catch {
                    lastError = error
                }
            }
        }
        if sent.isEmpty, let lastError { throw lastError }
        return sent
    }
}

/// Unicast DNS-SD to one host: a query sent from an ordinary port straight to its mDNS
/// port, answered back to that port. No multicast and no avahi-daemon, so it works across
/// routers and in containers; hosts that answer only multicast stay silent.
public enum DNSSDProber {
    /// The services `host` answers for `types` within `timeout`: one query per type (a
    /// query asking for several at once gets a truncated answer from Avahi once a host
    /// announces several TVs: 512 bytes, some of them lost), sent again after a moment
    /// without an answer (UDP may drop them); collecting stops shortly after the last
    /// query is answered, or at `timeout`. Malformed answers and other senders' datagrams
    /// are dropped.
    public static func services(host: String, port: UInt16 = DNSSD.port, types: [String], timeout: Duration) async throws
        -> [DiscoveredService]
    {
        guard !types.isEmpty else { return [] }
        let socket = try UDPReceiver(host: host.contains(":") ? "::" : "0.0.0.0", port: 0)
        defer { socket.close() }
        // Connected: a host with nothing on its mDNS port says so at once (ICMP), and only
        // its own datagrams arrive.
        try socket.connect(to: host, port: port)
        var queries: [UInt16: [UInt8]] = [:]
        for type in types.prefix(32) {
            var id = UInt16.random(in: 1...UInt16.max)
            while queries[id] != nil { id = UInt16.random(in: 1...UInt16.max) }
            queries[id] = try DNSSD.query(types: [type], id: id)
        }
        for query in queries.values { try socket.send(query, to: host, port: port) }
        let start = ContinuousClock.now
        var end = start + timeout
        var resent = false
        var answered: Set<UInt16> = []
        var found: [DiscoveredService] = []
        while ContinuousClock.now < end {
            let wait = resent || !found.isEmpty ? end - ContinuousClock.now : min(end - ContinuousClock.now, .milliseconds(700))
            let datagram: ([UInt8], SocketAddress)?
            do {
                datagram = try await socket.receive(maxLength: DNSSD.maximumMessageSize + 1, timeout: wait)
            } catch let error as PhotonError where error.code == .unreachable {
                break  // nothing listens on the host's mDNS port
            } catch {
                datagram = nil
            }
            guard let (bytes, sender) = datagram else {
                if !resent, found.isEmpty, ContinuousClock.now < end {
                    resent = true
                    for query in queries.values { try? socket.send(query, to: host, port: port) }
                    continue
                }
                break
            }
            // Only the asked host's answers to these queries count.
            guard sender.port == port, bytes.count >= 2 else { continue }
            let id = UInt16(bytes[0]) << 8 | UInt16(bytes[1])
            guard queries[id] != nil || id == 0, let services = try? DNSSD.services(in: bytes, sender: sender.host) else { continue }
            answered.insert(id)
            for service in services where !found.contains(service) { found.append(service) }
            // Every query answered: a moment for stragglers; else wait on for the rest a while.
            if answered.isSuperset(of: queries.keys) || id == 0 {
                end = min(end, ContinuousClock.now + .milliseconds(150))
            } else if !found.isEmpty {
                end = min(end, ContinuousClock.now + .milliseconds(400))
            }
        }
        return found
    }
}

/// Answers unicast DNS-SD queries for a fixed set of services on one UDP port: what a TV's
/// mDNS responder does for a query sent straight to it. The emulated TVs use it so that
/// `photon probe` (and pyatv's unicast scan) can be tried without avahi or multicast.
public final class UnicastDNSSDResponder: Sendable {
    private let socket: UDPReceiver
    private let task: Locked<Task<Void, Never>?> = Locked(nil)
    public var port: UInt16 { socket.port }

    /// Listens on `host:port` (0: a free port) and answers queries for any of `services`'
    /// types; `onQuery` hears each query's types (for tests and event lines).
    public init(
        host: String = "127.0.0.1", port: UInt16, services: [DNSSD.Announcement], onQuery: @escaping @Sendable ([String]) -> Void = { _ in }
    ) throws {
        socket = try UDPReceiver(host: host, port: port)
        let socket = self.socket
        task.withLock {
            $0 = Task {
                while !Task.isCancelled {
                    guard let (bytes, sender) = try? await socket.receive(maxLength: DNSSD.maximumMessageSize + 1, timeout: nil) else { return }
                    guard let (id, types) = try? DNSSD.questions(in: bytes) else { continue }
                    onQuery(types)
                    let asked = Set(types.map { $0.lowercased() })
                    let matching = services.filter { asked.contains($0.type.lowercased()) }
                    guard !matching.isEmpty, let answer = try? DNSSD.answer(id: id, services: matching) else { continue }
                    try? socket.send(answer, to: sender.host, port: sender.port)
                }
            }
        }
    }

    public func stop() {
        task.withLock { $0 }?.cancel()
        socket.close()
    }

    deinit { stop() }
}
