import Foundation
import PhotonCore
import PhotonFollow
import PhotonKit

/// `photon follow TV`: the TV follows this computer — off before it sleeps or shuts down
/// (unless it shows another input), on and to its input when it wakes, the picture off
/// while the session is idle or locked. logind on the system bus says when; every action
/// goes through the one submit path as the `follow` source.
enum FollowCommand {
    static let spec = CommandSpec(
        ["follow"], summary: "the TV follows this computer: off when it sleeps, on when it wakes, the picture off while idle",
        arguments: "TV", minimumArguments: 1, maximumArguments: 1,
        options: [
            OptionSpec(
                "input", value: "NAME",
                help: "this computer's input (hdmi2, or the TV's label): chosen at wake; at sleep the TV is left on while it shows another"),
            OptionSpec("on-wake", help: "only power on (and choose --input) at start and after a resume"),
            OptionSpec("on-sleep", help: "only power off before the machine sleeps or shuts down"),
            OptionSpec(
                "idle", type: .seconds(0.1...86_400),
                help: "after the session is idle or locked this many seconds, the picture off (on again at activity)"),
            OptionSpec("idle-power", help: "with --idle: where the TV cannot switch its picture off, switch it off"),
            OptionSpec(
                "broadcast", value: "ADDR", help: "at wake: where to send Wake-on-LAN (repeatable; default every broadcast address)", repeatable: true
            ),
            OptionSpec("wait", type: .seconds(1...300), help: "at wake: how long to wait for a woken TV (default 45)"),
        ],
        details: """
            Listens to systemd-logind on the system bus: PrepareForSleep and PrepareForShutdown (with a delay lock, so the TV \
            is off before the machine sleeps; the lock is let go at once after, or when its time runs out), and this session's \
            Lock, Unlock and IdleHint. Without --on-wake or --on-sleep, does both. Runs until stopped; `photon serve` users \
            can run it as the photon-follow user unit. Each action is printed (--json: one object a line). Exit 3 when there \
            is no system bus or no logind.
            """,
        examples: ["photon follow living-room --input hdmi2", "photon follow office --idle 300 --on-sleep"], run: run)

    static func run(_ parsed: ParsedCommand, _ context: CLIContext) async throws -> Int32 {
        let tv = parsed.arguments[0]
        var options = FollowOptions()
        if let input = parsed.value("input") { options.input = try InputName(parsing: input) }
        let wakeOnly = parsed.flag("on-wake")
        let sleepOnly = parsed.flag("on-sleep")
        if wakeOnly || sleepOnly {
            options.onWake = wakeOnly
            options.onSleep = sleepOnly
        }
        if let idle = parsed.value("idle").flatMap(Double.init) { options.idle = .milliseconds(Int(idle * 1000)) }
        options.idlePower = parsed.flag("idle-power")
        var patience: Duration = .seconds(45)
        if let wait = parsed.value("wait").flatMap(Double.init) { patience = .milliseconds(Int(wait * 1000)) }
        let wake = WakeRequest(destinations: parsed.allValues("broadcast"), patience: patience)
        if options.idlePower && options.idle == nil { throw PhotonError(.usage, "--idle-power goes with --idle SECONDS") }
        // A name that is not paired fails now, not at the first sleep.
        let device = try await context.store.device(named: tv)
        let control = try await context.control(source: .follow)
        let (logind, follower) = try follower(of: device, options: options, wake: wake, control: control, context)
        defer { logind.stop() }
        await follower.run(logind.events, lock: logind)
        return 0
    }

    /// Connects to logind and makes the follower of `device` through `control`: `photon
    /// follow` runs it in the foreground, `photon serve --follow` beside the daemon. Every
    /// action is reported as a line (an object with --json).
    static func follower(
        of device: DeviceRecord, options: FollowOptions, wake: WakeRequest, control: any TVControl, _ context: CLIContext
    ) throws -> (Logind, Follower) {
        let logind = try Logind.connect(note: { context.note($0) })
        if logind.sessionPath == nil, options.idle != nil { context.note("no login session: --idle has nothing to follow") }
        let target = ControlledTV(name: device.nickname, control: control, wake: wake)
        let follower = Follower(tv: target, options: options) { report in
            var fields: [(String, JSONValue)] = [("event", .string(report.event)), ("action", .string(report.action))]
            if let detail = report.detail { fields.append(("detail", .string(detail))) }
            context.emit(.object(fields), text: "\(report.event): \(report.action)\(report.detail.map { " (\($0))" } ?? "")")
        }
        return (logind, follower)
    }
}
