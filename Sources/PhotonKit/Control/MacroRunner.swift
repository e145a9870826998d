import Foundation
import PhotonCore

/// How one step of a macro ended.
public struct MacroStepResult: Sendable, Equatable {
    /// The step's position in the macro, from 0.
    public var index: Int
    /// The step as written in the macro file.
    public var text: String
    /// nil: done.
    public var error: PhotonError?
    /// How long the step took, its wait included.
    public var milliseconds: Int

    /// Whether the step succeeded (it has no error).
    public var ok: Bool { error == nil }
}

extension TVControl {
    /// Runs `macro` on `tv`, step by step: each command its own router command (own id,
    /// own `lifetime`, no retry); `wait` on `sleep`; `wait-for` watching the TV's reports.
    /// Commands sent one after another (`key down down select`, or `key` steps in a row)
    /// are `Macro.keyPacingMilliseconds` apart, as `photon key` paces them: real TVs drop
    /// keys that come in a burst. The first failed step ends the macro: nothing after it
    /// is sent. `catalog` (the
    /// brand's app ids) lets `wait-for app youtube` recognise the TV's id for YouTube.
    /// Returns a result per step run; `progress` hears each as it ends.
    public func runMacroHere(
        _ macro: Macro, on tv: String, lifetime: Duration, wake: WakeRequest = WakeRequest(), catalog: [String: [String]] = [:],
        source: CommandSource = .cli,
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) },
        progress: @Sendable (MacroStepResult) -> Void = { _ in }
    ) async -> [MacroStepResult] {
        var results: [MacroStepResult] = []
        let session: any TVControlSession
        do {
            session = try await open(tv, source: source)
        } catch {
            let result = MacroStepResult(index: 1, text: macro.steps.first?.text ?? "", error: PhotonError.wrap(error), milliseconds: 0)
            progress(result)
            return [result]
        }
        let watcher = MacroWatcher(session.updates)
        defer { watcher.stop() }
        // Whether the last thing the macro did was send a command (the next one waits).
        var justSent = false
        // When the last command went out: a wait-for after it does not take older reports.
        var lastCommand: ContinuousClock.Instant?
        for (offset, entry) in macro.steps.enumerated() {
            let started = ContinuousClock.now
            var failure: PhotonError?
            do {
                if case .commands = entry.step {} else { justSent = false }
                switch entry.step {
                case .commands(let commands):
                    for command in commands {
                        if justSent { try await sleep(.milliseconds(Macro.keyPacingMilliseconds)) }
                        lastCommand = .now
                        try await session.send(command, lifetime: lifetime)
                        justSent = true
                    }
                case .power(let target):
                    lastCommand = .now
                    _ = try await setPower(target, of: tv, wake: wake, lifetime: lifetime)
                case .wait(let duration):
                    try await sleep(duration)
                case .waitFor(let condition, let limit):
                    try await watcher.wait(for: condition, within: limit, catalog: catalog, since: lastCommand)
                }
            } catch {
                failure = PhotonError.wrap(error)
            }
            let elapsed = ContinuousClock.now - started
            let result = MacroStepResult(
                index: offset + 1, text: entry.text, error: failure,
                milliseconds: Int(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000))
            results.append(result)
            progress(result)
            if failure != nil { break }
        }
        await session.close()
        return results
    }
}

/// Keeps the TV's latest app and power from a session's updates, for `wait-for`.
final class MacroWatcher: Sendable {
    private struct Seen {
        var app: String?
        var power: PowerState?
        var detailedPower = false
        /// When each was last reported.
        var appAt: ContinuousClock.Instant?
        var powerAt: ContinuousClock.Instant?
    }
    private let seen = Locked(Seen())
    private let task: Task<Void, Never>

    init(_ updates: AsyncStream<TVUpdate>) {
        let seen = self.seen
        task = Task {
            for await update in updates {
                guard case .event(let event) = update else { continue }
                seen.withLock { s in
                    switch event {
                    case .currentApp(let app):
                        s.app = app
                        s.appAt = .now
                    case .powerState(let state, _):
                        s.power = state
                        s.detailedPower = true
                        s.powerAt = .now
                    case .power(let on) where !s.detailedPower:
                        s.power = on ? .on : .standby
                        s.powerAt = .now
                    default: break
                    }
                }
            }
        }
    }

    func stop() { task.cancel() }

    /// Returns once `condition` holds; throws `timeout` (exit 3) after `limit`. After a
    /// command (`since`), a report older than it counts only once it has held for `grace`
    /// after the command — a TV that reports nothing new (the app was already in front) —
    /// so a wait-for right after a launch is not satisfied by what was in front before.
    func wait(
        for condition: MacroCondition, within limit: Duration, catalog: [String: [String]], since: ContinuousClock.Instant? = nil,
        grace: Duration = .seconds(3)
    ) async throws {
        let end = ContinuousClock.now + limit
        while true {
            let now = seen.withLock { $0 }
            func current(_ at: ContinuousClock.Instant?) -> Bool {
                guard let since else { return true }
                return (at.map { $0 >= since } ?? false) || ContinuousClock.now - since >= grace
            }
            switch condition {
            case .app(let name): if let app = now.app, current(now.appAt), Self.app(app, matches: name, catalog: catalog) { return }
            case .power(let state): if now.power == state, current(now.powerAt) { return }
            }
            guard ContinuousClock.now < end else {
                let last: String
                switch condition {
                case .app: last = now.app.map { "the app in front is \(Redaction.sanitize($0))" } ?? "the TV reported no app"
                case .power: last = now.power.map { "the TV reports \($0.rawValue)" } ?? "the TV reported no power state"
                }
                throw PhotonError(
                    .timeout, "wait-for \(condition): not within \(Int(limit.seconds)) s (\(last))", hint: "give it longer: wait-for \(condition) 30s"
                )
            }
            try await Task.sleep(for: .milliseconds(25))
        }
    }

    /// Whether the TV's report of the app in front (`youtube.leanback.v4`, `YouTube (837)`,
    /// `com.google.android.youtube.tv`) is the app a user named (`youtube`).
    static func app(_ reported: String, matches name: String, catalog: [String: [String]]) -> Bool {
        let fold = { (text: String) in String(text.lowercased().unicodeScalars.filter { !" -_.".unicodeScalars.contains($0) }) }
        if reported == name { return true }
        if let entry = AppCatalog.entry(named: name) {
            if catalog[entry.key]?.contains(reported) == true { return true }
            if AppCatalog.name(ofID: reported, in: catalog) == entry.name { return true }
        }
        return fold(reported).contains(fold(name))
    }
}
