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

/// The person at the TV in a bench pairing: trusts the emulator's certificate (and no
/// other) and types the PIN the emulator was started with.
struct BenchPINUser: PairingResponder {
    let fingerprint: CertificateFingerprint
    var pin = "4826"

    func answer(_ challenge: PairingChallenge) async throws -> PairingAnswer {
        switch challenge {
        case .trustCertificate(let info): return .trust(info.fingerprint == fingerprint)
        case .enterCode: return .code(pin)
        default: return .wait
        }
    }
}
