import Foundation
import PhotonCore
import PhotonKit
import PhotonStore

/// The way a conformance check reaches a brand's sessions: the adapter's own session, or
/// the whole core in front of it through a door's `TVControl` — the façade in process
/// (session service, router, the one capability check) or a client of a running daemon.
/// The same promises must hold on every route.
public enum ConformanceRoute: Sendable, CustomStringConvertible {
    /// The session `openSession` returns, nothing in front of it.
    case adapter
    /// Through a `TVControl` that `make` builds over the harness's home, where the TV is
    /// paired as `ConformanceHarness.storedName` and this installation's identity is the
    /// one the harness paired with. `make` gets the brand's adapter (registered alone)
    /// and the clock its adapters should wait on.
    case control(
        name: String,
        make: @Sendable (_ paths: StorePaths, _ adapters: AdapterRegistry, _ clock: any RouterClock) async throws -> any TVControl)

    /// The façade in process, with one-shot sessions (the CLI's direct path).
    public static let facade = ConformanceRoute.control(name: "façade") { paths, adapters, clock in
        DirectControl(photon: try Photon(adapters: adapters, paths: paths, timeout: .seconds(5), clock: clock))
    }

    public var description: String {
        switch self {
        case .adapter: return "adapter"
        case .control(let name, _): return name
        }
    }
}

/// A session as a check drives it, whichever route it came by.
public protocol ConformanceSession: Sendable {
    /// What the TV declared, where the route says (nil: the check learns it from the answer).
    var capabilities: Capabilities? { get }
    /// Whether closing this session closes the connection to the TV (not for a daemon,
    /// which keeps its sessions warm).
    var closingEndsTheConnection: Bool { get }
    /// Whether a command after the session ended must fail (the adapter's own session),
    /// or may reach the TV over a new connection — once — as the session service
    /// reconnects.
    var reconnects: Bool { get }
    func send(_ command: RemoteCommand) async throws
    /// One of the TV's lists (apps, inputs), by this route.
    func items(_ kind: TVListKind) async throws -> [TVListItem]
    /// Whether the session reported its end (or, through the core, the TV's connection
    /// lost) within `limit`, and with what error.
    func disconnection(within limit: Duration) async -> (ended: Bool, reason: PhotonError?)
    func close() async
}

/// The adapter's own session.
struct AdapterRouteSession: ConformanceSession {
    let session: any RemoteSession
    let harness: ConformanceHarness
    var capabilities: Capabilities? { session.capabilities }
    var closingEndsTheConnection: Bool { true }
    var reconnects: Bool { false }
    func send(_ command: RemoteCommand) async throws { try await session.send(command) }
    func items(_ kind: TVListKind) async throws -> [TVListItem] { try await kind.items(on: session) }
    func disconnection(within limit: Duration) async -> (ended: Bool, reason: PhotonError?) {
        let outcome = try? await withTimeout(limit, "waiting for the session to end") { () -> (Bool, PhotonError?) in
            for await event in session.events { if case .disconnected(let reason) = event { return (true, reason) } }
            return (true, nil)
        }
        return outcome.map { (ended: $0.0, reason: $0.1) } ?? (false, nil)
    }
    func close() async {
        harness.step("closing the session")
        await session.close()
        harness.step("closed")
    }
}

/// A door's controller session (`TVControl.open`), with the control it came from.
struct ControlRouteSession: ConformanceSession {
    let control: any TVControl
    let session: any TVControlSession
    let harness: ConformanceHarness
    var capabilities: Capabilities? { nil }
    var closingEndsTheConnection: Bool { control.route == "direct" }
    var reconnects: Bool { true }
    func send(_ command: RemoteCommand) async throws { try await session.send(command, lifetime: .seconds(10)) }
    func items(_ kind: TVListKind) async throws -> [TVListItem] { try await session.items(kind) }
    func disconnection(within limit: Duration) async -> (ended: Bool, reason: PhotonError?) {
        let outcome = try? await withTimeout(limit, "waiting for the connection to be lost") { () -> (Bool, PhotonError?) in
            for await update in session.updates {
                switch update {
                case .event(.disconnected(let reason)): return (true, reason)
                // A loss comes with its error; a replayed idle state before the first
                // connection does not.
                case .connection(let state, let error?) where [.idle, .reconnecting, .failed, .closed].contains(state): return (true, error)
                default: continue
                }
            }
            return (true, nil)
        }
        return outcome.map { (ended: $0.0, reason: $0.1) } ?? (false, nil)
    }
    func close() async {
        harness.step("closing the session")
        await session.close()
        harness.step("closing the control")
        await control.close()
        harness.step("closed")
    }

    /// Waits (at most `limit`) until the TV's connection settled: connected, or failed.
    /// A daemon connects in the background after `open` returns; a check that drops the
    /// TV must not act before there is a connection to drop.
    func settle(within limit: Duration = .seconds(10)) async {
        _ = try? await withTimeout(limit, "waiting for the connection") { () -> Bool in
            for await update in session.updates {
                if case .connection(let state, let error) = update, state == .connected || (error != nil && state != .connecting) { return true }
            }
            return false
        }
    }
}
