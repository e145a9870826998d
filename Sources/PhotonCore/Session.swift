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
