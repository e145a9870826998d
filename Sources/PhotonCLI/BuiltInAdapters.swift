import AndroidTV
import PhotonCore
import SamsungTV

/// The brand adapters built into the `photon` tool. This is the one place a new brand
/// is registered: add its adapter here and nothing else in the core changes.
public enum BuiltInAdapters {
    public static let registry = AdapterRegistry([
        AndroidTVAdapter(),
        SamsungTVAdapter(),
    ])
}
