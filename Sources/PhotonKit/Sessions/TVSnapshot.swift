import PhotonCore

/// A TV as the session service sees it: its record, the connection's state, what its
/// session declared, the last error while not connected, and its known state.
public struct TVSnapshot: Sendable {
    /// The TV's record in the store.
    public var device: DeviceRecord
    /// Where its connection is.
    public var state: ConnectionState
    /// What the TV declared when its session opened (nil while not connected).
    public var capabilities: Capabilities?
    /// Why the last connection failed or ended, if it did.
    public var error: PhotonError?
    /// The TV's last known state, one event per kind (power, app, volume…).
    public var events: [TVEvent]

    /// A TV nobody has used yet.
    public init(idle device: DeviceRecord) { self.init(device: device, state: .idle, capabilities: nil, error: nil, events: []) }

    /// A snapshot with these values.
    public init(device: DeviceRecord, state: ConnectionState, capabilities: Capabilities?, error: PhotonError?, events: [TVEvent]) {
        self.device = device
        self.state = state
        self.capabilities = capabilities
        self.error = error
        self.events = events
    }
}
