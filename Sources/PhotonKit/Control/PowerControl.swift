import Foundation
import PhotonCore

/// How a power request ended: the state the TV reported (where it did), whether it had to
/// be woken, and a sentence for the user.
public struct PowerOutcome: Sendable, Equatable {
    /// The power state the TV reported last (nil when it reports none).
    public var state: PowerState?
    /// The TV's own word for that state, where it gives one (`Screen Saver`, `Active Standby`).
    public var reason: String?
    /// Whether Photon had to wake the TV (Wake-on-LAN or its brand's wake) to get there.
    public var woke: Bool
    /// One line for a person: what was done and what the TV says now.
    public var summary: String
}

extension TVControl {
    /// One reliable power change, the same through every door that has a `TVControl`.
    ///
    /// - `on`: wakes the TV when it does not answer (its brand's wake, Wake-on-LAN, through
    ///   the router like any command), sends the brand's own power-on (which does nothing to
    ///   a TV already on), then waits up to `confirmWithin` for the TV to report itself on.
    ///   Anything else throws `unreachable` (exit 3) with the reason: no MAC known, woke but
    ///   stayed in standby, did not answer in time, or a brand that never reports power.
    /// - `off`: the brand's power-off, which never toggles a TV that is already off; a TV
    ///   that does not answer is already off.
    /// - `toggle`: the power key.
    public func setPower(
        _ target: PowerTarget, of tv: String, wake: WakeRequest, lifetime: Duration, confirmWithin: Duration = .seconds(15)
    ) async throws -> PowerOutcome {
        switch target {
        case .toggle:
            let woke = try await send([.key(.key(.power), .press)], to: tv, delay: .zero, wake: nil, lifetime: lifetime)
            return PowerOutcome(state: nil, reason: nil, woke: woke, summary: "Sent the power key.")
        case .off:
            // What the TV says first, so the answer can tell "switched off" from "was already
            // off" (newcomer #19); a TV already in standby is sent nothing.
            let before: (state: PowerState?, reason: String?)
            do {
                before = Self.power(in: try await status(tv, settle: .milliseconds(1500)))
            } catch let error as PhotonError where error.code == .unreachable || error.code == .timeout {
                return PowerOutcome(state: .off, reason: "not answering", woke: false, summary: "The TV does not answer: it is already off.")
            }
            if let state = before.state, state == .standby || state == .off {
                let detail = [state.rawValue, before.reason].compactMap { $0 }.joined(separator: ", ")
                return PowerOutcome(
                    state: state, reason: before.reason, woke: false, summary: "The TV was already off (\(detail)); nothing was sent.")
            }
            do {
                _ = try await send([.key(.key(.powerOff), .press)], to: tv, delay: .zero, wake: nil, lifetime: lifetime)
            } catch let error as PhotonError where error.code == .unreachable || error.code == .timeout {
                return PowerOutcome(state: .off, reason: "not answering", woke: false, summary: "The TV does not answer: it is already off.")
            }
            let summary =
                before.state == nil
                ? "Switched off (its brand does not report power, so Photon cannot tell whether it was on)." : "Switched off."
            return PowerOutcome(state: nil, reason: nil, woke: false, summary: summary)
        case .on:
            let woke: Bool
            do {
                woke = try await send([], to: tv, delay: .zero, wake: wake, lifetime: lifetime)
            } catch let error as PhotonError where error.code == .unreachable || error.code == .timeout {
                throw PhotonError(
                    .unreachable, "\(tv) did not answer after waking within \(Int(wake.patience.seconds)) s: \(error.message)",
                    hint: "is the TV's network standby on? `photon power --help` names the setting for each brand")
            } catch let error as PhotonError where error.reason == .noMACAddress {
                throw PhotonError(.unreachable, "\(tv) does not answer and cannot be woken: \(error.message)", hint: error.hint)
            }
            // The brand's own power-on: from network standby, the woken TV may still be dark.
            _ = try await send([.key(.key(.powerOn), .press)], to: tv, delay: .zero, wake: nil, lifetime: lifetime)
            let (state, reason) = try await reportedPower(of: tv, within: confirmWithin)
            switch state {
            case .on?, .screenOff?:
                return PowerOutcome(state: state, reason: reason, woke: woke, summary: woke ? "Woke the TV; it is on." : "The TV is on.")
            case nil:
                throw PhotonError(
                    .unreachable,
                    "\(tv) answers, but its brand did not report its power within \(Int(confirmWithin.seconds)) s, so Photon cannot confirm it is on",
                    hint: "`photon status \(tv)` shows what it reports")
            default:
                throw PhotonError(
                    .unreachable, "\(tv) \(woke ? "woke but " : "")stayed in \(state!.rawValue)\(reason.map { " (\($0))" } ?? "")",
                    hint: "some sets ignore a power-on from the network while in this state; check the TV's network standby setting")
            }
        }
    }

    /// The power a TV's status reports: its detailed state where it gives one, else on/standby.
    static func power(in events: [TVEvent]) -> (state: PowerState?, reason: String?) {
        var plain: PowerState?
        for event in events {
            switch event {
            case .powerState(let state, let reason): return (state, reason)
            case .power(let on): plain = on ? .on : .standby
            default: continue
            }
        }
        return (plain, nil)
    }

    /// Waits for the TV to report itself on (or screen-off), at most `limit`; returns the
    /// last power it reported (nil: none).
    func reportedPower(of tv: String, within limit: Duration) async throws -> (PowerState?, String?) {
        let session = try await open(tv, source: .cli)
        let last = Locked<(PowerState?, String?)>((nil, nil))
        let detailed = Locked(false)
        _ = try? await waitAtMost(limit) {
            for await update in session.updates {
                guard case .event(let event) = update else { continue }
                switch event {
                case .powerState(let state, let reason):
                    detailed.withLock { $0 = true }
                    last.withLock { $0 = (state, reason) }
                case .power(let on) where !detailed.withLock({ $0 }):
                    last.withLock { $0 = (on ? .on : .standby, nil) }
                default: continue
                }
                if [PowerState.on, .screenOff].contains(last.withLock({ $0.0 })) { return }
            }
        }
        await session.close()
        return last.withLock { $0 }
    }
}
