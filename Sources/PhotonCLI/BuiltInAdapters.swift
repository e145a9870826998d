import PhotonCore

/// The brand adapters built into the `photon` tool. This is the one place a new brand
/// is registered: add its adapter here and nothing else in the core changes.
public enum BuiltInAdapters {
    public static let registry = AdapterRegistry([
        // Android TV Remote v2 and the Samsung WebSocket-token adapter are registered
        // here as they land (issues 3 and 4).
    ])
}
