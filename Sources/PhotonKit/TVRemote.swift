import Foundation
import PhotonCore

/// A connection to one TV through the router: every command is an envelope with its own
/// id, sequence number and lifetime, checked before it reaches the TV. Its events are
/// the TV's known state first, then changes.
public final class TVRemote: Sendable {
    /// The TV's record in the store.
    public let device: DeviceRecord
    /// The TV's events: the state it last reported first, then changes. Under one-shot
    /// sessions it ends after `.disconnected`; it always ends on `close()`.
    public let events: AsyncStream<TVEvent>
    /// The same, with the connection's state changes (a warm session reconnecting).
    public let updates: AsyncStream<TVUpdate>
    let photon: Photon
    let tv: PooledTV
    let routerSession: UUID
    let source: CommandSource
    let subscription = UUID()
    private let sequence = Locked<UInt64>(0)
    private let woken = Locked(false)
    private let eventSink: AsyncStream<TVEvent>.Continuation
    private let updateSink: AsyncStream<TVUpdate>.Continuation

    init(photon: Photon, tv: PooledTV, routerSession: UUID, source: CommandSource) async {
        self.photon = photon
        self.tv = tv
        self.device = await tv.device
        self.routerSession = routerSession
        self.source = source
        let (events, eventSink) = AsyncStream.makeStream(of: TVEvent.self, bufferingPolicy: .bufferingNewest(256))
        let (updates, updateSink) = AsyncStream.makeStream(of: TVUpdate.self, bufferingPolicy: .bufferingNewest(256))
        self.events = events
        self.updates = updates
        self.eventSink = eventSink
        self.updateSink = updateSink
        await tv.subscribe(subscription) { update in
            updateSink.yield(update)
            switch update {
            case .event(let event):
                eventSink.yield(event)
                if case .disconnected = event { eventSink.finish() }
            case .connection(.closed, _):
                eventSink.finish()
                updateSink.finish()
            case .connection: break
            }
        }
    }

    /// Whether connecting had to wake the TV first (then a power key would switch it off
    /// again, so callers drop it).
    public internal(set) var wasWoken: Bool {
        get { woken.withLock { $0 } }
        set { woken.withLock { $0 = newValue } }
    }

    /// What the TV declared when its session opened (nil while it is not connected).
    public var capabilities: Capabilities? { get async { await tv.capabilities } }

    /// Sends one command. `id` de-duplicates: the same id twice reaches the TV once.
    /// The command expires after `lifetime` (at most 10 s): one that cannot be written
    /// by then fails with `expired` and is not sent.
    @discardableResult
    public func send(_ command: RemoteCommand, id: UUID = UUID(), lifetime: Duration = .seconds(10)) async throws -> CommandOutcome {
        let number = sequence.withLock { n -> UInt64 in
            n += 1
            return n
        }
        let now = photon.clock.now
        var life = min(lifetime, .seconds(10))
        if case .longPress = command { life = .seconds(10) }
        do {
            return try await photon.submit(
                command, session: routerSession, target: device.id, sequence: number,
                Submission(id: id, issuedAt: now, expiresAt: now.addingTimeInterval(life.seconds), source: source))
        } catch let rejection as RouterRejection {
            throw rejection.error
        }
    }

    /// One of the TV's lists: its installed apps (ids `send(.launch(_:))` takes), its
    /// inputs (ids and labels `.input` takes), where its brand can give it.
    public func items(_ kind: TVListKind) async throws -> [TVListItem] { try await tv.items(kind) }

    /// The TV's state as it reports it after connecting: device, power, app and volume
    /// (those its capabilities promise), waiting at most `settle` for them.
    public func status(settle: Duration = .milliseconds(1500)) async throws -> [TVEvent] {
        let known = try await tv.status(settle: settle)
        let order = ["device", "power", "power-state", "app", "playback", "volume"]
        // Then the settings the TV reports (`sound`), in the catalog's order.
        let settings = CommandCatalog.entries.filter(\.reportsState).compactMap { TVEvent.setting(name: $0.name, value: "").stateKey }
        return (order + settings).compactMap { key in known.first { $0.stateKey == key } }
    }

    /// Ends this remote; under one-shot sessions the TV's session closes when no other
    /// remote uses it.
    public func close() async {
        await photon.router.closeSession(routerSession)
        await tv.unsubscribe(subscription)
        eventSink.finish()
        updateSink.finish()
        await photon.pool.release(tv)
    }
}
