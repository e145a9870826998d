import Foundation
import PhotonCore
import PhotonKit

/// What `photon follow` does, and when.
public struct FollowOptions: Sendable, Equatable {
    /// The input this computer is on: switched to at wake, and the TV is switched off at
    /// sleep only while it shows it (where the brand reports the input shown).
    public var input: InputName?
    /// Power on (and switch to `input`) at start and after a resume.
    public var onWake = true
    /// Power off before the machine sleeps or shuts down.
    public var onSleep = true
    /// How long the session must stay idle or locked before the picture goes off; nil: idle
    /// and lock change nothing.
    public var idle: Duration?
    /// Where the brand cannot switch the picture off, switch the TV off at idle instead.
    public var idlePower = false
    /// How a TV that does not answer at wake is woken (where the packet goes, how long to wait).
    public var wake = WakeRequest()

    public init(input: InputName? = nil, onWake: Bool = true, onSleep: Bool = true, idle: Duration? = nil, idlePower: Bool = false) {
        self.input = input
        self.onWake = onWake
        self.onSleep = onSleep
        self.idle = idle
        self.idlePower = idlePower
    }
}

/// The delay lock logind gives (or a stand-in in tests): released once the TV is off, taken
/// again after a resume.
public protocol SleepDelayLock: Sendable {
    func releaseDelayLock()
    func requestDelayLock()
}

extension Logind: SleepDelayLock {}

/// The TV follows this computer: off before it sleeps or shuts down (unless the TV shows
/// another input), on and to its input when it wakes, the picture off while the session is
/// idle or locked. Every action goes through one `TVControl` (the one submit path, as the
/// `follow` source), is reported through `report` without addresses, and a failure is
/// reported and survived: the machine's sleep is never held up past the action.
public final class Follower: Sendable {
    /// One line of what was done, for the log and for tests.
    public struct Report: Sendable, Equatable {
        public var event: String
        public var action: String
        public var detail: String?
    }

    let tv: String
    let control: any TVControl
    let options: FollowOptions
    let clock: any RouterClock
    let report: @Sendable (Report) -> Void
    /// How long the TV may take to go off before the machine is let go (logind's delay lock
    /// lasts 5 s by default).
    let sleepBudget: Duration
    private let state = Locked<State>(State())

    private struct State {
        var idleTask: Task<Void, Never>?
        /// What idle did, to undo on activity: the picture or the power.
        var dimmed: Dimmed?
    }

    enum Dimmed { case screen, power }

    public init(
        tv: String, control: any TVControl, options: FollowOptions, clock: any RouterClock = SystemClock(),
        sleepBudget: Duration = .milliseconds(4500), report: @escaping @Sendable (Report) -> Void
    ) {
        self.tv = tv
        self.control = control
        self.options = options
        self.clock = clock
        self.sleepBudget = sleepBudget
        self.report = report
    }

    /// Says what the brand can report, then follows `events` until they end.
    public func run(_ events: AsyncStream<LogindEvent>, lock: any SleepDelayLock) async {
        await start()
        for await event in events { await handle(event, lock: lock) }
        state.withLock { $0.idleTask }?.cancel()
    }

    func start() async {
        if let input = options.input {
            do {
                let inputs = try await control.items(.inputs, of: tv)
                if !inputs.contains(where: { $0.active != nil }) {
                    report(
                        Report(
                            event: "start", action: "note",
                            detail: "the TV does not say which input it shows: it is switched off at sleep whatever it shows"))
                } else if !inputs.contains(where: { Self.matches($0, input) }) {
                    report(Report(event: "start", action: "note", detail: "the TV has no input '\(input)'"))
                }
            } catch {
                report(
                    Report(
                        event: "start", action: "note",
                        detail: "the TV cannot list its inputs (\(Self.words(error))): it is switched off at sleep whatever it shows"))
            }
        }
        if options.onWake { await wake(event: "start") }
        report(Report(event: "start", action: "following", detail: nil))
    }

    func handle(_ event: LogindEvent, lock: any SleepDelayLock) async {
        switch event {
        case .sleep(starting: true), .shutdown(starting: true):
            let name = event == .sleep(starting: true) ? "sleep" : "shutdown"
            if options.onSleep { await switchOff(event: name) }
            lock.releaseDelayLock()
            report(Report(event: name, action: "released", detail: nil))
        case .sleep(starting: false):
            lock.requestDelayLock()
            if options.onWake { await wake(event: "resume") }
        case .shutdown(starting: false): break
        case .lock, .idle(true):
            guard let idle = options.idle else { return }
            let name = event == .lock ? "lock" : "idle"
            let task = Task { [weak self] in
                guard let self else { return }
                do { try await self.clock.sleep(for: idle) } catch { return }
                await self.dim(event: name)
            }
            let previous = state.withLock { s -> Task<Void, Never>? in
                defer { s.idleTask = task }
                return s.idleTask
            }
            previous?.cancel()
        case .unlock, .idle(false):
            state.withLock { $0.idleTask }?.cancel()
            await brighten(event: event == .unlock ? "unlock" : "active")
        case .gone(let why):
            report(Report(event: "gone", action: "stopped", detail: why))
        }
    }

    /// Off, unless the TV reports another input showing; bounded so the machine sleeps on time.
    func switchOff(event: String) async {
        let budget = sleepBudget
        do {
            try await withTimeout(budget, "switching the TV off") {
                if let input = self.options.input, let showing = try? await self.showingInput(), !Self.matches(showing, input) {
                    self.report(Report(event: event, action: "left-on", detail: "another input is showing (\(showing.kind ?? showing.name))"))
                    return
                }
                _ = try await self.control.setPower(.off, of: self.tv, wake: WakeRequest(), lifetime: .seconds(4))
                self.report(Report(event: event, action: "off", detail: nil))
            }
        } catch {
            report(Report(event: event, action: "failed", detail: Self.words(error)))
        }
    }

    /// On (woken where it does not answer), then to `input`.
    func wake(event: String) async {
        do {
            _ = try await control.setPower(.on, of: tv, wake: options.wake, lifetime: .seconds(10))
            report(Report(event: event, action: "on", detail: nil))
            if let input = options.input {
                _ = try await control.send([.input(input)], to: tv, delay: .zero, wake: nil, lifetime: .seconds(10))
                report(Report(event: event, action: "input", detail: input.description))
            }
        } catch {
            report(Report(event: event, action: "failed", detail: Self.words(error)))
        }
    }

    /// The picture off where the brand can, else (with `idlePower`) the power.
    func dim(event: String) async {
        do {
            _ = try await control.send([.screen(on: false)], to: tv, delay: .zero, wake: nil, lifetime: .seconds(5))
            state.withLock { $0.dimmed = .screen }
            report(Report(event: event, action: "screen-off", detail: nil))
        } catch let error as PhotonError where error.code == .unsupported {
            guard options.idlePower else {
                report(Report(event: event, action: "nothing", detail: "the TV cannot switch its picture off (--idle-power switches it off)"))
                return
            }
            do {
                _ = try await control.setPower(.off, of: tv, wake: WakeRequest(), lifetime: .seconds(5))
                state.withLock { $0.dimmed = .power }
                report(Report(event: event, action: "off", detail: nil))
            } catch {
                report(Report(event: event, action: "failed", detail: Self.words(error)))
            }
        } catch {
            report(Report(event: event, action: "failed", detail: Self.words(error)))
        }
    }

    func brighten(event: String) async {
        guard
            let dimmed = state.withLock({ s -> Dimmed? in
                defer { s.dimmed = nil }
                return s.dimmed
            })
        else { return }
        switch dimmed {
        case .screen:
            do {
                _ = try await control.send([.screen(on: true)], to: tv, delay: .zero, wake: nil, lifetime: .seconds(5))
                report(Report(event: event, action: "screen-on", detail: nil))
            } catch {
                report(Report(event: event, action: "failed", detail: Self.words(error)))
            }
        case .power: await wake(event: event)
        }
    }

    func showingInput() async throws -> TVListItem? {
        try await control.items(.inputs, of: tv).first { $0.active == true }
    }

    static func matches(_ item: TVListItem, _ input: InputName) -> Bool {
        item.kind == input.description || item.name.lowercased() == input.description.lowercased()
    }

    static func words(_ error: any Error) -> String { (error as? PhotonError)?.message ?? "\(error)" }
}
