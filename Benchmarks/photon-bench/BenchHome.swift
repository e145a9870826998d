import Foundation
import PhotonCore
import PhotonNet
import PhotonStore

/// A throwaway Photon home for one brand's bench rows: its store, and an adapter context
/// with the installation identity made there, as the CLI would have them. `remove()`
/// deletes it.
struct BenchHome {
    let url: URL
    let store: Store
    let context: AdapterContext

    static func make(_ label: String) async throws -> BenchHome {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("photon-bench-\(label)-\(UUID().uuidString)")
        let store = Store(paths: StorePaths(home: url))
        let identity = try await store.clientIdentity().clientIdentity
        let context = AdapterContext(connector: NetConnector(), clientIdentity: identity, clientName: "bench", timeout: .seconds(10))
        return BenchHome(url: url, store: store, context: context)
    }

    func remove() { try? FileManager.default.removeItem(at: url) }
}
