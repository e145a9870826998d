import PhotonCore

/// A TV session that records what it is sent and reports what a test tells it to: for
/// testing the router, the session service and the doors without a network. It takes
/// every kind of command its capabilities allow, and can be dropped like a TV restarting.
public final class RecordingSession: KeySending, TextTyping, AppLaunching, VolumeSetting, Searching, AppListing {
    public let capabilities: Capabilities
    public let events: AsyncStream<TVEvent>
    private let sink: AsyncStream<TVEvent>.Continuation
    private let state = Locked<(sent: [RemoteCommand], closed: Bool)>(([], false))
    public let apps: [TVApp]

    public init(capabilities: Capabilities = Capabilities(.keys, .text, .powerState), apps: [TVApp] = []) {
        self.capabilities = capabilities
        self.apps = apps
        (events, sink) = AsyncStream.makeStream(of: TVEvent.self)
    }

    /// What reached the "TV", in order (volume steps as the keys they are).
    public var sent: [RemoteCommand] { state.withLock { $0.sent } }
    public var isClosed: Bool { state.withLock { $0.closed } }

    private func record(_ command: RemoteCommand) throws {
        try state.withLock { s in
            guard !s.closed else { throw PhotonError(.connectionClosed, "the session is closed") }
            s.sent.append(command)
        }
    }

    public func sendKey(_ input: KeyInput, _ action: KeyAction) async throws { try record(.key(input, action)) }
    public func type(_ text: String) async throws { try record(.text(text)) }
    public func launch(_ app: String) async throws { try record(.launch(app)) }
    public func setVolume(_ level: Int) async throws { try record(.setVolume(level)) }
    public func search(_ keyword: String) async throws { try record(.search(keyword)) }
    public func installedApps() async throws -> [TVApp] { apps }

    /// The TV reports something.
    public func report(_ event: TVEvent) { sink.yield(event) }

    /// The TV goes away.
    public func drop(_ reason: PhotonError = PhotonError(.connectionClosed, "the TV closed the connection")) {
        state.withLock { $0.closed = true }
        sink.yield(.disconnected(reason: reason))
        sink.finish()
    }

    public func close() async {
        state.withLock { $0.closed = true }
        sink.finish()
    }
}
