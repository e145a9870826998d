/// A live connection to one TV. Commands are sent in order; events arrive as one
/// `AsyncStream`, which ends after `.disconnected`.
public protocol RemoteSession: AnyObject, Sendable {
    /// The capabilities this TV declared when the session opened.
    var capabilities: Capabilities { get }
    /// Sends one command. Throws `unsupported` before sending anything when the TV or the
    /// adapter cannot perform it. A failed send is reported, never retried.
    func send(_ command: RemoteCommand) async throws
    var events: AsyncStream<TVEvent> { get }
    func close() async
}

/// An app installed on a TV, as `photon apps` lists it: the id `photon launch` takes, and
/// its name.
public struct TVApp: Sendable, Hashable {
    public var id: String
    public var name: String
    public init(id: String, name: String) {
        self.id = id
        self.name = name
    }
}

/// A session whose TV can list its installed apps (the `appList` capability).
public protocol AppListing: RemoteSession {
    func installedApps() async throws -> [TVApp]
}
