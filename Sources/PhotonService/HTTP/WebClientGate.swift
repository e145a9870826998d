import Foundation
import Glibc
import PhotonCore
import PhotonCrypto
import PhotonStore

/// Who may use the HTTP door: the paired clients of `web-clients.json`, re-read whenever
/// the file changes (`photon web revoke` edits it; the door then cuts the client off), a
/// token matched by its hash in constant time, and when each client was last seen
/// (written back in batches, not on every request).
final class WebClientGate: Sendable {
    let store: Store
    private let state = Locked<State>(State())

    private struct State {
        var stamp: [Int]?
        var clients: [WebClient] = []
        var seen: [String: Date] = [:]
        var lastFlush = ContinuousClock.now
    }

    init(store: Store) { self.store = store }

    /// A client the door knows: `key` (its token's hash) is what owns its connections,
    /// streams and sessions, so a client paired again under a revoked one's name owns none
    /// of them; `name` is for people.
    struct Identity: Sendable, Equatable {
        let key: String
        let name: String
    }

    /// The client whose token this is; nil for an unknown or revoked token.
    func authenticate(_ token: String) async -> Identity? {
        await refresh()
        let presented = Array(Store.hash(token).utf8)
        let (found, flush) = state.withLock { s -> (Identity?, Bool) in
            var found: Identity?
            // Every stored hash is compared, whichever matches: the time does not say which.
            for client in s.clients where ConstantTime.equal(presented, Array(client.tokenHash.utf8)) {
                found = Identity(key: client.tokenHash, name: client.name)
            }
            guard let found else { return (nil, false) }
            s.seen[found.name] = Date()
            return (found, ContinuousClock.now - s.lastFlush > .seconds(60))
        }
        if flush { await flushSeen() }
        return found
    }

    /// Re-reads the client file if it changed since anyone last read it. A file that
    /// cannot be read (a transient error) keeps the clients known so far, and is read
    /// again next time (round 4, L4: it emptied the list until the next pairing).
    func refresh() async {
        let stamp = Self.stamp(of: store.paths.webClientsFile.path)
        guard state.withLock({ $0.stamp != stamp }) else { return }
        let clients: [WebClient]
        do {
            clients = try await store.webClients().clients
        } catch {
            return
        }
        state.withLock {
            $0.stamp = stamp
            $0.clients = clients
        }
    }

    /// The keys of the clients paired now (after `refresh`): whatever another key owns is
    /// a revoked client's.
    var currentKeys: Set<String> { state.withLock { Set($0.clients.map(\.tokenHash)) } }

    /// Writes the last-seen times gathered since the last flush.
    func flushSeen() async {
        let seen = state.withLock { s -> [String: Date] in
            defer {
                s.seen = [:]
                s.lastFlush = .now
            }
            return s.seen
        }
        try? await store.recordWebClientsSeen(seen)
    }

    /// The file's identity and modification time (nil when it does not exist).
    static func stamp(of path: String) -> [Int]? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return [Int(info.st_ino), Int(info.st_size), info.st_mtim.tv_sec, info.st_mtim.tv_nsec]
    }
}
