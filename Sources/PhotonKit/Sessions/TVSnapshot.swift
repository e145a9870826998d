import PhotonCore

/// A TV as the session service sees it: its record, the connection's state, what its
/// session declared, the last error while not connected, and its known state.
public struct TVSnapshot: Sendable {
    public var device: DeviceRecord
    public var state: ConnectionState
    public var capabilities: Capabilities?
    public var error: PhotonError?
    public var events: [TVEvent]

    /// A TV nobody has used yet.
    public init(idle device: DeviceRecord) { self.init(device: device, state: .idle, capabilities: nil, error: nil, events: []) }

    public init(device: DeviceRecord, state: ConnectionState, capabilities: Capabilities?, error: PhotonError?, events: [TVEvent]) {
        self.device = device
        self.state = state
        self.capabilities = capabilities
        self.error = error
        self.events = events
    }
}
