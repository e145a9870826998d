import Foundation
import PhotonCore
import PhotonNet

/// A TCP proxy on loopback that puts the network's faults between a client (the daemon)
/// and a server (an emulated TV): latency, stalls, connections cut mid-message, resets
/// and black holes, switched at any moment by the test. It sits below TLS and WebSocket,
/// so every layer of the client meets the fault as it would on a real network.
///
/// Faults never invent or reorder bytes, and never deliver late what a dead path lost:
/// a black hole drops what it held and cuts the connection when it ends (both ends would
/// have given up on it). A stall holds bytes for its (short) duration and then delivers
/// them, as a congested link does.
public final class FaultProxy: Sendable {
    public enum Fault: Sendable, Equatable, CustomStringConvertible {
        /// Bytes pass at once.
        case none
        /// Each chunk waits this long, in both directions.
        case latency(Duration)
        /// Nothing passes until the fault changes; held bytes then go on.
        case stall
        /// Every connection is closed (FIN to both ends) after half of its next chunk
        /// passes, or within 50 ms when nothing flows; new connections the same way, so a
        /// handshake is cut part way.
        case cut
        /// Every connection, and every new one, is reset (RST to both ends).
        case reset
        /// Nothing passes and nothing answers: new connections are accepted and then
        /// hear nothing. When the fault ends, every connection it held is cut.
        case blackHole

        public var description: String {
            switch self {
            case .none: return "none"
            case .latency(let d): return "latency \(Int(d.seconds * 1000)) ms"
            case .stall: return "stall"
            case .cut: return "cut"
            case .reset: return "reset"
            case .blackHole: return "black hole"
            }
        }
    }

    /// One proxied connection: the accepted client side and the server side.
    private final class Link: Sendable {
        let client: SocketStream
        let server: Locked<SocketStream?> = Locked(nil)
        let ended = Locked(false)
        /// Set while a black hole holds this link: it is cut when the fault ends.
        let swallowed = Locked(false)
        init(client: SocketStream) { self.client = client }

        /// Ends both sides once: closed (FIN) or reset.
        func end(reset: Bool) async {
            let first = ended.withLock { e -> Bool in
                defer { e = true }
                return !e
            }
            guard first else { return }
            let server = self.server.withLock { $0 }
            if reset {
                client.abort()
                server?.abort()
            } else {
                // FIN to both ends (each close drains what its peer still sends).
                async let clientClosed: Void = client.close()
                async let serverClosed: Void? = server?.close()
                _ = await (clientClosed, serverClosed)
            }
        }
    }

    public let port: UInt16
    private let target: UInt16
    private let listener: TCPListener
    private let fault = Locked(Fault.none)
    private let links = Locked<[ObjectIdentifier: Link]>([:])
    private let acceptor = Locked<Task<Void, Never>?>(nil)
    private let accepted = Locked(0)

    /// Listens on 127.0.0.1 (a free port) and forwards to 127.0.0.1:`target`.
    public init(to target: UInt16) throws {
        listener = try TCPListener(host: "127.0.0.1", port: 0)
        port = listener.port
        self.target = target
        acceptor.withLock { $0 = Task { await self.acceptLoop() } }
    }

    /// The fault now in force.
    public var current: Fault { fault.withLock { $0 } }

    /// How many connections the proxy accepted.
    public var connectionsAccepted: Int { accepted.withLock { $0 } }

    /// Connections open now.
    public var openConnections: Int { links.withLock { $0.count } }

    /// Switches to `new`. Ending a black hole cuts what it held; `.cut` and `.reset` act
    /// on the open connections at once.
    public func set(_ new: Fault) async {
        let old = fault.withLock { f -> Fault in
            defer { f = new }
            return f
        }
        let open = links.withLock { Array($0.values) }
        if old == .blackHole, new != .blackHole {
            for link in open where link.swallowed.withLock({ $0 }) { await close(link, reset: false) }
        }
        switch new {
        case .reset:
            for link in open { await close(link, reset: true) }
        case .cut:
            // Links with traffic are cut mid-chunk by their pumps; idle ones here.
            Task {
                try? await Task.sleep(for: .milliseconds(50))
                guard self.current == .cut else { return }
                for link in open { await self.close(link, reset: false) }
            }
        default:
            break
        }
    }

    /// Stops listening and ends every connection.
    public func stop() async {
        listener.close()
        acceptor.withLock { $0 }?.cancel()
        for link in links.withLock({ Array($0.values) }) { await close(link, reset: true) }
    }

    private func close(_ link: Link, reset: Bool) async {
        _ = links.withLock { $0.removeValue(forKey: ObjectIdentifier(link)) }
        await link.end(reset: reset)
    }

    private func acceptLoop() async {
        while let client = try? await listener.accept() {
            accepted.withLock { $0 += 1 }
            let link = Link(client: client)
            links.withLock { $0[ObjectIdentifier(link)] = link }
            Task { await self.serve(link) }
        }
    }

    private func serve(_ link: Link) async {
        switch current {
        case .reset:
            await close(link, reset: true)
            return
        case .blackHole:
            // Accepted by the kernel, answered by nobody; cut when the hole closes.
            link.swallowed.withLock { $0 = true }
            while current == .blackHole, !link.ended.withLock({ $0 }) {
                try? await Task.sleep(for: .milliseconds(10))
            }
            await close(link, reset: false)
            return
        default:
            break
        }
        guard let server = try? await SocketStream.connect(host: "127.0.0.1", port: target, timeout: .seconds(5)) else {
            await close(link, reset: true)
            return
        }
        link.server.withLock { $0 = server }
        if link.ended.withLock({ $0 }) {
            server.abort()
            return
        }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.pump(link, from: link.client, to: server) }
            group.addTask { await self.pump(link, from: server, to: link.client) }
            await group.next()
            // One direction ended (a close, or a fault): the other cannot go on alone.
            await self.close(link, reset: false)
        }
    }

    /// Forwards one direction chunk by chunk, each under the fault in force when it came.
    private func pump(_ link: Link, from source: SocketStream, to destination: SocketStream) async {
        while !link.ended.withLock({ $0 }) {
            guard let chunk = try? await source.read(maxLength: 16 * 1024, timeout: nil), !chunk.isEmpty,
                !link.ended.withLock({ $0 })
            else { return }
            var pass = true
            deliver: while true {
                switch current {
                case .none:
                    break deliver
                case .latency(let delay):
                    try? await Task.sleep(for: delay)
                    break deliver
                case .stall:
                    try? await Task.sleep(for: .milliseconds(5))
                case .blackHole:
                    // Held, then dropped with the connection when the hole closes.
                    link.swallowed.withLock { $0 = true }
                    try? await Task.sleep(for: .milliseconds(5))
                    if link.ended.withLock({ $0 }) { return }
                case .cut:
                    let half = Array(chunk.prefix(max(1, chunk.count / 2)))
                    try? await destination.write(half, timeout: .seconds(1))
                    pass = false
                    break deliver
                case .reset:
                    pass = false
                    break deliver
                }
                if link.ended.withLock({ $0 }) { return }
            }
            guard pass else {
                await close(link, reset: current == .reset)
                return
            }
            if link.ended.withLock({ $0 }) { return }
            do {
                try await destination.write(chunk, timeout: .seconds(5))
            } catch {
                return
            }
        }
    }
}
