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

    public init(input: InputName? = nil, onWake: Bool = true, onSleep: Bool = true, idle: Duration? = nil, idlePower: Bool = false) {
        self.input = input
        self.onWake = onWake
        self.onSleep = onSleep
        self.idle = idle
        self.idlePower = idlePower
    }
}

/// What the follower does to the TV: power, a command, and the inputs with the one shown.
/// `ControlledTV` does it through a `TVControl` (the one submit path); tests give their own.
public protocol FollowTarget: Sendable {
    var name: String { get }
    func setPower(_ target: PowerTarget) async throws
    func send(_ command: RemoteCommand) async throws
    func inputs() async throws -> [TVListItem]
}

/// A TV reached through a `TVControl`: `setPower` is the reliable power path (woken as
/// `wake` says), commands go through the router like every door's.
public struct ControlledTV: FollowTarget {
    public let name: String
    let control: any TVControl
    let wake: WakeRequest

    public init(name: String, control: any TVControl, wake: WakeRequest) {
        self.name = name
        self.control = control
        self.wake = wake
    }

    public func setPower(_ target: PowerTarget) async throws {
        _ = try await control.setPower(target, of: name, wake: wake, lifetime: .seconds(10))
    }

    public func send(_ command: RemoteCommand) async throws {
        _ = try await control.send([command], to: name, delay: .zero, wake: nil, lifetime: .seconds(10))
    }

    public func inputs() async throws -> [TVListItem] { try await control.items(.inputs, of: name) }
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

    let tv: any FollowTarget
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
        tv: any FollowTarget, options: FollowOptions, clock: any RouterClock = SystemClock(), sleepBudget: Duration = .milliseconds(4500),
        report: @escaping @Sendable (Report) -> Void
    ) {
        self.tv = tv
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
                let inputs = try await tv.inputs()
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
                try await self.tv.setPower(.off)
                self.report(Report(event: event, action: "off", detail: nil))
            }
        } catch {
            report(Report(event: event, action: "failed", detail: Self.words(error)))
        }
    }

    /// On (woken where it does not answer), then to `input`.
    func wake(event: String) async {
        do {
            try await tv.setPower(.on)
            report(Report(event: event, action: "on", detail: nil))
            if let input = options.input {
                try await tv.send(.input(input))
                report(Report(event: event, action: "input", detail: input.description))
            }
        } catch {
            report(Report(event: event, action: "failed", detail: Self.words(error)))
        }
    }

    /// The picture off where the brand can, else (with `idlePower`) the power.
    func dim(event: String) async {
        do {
            try await tv.send(.screen(on: false))
            state.withLock { $0.dimmed = .screen }
            report(Report(event: event, action: "screen-off", detail: nil))
        } catch let error as PhotonError where error.code == .unsupported {
            guard options.idlePower else {
                report(Report(event: event, action: "nothing", detail: "the TV cannot switch its picture off (--idle-power switches it off)"))
                return
            }
            do {
                try await tv.setPower(.off)
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
                try await tv.send(.screen(on: true))
                report(Report(event: event, action: "screen-on", detail: nil))
            } catch {
                report(Report(event: event, action: "failed", detail: Self.words(error)))
            }
        case .power: await wake(event: event)
        }
    }

    func showingInput() async throws -> TVListItem? {
        try await tv.inputs().first { $0.active == true }
    }

    static func matches(_ item: TVListItem, _ input: InputName) -> Bool {
        item.kind == input.description || item.name.lowercased() == input.description.lowercased()
    }

    static func words(_ error: any Error) -> String { (error as? PhotonError)?.message ?? "\(error)" }
}
