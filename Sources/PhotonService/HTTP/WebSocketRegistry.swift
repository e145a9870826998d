import Foundation
import PhotonCore
import PhotonNet

/// The WebSockets web clients hold open (event streams, microphone streams), each with the
/// client that opened it, so a revoked client's are cut at once and each client keeps a
/// bounded number.
final class WebSocketRegistry: Sendable {
    private let open = Locked<[UUID: (client: String, connection: WebSocketConnection)]>([:])

    /// Registers `connection` for `client` unless it already holds `limit`; the id to remove it by.
    func add(_ connection: WebSocketConnection, client: String, limit: Int) -> UUID? {
        open.withLock { open in
            guard Self.held(by: client, in: open) < limit else { return nil }
            let id = UUID()
            open[id] = (client, connection)
            return id
        }
    }

    /// How many `client` holds. A connection that is closing no longer counts: its peer may
    /// have seen the close (an oversize frame, a protocol error) before the task serving it
    /// has unwound and removed it, and may already be opening the next one.
    func count(of client: String) -> Int { open.withLock { Self.held(by: client, in: $0) } }

    private static func held(by client: String, in open: [UUID: (client: String, connection: WebSocketConnection)]) -> Int {
        open.values.filter { $0.client == client && !$0.connection.isClosing }.count
    }

    func remove(_ id: UUID) { open.withLock { _ = $0.removeValue(forKey: id) } }

    /// Closes (1008, "revoked") the connections of clients no longer paired.
    func close(ofClientsNotIn current: Set<String>) async {
        let cut = open.withLock { $0.values.filter { !current.contains($0.client) }.map(\.connection) }
        for connection in cut { await connection.close(code: 1008, reason: "revoked") }
    }

    /// Closes (1001, "stopping") every connection: the door is stopping.
    func closeAll() async {
        for connection in open.withLock({ $0.values.map(\.connection) }) { await connection.close(code: 1001, reason: "stopping") }
    }
}
