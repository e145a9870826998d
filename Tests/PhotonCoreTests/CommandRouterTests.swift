import Foundation
import PhotonCore
import PhotonTesting
import Testing

extension ManualClock {
    func advance(_ seconds: TimeInterval) { advance(by: .milliseconds(Int(seconds * 1000))) }
}

final class Deliveries: Sendable {
    let log = Locked<[(String, RemoteCommand)]>([])
    var count: Int { log.withLock { $0.count } }
}

/// Every router rule, accepted and rejected, with an injected clock (no sleeping).
@Suite struct CommandRouterTests {
    let clock = ManualClock()
    let delivered = Deliveries()

    func router(deliver: CommandRouter.Deliver? = nil) -> CommandRouter {
        let log = delivered.log
        return CommandRouter(
            clock: clock,
            deliver: deliver ?? { envelope in
                log.withLock { $0.append((envelope.target, envelope.command)) }
                return .sent
            })
    }

    func envelope(
        _ session: UUID, _ sequence: UInt64, target: String = "tv-1", id: UUID = UUID(), source: CommandSource = .cli,
        issued: TimeInterval = 0, lifetime: TimeInterval = 5, command: RemoteCommand = .key(.key(.home), .press)
    ) -> CommandEnvelope {
        let issuedAt = clock.now.addingTimeInterval(issued)
        return CommandEnvelope(
            id: id, sessionID: session, target: target, sequence: sequence, issuedAt: issuedAt,
            expiresAt: issuedAt.addingTimeInterval(lifetime), source: source, command: command)
    }

    func rejection(_ router: CommandRouter, _ e: CommandEnvelope) async -> RouterRejection? {
        do {
            try await router.submit(e)
            return nil
        } catch let r as RouterRejection { return r } catch { return nil }
    }

    @Test func acceptsAWellFormedCommandOnce() async throws {
        let r = router()
        let s = await r.openSession(source: .cli, target: "tv-1")
        try await r.submit(envelope(s, 1))
        #expect(delivered.count == 1)
        #expect(delivered.log.withLock { $0[0].0 } == "tv-1")
    }

    @Test func sessionRules() async throws {
        let r = router()
        #expect(await rejection(r, envelope(UUID(), 1)) == .unknownSession)
        let s = await r.openSession(source: .cli, target: "tv-1")
        #expect(await rejection(r, envelope(s, 1, target: "tv-2")) == .wrongTarget(expected: "tv-1"))
        await r.closeSession(s)
        #expect(await rejection(r, envelope(s, 2)) == .closedSession)
        #expect(delivered.count == 0)
    }

    @Test func duplicatesAndOrder() async throws {
        let r = router()
        let s = await r.openSession(source: .interactive, target: "tv-1")
        let id = UUID()
        try await r.submit(envelope(s, 1, id: id))
        #expect(await rejection(r, envelope(s, 2, id: id)) == .duplicate)
        #expect(await rejection(r, envelope(s, 1)) == .outOfOrder(last: 1))
        #expect(await rejection(r, envelope(s, 0)) == .outOfOrder(last: 1))
        try await r.submit(envelope(s, 5))
        #expect(delivered.count == 2)
        // Gaps are fine (a lost command is not replayed); going back is not.
        #expect(await rejection(r, envelope(s, 4)) == .outOfOrder(last: 5))
    }

    @Test func timeRules() async throws {
        let r = router()
        let s = await r.openSession(source: .apiClient, target: "tv-1")
        // Stale: issued, then the clock moved past its expiry.
        let stale = envelope(s, 1, lifetime: 3)
        clock.advance(4)
        #expect(await rejection(r, stale) == .expired)
        // From the future beyond the tolerance; within it is fine.
        #expect(await rejection(r, envelope(s, 2, issued: 5)) == .fromTheFuture)
        try await r.submit(envelope(s, 3, issued: 1.5))
        #expect(await rejection(r, envelope(s, 4, lifetime: 3600)) == .lifetimeTooLong)
        #expect(delivered.count == 1)
    }

    @Test func gestureRules() async throws {
        let r = router()
        let s = await r.openSession(source: .gesture, target: "tv-1")
        #expect(await rejection(r, envelope(s, 1, source: .gesture)) == .gestureNotArmed)
        try await r.armGesture(s, for: 10)
        try await r.submit(envelope(s, 2, source: .gesture, command: .key(.key(.down), .press)))
        try await r.submit(envelope(s, 3, source: .gesture, command: .volume(.up)))
        for (index, forbidden)
            in ([
                .key(.key(.power), .press), .key(.key(.powerOff), .press), .key(.key(.settings), .press), .key(.key(.input), .press),
                .key(.raw("KEY_FACTORY"), .press), .text("buy"), .launch("store"),
            ] as [RemoteCommand]).enumerated()
        {
            #expect(await rejection(r, envelope(s, UInt64(100 + index), source: .gesture, command: forbidden)) == .gestureForbidden, "\(forbidden)")
        }
        clock.advance(11)
        #expect(await rejection(r, envelope(s, 100_000, source: .gesture)) == .gestureArmingExpired)
        #expect(delivered.count == 2)
    }

    @Test func theFollowSourceMaySwitchOnlyPowerPictureArtAndInput() async throws {
        let r = router()
        let s = await r.openSession(source: .follow, target: "tv-1")
        let allowed: [RemoteCommand] = [
            .key(.key(.powerOff), .press), .key(.key(.powerOn), .press), .screen(on: false), .input(.hdmi(2)), .art(.mode(on: true)),
        ]
        for (index, command) in allowed.enumerated() { try await r.submit(envelope(s, UInt64(1 + index), source: .follow, command: command)) }
        let forbidden: [RemoteCommand] = [
            .key(.key(.home), .press), .key(.raw("KEY_POWER"), .press), .text("hi"), .launch("netflix"), .volume(.up),
            .art(.delete(contentID: "MY_F0001")),
        ]
        for (index, command) in forbidden.enumerated() {
            #expect(await rejection(r, envelope(s, UInt64(100 + index), source: .follow, command: command)) == .followForbidden, "\(command)")
        }
        #expect(delivered.count == allowed.count)
    }

    @Test func theHomeKitSourceMaySendPowerInputsAppsAndPressedKeysOnly() async throws {
        let r = router()
        let s = await r.openSession(source: .homekit, target: "tv-1")
        let allowed: [RemoteCommand] = [
            .key(.key(.powerOn), .press), .key(.key(.select), .press), .key(.key(.info), .press), .key(.key(.playPause), .press),
            .input(.hdmi(2)), .launch("12"), .volume(.up), .setVolume(30),
        ]
        for (index, command) in allowed.enumerated() { try await r.submit(envelope(s, UInt64(1 + index), source: .homekit, command: command)) }
        let forbidden: [RemoteCommand] = [
            .text("buy"), .key(.raw("KEY_FACTORY"), .press), .launch("https://example.com/buy"), .key(.key(.select), .holdStart),
            .longPress(.key(.select), milliseconds: 500), .key(.key(.record), .press), .notify("hi"),
        ]
        for (index, command) in forbidden.enumerated() {
            #expect(await rejection(r, envelope(s, UInt64(100 + index), source: .homekit, command: command)) == .homekitForbidden, "\(command)")
        }
        #expect(delivered.count == allowed.count)
    }

    @Test func retargetCancelsPendingWorkForTheOldTV() async throws {
        let started = Locked(false)
        let log = delivered.log
        let r = router(deliver: { envelope in
            started.withLock { $0 = true }
            try await Task.sleep(for: .seconds(30))
            log.withLock { $0.append((envelope.target, envelope.command)) }
            return .sent
        })
        let s = await r.openSession(source: .cli, target: "tv-1")
        let pending = Task { await rejection(r, envelope(s, 1)) }
        while !started.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(5)) }
        try await r.retarget(s, to: "tv-2")
        #expect(await pending.value == .staleGeneration)
        #expect(await r.generation(of: s) == 1)
        // Nothing reached either TV; the next command goes to the new one only.
        #expect(delivered.count == 0)
        #expect(await rejection(r, envelope(s, 2, target: "tv-1")) == .wrongTarget(expected: "tv-2"))
    }

    @Test func failedDeliveryIsReportedNotRetried() async throws {
        let attempts = Locked(0)
        let r = router(deliver: { _ in
            attempts.withLock { $0 += 1 }
            throw PhotonError(.connectionClosed, "the TV went away")
        })
        let s = await r.openSession(source: .cli, target: "tv-1")
        await #expect(throws: PhotonError.self) { try await r.submit(envelope(s, 1)) }
        #expect(attempts.withLock { $0 } == 1)
        // The same command again is a duplicate, not a silent replay.
        #expect(RouterRejection.duplicate.error.message.contains("not sent again"))
    }

    @Test func duplicateWindowIsBounded() async throws {
        var policy = RouterPolicy()
        policy.duplicateWindow = 4
        let log = delivered.log
        let r = CommandRouter(
            clock: clock, policy: policy,
            deliver: { e in
                log.withLock { $0.append((e.target, e.command)) }
                return .sent
            })
        let s = await r.openSession(source: .cli, target: "tv-1")
        for n in 1...100 { try await r.submit(envelope(s, UInt64(n))) }
        #expect(delivered.count == 100)
    }
}

/// De-duplication across sessions (one-shot sends open one each) and the expiry that
/// travels with a delivery.
extension CommandRouterTests {
    @Test func theSameCommandIdInAnotherSessionIsADuplicate() async throws {
        let r = router()
        let id = UUID()
        let first = await r.openSession(source: .apiClient, target: "tv-1")
        let second = await r.openSession(source: .apiClient, target: "tv-1")
        try await r.submit(envelope(first, 1, id: id))
        await r.closeSession(first)
        #expect(await rejection(r, envelope(second, 1, id: id)) == .duplicate)
        #expect(delivered.count == 1)
        // Once the command has expired its id is forgotten: a copy is refused as expired.
        clock.advance(6)
        let third = await r.openSession(source: .apiClient, target: "tv-1")
        var late = envelope(third, 1, id: id, issued: -6)
        late.expiresAt = clock.now.addingTimeInterval(-1)
        #expect(await rejection(r, late) == .expired)
        #expect(await r.rememberedCommandCount == 0)
    }

    @Test func deliveryCarriesTheCommandsExpiry() async throws {
        let seen = Locked<Date?>(nil)
        let r = router(deliver: { _ in
            seen.withLock { $0 = CommandDeadline.expiresAt }
            return .sent
        })
        let s = await r.openSession(source: .cli, target: "tv-1")
        let e = envelope(s, 1)
        try await r.submit(e)
        #expect(seen.withLock { $0 } == e.expiresAt)
        #expect(CommandDeadline.expiresAt == nil)
        await #expect(throws: PhotonError.self) {
            try await CommandDeadline.$expiresAt.withValue(Date().addingTimeInterval(-1)) { try CommandDeadline.checkBeforeSending() }
        }
    }
}

/// Gesture holds are bounded and always released.
extension CommandRouterTests {
    func gestureRouter(limit: TimeInterval) -> CommandRouter {
        var policy = RouterPolicy()
        policy.gestureHoldLimit = limit
        let log = delivered.log
        return CommandRouter(
            clock: clock, policy: policy,
            deliver: { e in
                log.withLock { $0.append((e.target, e.command)) }
                return .sent
            })
    }

    func commands() -> [RemoteCommand] { delivered.log.withLock { $0.map(\.1) } }

    @Test func aGestureCannotHoldForLong() async throws {
        let r = gestureRouter(limit: 2)
        let s = await r.openSession(source: .gesture, target: "tv-1")
        try await r.armGesture(s, for: 30)
        #expect(
            await rejection(r, envelope(s, 1, source: .gesture, command: .longPress(.key(.volumeUp), milliseconds: 60_000)))
                == .gestureHoldTooLong(limit: 2))
        try await r.submit(envelope(s, 2, source: .gesture, command: .longPress(.key(.volumeUp), milliseconds: 500)))
        #expect(delivered.count == 1)
    }

    @Test func aGestureHoldWithoutItsEndIsReleased() async throws {
        let r = gestureRouter(limit: 0.1)
        let s = await r.openSession(source: .gesture, target: "tv-1")
        try await r.armGesture(s, for: 30)
        try await r.submit(envelope(s, 1, source: .gesture, command: .key(.key(.volumeUp), .holdStart)))
        #expect(await r.isHolding(.key(.volumeUp), in: s))
        try await clock.waitForSleepers()
        clock.advance(0.1)
        for _ in 0..<2000 where delivered.count < 2 { try await Task.sleep(for: .milliseconds(1)) }
        #expect(commands() == [.key(.key(.volumeUp), .holdStart), .key(.key(.volumeUp), .holdEnd)])
        #expect(await !r.isHolding(.key(.volumeUp), in: s))

        // An end in time cancels the automatic release: exactly one hold-end.
        try await r.submit(envelope(s, 2, source: .gesture, command: .key(.key(.down), .holdStart)))
        try await r.submit(envelope(s, 3, source: .gesture, command: .key(.key(.down), .holdEnd)))
        clock.advance(1)
        for _ in 0..<20 { await Task.yield() }
        #expect(commands().filter { $0 == .key(.key(.down), .holdEnd) }.count == 1)

        // Closing the session releases what it holds at once.
        try await r.submit(envelope(s, 4, source: .gesture, command: .key(.key(.left), .holdStart)))
        await r.closeSession(s)
        for _ in 0..<200 where !commands().contains(.key(.key(.left), .holdEnd)) { try await Task.sleep(for: .milliseconds(5)) }
        #expect(commands().last == .key(.key(.left), .holdEnd))
    }

    func brokerRouter(allows: BrokerAllowances = [], holdLimit: TimeInterval = 2) -> CommandRouter {
        var policy = RouterPolicy()
        policy.gestureHoldLimit = holdLimit
        policy.brokerAllows = allows
        let log = delivered.log
        return CommandRouter(
            clock: clock, policy: policy,
            deliver: { e in
                log.withLock { $0.append((e.target, e.command)) }
                return .sent
            })
    }

    /// Anyone who can publish on the broker is not a fully trusted controller: no raw
    /// codes, no links, no long holds — unless the site says otherwise.
    @Test func aBrokerMayNotSendRawCodesLinksOrLongHolds() async throws {
        let r = brokerRouter()
        let s = await r.openSession(source: .mqtt, target: "tv-1")
        var n: UInt64 = 0
        func send(_ command: RemoteCommand) async -> RouterRejection? {
            n += 1
            return await rejection(r, envelope(s, n, source: .mqtt, command: command))
        }
        #expect(await send(.key(.raw("KEYCODE_SETTINGS"), .press)) == .brokerForbidden("send raw key codes", allowance: "raw"))
        #expect(await send(.longPress(.raw("KEY_POWER"), milliseconds: 500)) == .brokerForbidden("send raw key codes", allowance: "raw"))
        for link in ["intent:#Intent;package=com.evil;end", "https://example.com", "vnd.youtube://watch", "market:details"] {
            #expect(await send(.launch(link)) == .brokerForbidden("open links (only app ids)", allowance: "links"), "\(link)")
        }
        #expect(await send(.longPress(.key(.select), milliseconds: 60_000)) == .brokerForbidden("hold a key for more than 2.0 s", allowance: nil))
        #expect(delivered.count == 0)
        // What Home Assistant needs still goes: keys, app ids, text, volume, short holds.
        for command: RemoteCommand in [
            .key(.key(.home), .press), .launch("youtube.leanback.v4"), .launch("12?contentId=80057281&mediaType=movie"), .launch("111299001912"),
            .text("hello"), .setVolume(12), .longPress(.key(.select), milliseconds: 1500),
        ] {
            #expect(await send(command) == nil, "\(command)")
        }
        #expect(delivered.count == 7)
        let error = RouterRejection.brokerForbidden("send raw key codes", allowance: "raw").error
        #expect(error.code == .unsupported && error.hint?.contains("--mqtt-allow raw") == true)
    }

    @Test func aSiteCanAllowRawCodesAndLinks() async throws {
        let r = brokerRouter(allows: try #require(BrokerAllowances(names: "raw,links")))
        let s = await r.openSession(source: .mqtt, target: "tv-1")
        try await r.submit(envelope(s, 1, source: .mqtt, command: .key(.raw("KEYCODE_TV_INPUT"), .press)))
        try await r.submit(envelope(s, 2, source: .mqtt, command: .launch("https://www.youtube.com")))
        #expect(delivered.count == 2)
        #expect(BrokerAllowances(names: "raw") == .rawKeys)
        #expect(BrokerAllowances(names: "links, RAW") == [.rawKeys, .links])
        #expect(BrokerAllowances(names: "everything") == nil)
    }

    /// A broker's hold-start is released by the router, as a gesture's is: the bridge's
    /// router session never closes, so nothing else would.
    @Test func aBrokerHoldWithoutItsEndIsReleased() async throws {
        let r = brokerRouter(holdLimit: 0.5)
        let s = await r.openSession(source: .mqtt, target: "tv-1")
        try await r.submit(envelope(s, 1, source: .mqtt, command: .key(.key(.volumeUp), .holdStart)))
        #expect(await r.isHolding(.key(.volumeUp), in: s))
        try await clock.waitForSleepers()
        clock.advance(0.5)
        for _ in 0..<2000 where delivered.count < 2 { try await Task.sleep(for: .milliseconds(1)) }
        #expect(commands() == [.key(.key(.volumeUp), .holdStart), .key(.key(.volumeUp), .holdEnd)])
    }
}
