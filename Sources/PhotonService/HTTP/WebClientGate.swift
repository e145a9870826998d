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

    /// The name of the client whose token this is; nil for an unknown or revoked token.
    func authenticate(_ token: String) async -> String? {
        _ = await refreshIfChanged()
        let presented = Array(Store.hash(token).utf8)
        let (name, flush) = state.withLock { s -> (String?, Bool) in
            var found: String?
            // Every stored hash is compared, whichever matches: the time does not say which.
            for client in s.clients where ConstantTime.equal(presented, Array(client.tokenHash.utf8)) { found = client.name }
            guard let found else { return (nil, false) }
            s.seen[found] = Date()
            return (found, ContinuousClock.now - s.lastFlush > .seconds(60))
        }
        if flush { await flushSeen() }
        return name
    }

    /// Re-reads the client file if it changed; returns the current client names then
    /// (nil: unchanged).
    func refreshIfChanged() async -> Set<String>? {
        let stamp = Self.stamp(of: store.paths.webClientsFile.path)
        guard state.withLock({ $0.stamp != stamp }) else { return nil }
        let clients = (try? await store.webClients().clients) ?? []
        state.withLock {
            $0.stamp = stamp
            $0.clients = clients
        }
        return Set(clients.map(\.name))
    }

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
