import Foundation
import Glibc
import PhotonCore
import PhotonKit

/// `photon remote TV`: a full-screen keyboard remote. Keys go through `photon serve` when
/// it runs (warm, about a millisecond) and directly otherwise; the status line follows the
/// TV's events. Holding a key sends presses at the pace the TV takes them: a press that
/// arrives while the previous one is still being sent is dropped, so nothing queues up and
/// nothing is sent after the key is let go.
enum KeyboardRemoteCommand {
    static let spec = CommandSpec(
        ["remote"], summary: "a full-screen keyboard remote", arguments: "TV", minimumArguments: 1, maximumArguments: 1,
        details: """
            Arrows are the D-pad, Enter selects, Backspace or Esc goes back, h or Home goes home,
            + and - change the volume, m mutes, Space is play/pause, p is power, digits are
            digits, / opens a text line (Enter sends it), a picks an app to launch (where the TV
            can list them), ? shows the key map, q or Ctrl-C quits. Keys the TV lacks are marked
            unavailable. It needs a terminal; from scripts use `photon key`. NO_COLOR turns
            colours off.
            """,
        examples: ["photon remote living-room", "photon remote den --direct"], run: run)

    /// Something the remote's loop reacts to.
    enum Occurrence: Sendable {
        case bytes([UInt8])
        case escapeTimeout
        case update(TVUpdate)
        case sent(String)
        case failed(String)
        case apps([TVApp])
        case resize
        case signal(Int32)
        case inputEnded
    }

    static func run(_ parsed: ParsedCommand, _ context: CLIContext) async throws -> Int32 {
        guard context.terminal.isInteractive, RawTerminal.isAvailable else {
            throw PhotonError(
                .usage, "`photon remote` needs a terminal", hint: "run it in an interactive terminal; from scripts use `photon key TV KEY...`")
        }
        let name = parsed.arguments[0]
        let device = try await SessionSupport.device(name, context: context)
        let adapter = try context.registry.adapter(id: device.brand)
        let keys = Set(adapter.keyTable.map(\.key))
        let capabilities = Capabilities(Set(device.capabilities.compactMap(Capability.init(rawValue:))))
        // Connected before raw mode, so a refusal prints as any command's error does.
        let link = try await RemoteLink(tv: name, context: context)

        let (occurrences, post) = AsyncStream.makeStream(of: Occurrence.self, bufferingPolicy: .unbounded)
        let terminal: RawTerminal
        do {
            terminal = try RawTerminal(
                onSignal: { number in
                    post.yield(.signal(number))
                    // If the loop is stuck in a send, leave anyway (the terminal is restored).
                    DispatchQueue.global().asyncAfter(deadline: .now() + 2) { exit(128 + number) }
                },
                onResize: { post.yield(.resize) })
        } catch {
            await link.close()
            throw error
        }
        var screen = RemoteScreen(
            name: device.nickname, route: link.route,
            color: EnvironmentVariables.process["NO_COLOR"] == nil && EnvironmentVariables.process["TERM"] != "dumb")
        for entry in RemoteKeyMap.entries {
            if let reason = RemoteKeyMap.unavailability(of: entry.action, keys: keys, capabilities: capabilities) {
                screen.unavailable[entry.keys] = reason
            }
        }
        let pumps = [
            Task {
                for await chunk in terminal.bytes() { post.yield(.bytes(chunk)) }
                post.yield(.inputEnded)
            },
            Task { for await update in link.updates { post.yield(.update(update)) } },
        ]
        let presses = PressQueue(
            send: { try await link.send($0) },
            report: { label, error in
                if let error {
                    let e = PhotonError.wrap(error)
                    post.yield(.failed(e.message + (e.hint.map { " (\($0))" } ?? "")))
                } else {
                    post.yield(.sent(label))
                }
            })
        var decoder = TerminalKeyDecoder()
        var escapeTimer: Task<Void, Never>?
        func draw() {
            let size = terminal.size
            terminal.write(screen.render(columns: size.columns, rows: size.rows))
        }
        func send(_ command: RemoteCommand, _ label: String, queueing: Bool = false) {
            presses.submit(command, label: label, repeatable: !queueing)
        }

        draw()
        var outcome: Result<Int32, PhotonError> = .success(0)
        loop: for await occurrence in occurrences {
            var inputs: [TerminalInput] = []
            switch occurrence {
            case .bytes(let chunk):
                escapeTimer?.cancel()
                inputs = decoder.feed(chunk)
                if decoder.isPending {
                    escapeTimer = Task {
                        try? await Task.sleep(for: .milliseconds(60))
                        if !Task.isCancelled { post.yield(.escapeTimeout) }
                    }
                }
            case .escapeTimeout:
                inputs = decoder.flushEscape()
            case .update(.event(.disconnected(let reason))):
                // A direct session ends with the TV; a warm one reports reconnecting instead.
                outcome = .failure(reason ?? PhotonError(.connectionClosed, "the TV closed the connection"))
                break loop
            case .update(.event(let event)):
                screen.apply(event)
            case .update(.connection(.closed, let error)):
                outcome = .failure(error ?? PhotonError(.connectionClosed, "the session ended"))
                break loop
            case .update(.connection(let state, _)):
                screen.connection = state.rawValue
            case .sent(let label):
                screen.message = "sent \(label)"
            case .failed(let message):
                screen.message = "not sent: \(message)"
            case .apps(let apps):
                if case .loadingApps = screen.mode {
                    screen.mode = apps.isEmpty ? .keys : .apps(apps, selected: 0)
                    if apps.isEmpty { screen.message = "the TV listed no apps" }
                }
            case .resize:
                terminal.write("\u{1B}[2J")
            case .signal(let number):
                outcome = .success(128 + number)
                break loop
            case .inputEnded:
                break loop
            }
            for input in inputs {
                if handle(input, &screen) { break loop }
            }
            draw()
        }

        /// Applies one key; true to quit.
        func handle(_ input: TerminalInput, _ screen: inout RemoteScreen) -> Bool {
            switch screen.mode {
            case .text(var typed):
                switch input {
                case .escape: screen.mode = .keys
                case .enter:
                    screen.mode = .keys
                    if !typed.isEmpty { send(.text(typed), "the text", queueing: true) }
                case .backspace:
                    if !typed.isEmpty { typed.removeLast() }
                    screen.mode = .text(typed)
                case .interrupt: return true
                case .character(let c) where typed.utf8.count < 1024:
                    typed.append(c)
                    screen.mode = .text(typed)
                default: break
                }
                return false
            case .apps(let apps, let selected):
                switch input {
                case .escape, .backspace: screen.mode = .keys
                case .up: screen.mode = .apps(apps, selected: max(0, selected - 1))
                case .down: screen.mode = .apps(apps, selected: min(apps.count - 1, selected + 1))
                case .enter:
                    screen.mode = .keys
                    send(.launch(apps[selected].id), "launch \(Redaction.sanitize(apps[selected].name, limit: 40))", queueing: true)
                case .interrupt, .character("q"): return true
                default: break
                }
                return false
            case .loadingApps:
                if input == .escape || input == .backspace { screen.mode = .keys }
                return input == .interrupt
            case .keys:
                break
            }
            guard let action = RemoteKeyMap.action(for: input) else { return false }
            let entry = RemoteKeyMap.entries.first { $0.action == action || sameRow($0.action, action) }
            if let entry, let reason = screen.unavailable[entry.keys] {
                screen.message = "\(entry.label) is unavailable: \(reason)"
                return false
            }
            switch action {
            case .quit: return true
            case .help: screen.showHelp.toggle()
            case .textLine: screen.mode = .text("")
            case .appList:
                screen.mode = .loadingApps
                Task {
                    do {
                        post.yield(.apps(try await link.installedApps()))
                    } catch {
                        post.yield(.failed(PhotonError.wrap(error).message))
                        post.yield(.apps([]))
                    }
                }
            case .send(let command):
                send(command, describe(command))
            }
            return false
        }

        escapeTimer?.cancel()
        for pump in pumps { pump.cancel() }
        terminal.restore()
        await link.close()
        switch outcome {
        case .success(let code): return code
        case .failure(let error): throw error
        }
    }

    /// Whether two actions are on the same key-map row (all arrows, all digits, both volume steps).
    static func sameRow(_ a: RemoteAction, _ b: RemoteAction) -> Bool {
        switch (a, b) {
        case (.send(.key(.key(let x), _)), .send(.key(.key(let y), _))):
            let pad: Set<RemoteKey> = [.up, .down, .left, .right]
            if pad.contains(x) && pad.contains(y) { return true }
            return x.rawValue.count == 1 && y.rawValue.count == 1 && x.rawValue.first!.isNumber && y.rawValue.first!.isNumber
        case (.send(.volume(let x)), .send(.volume(let y))):
            return (x == .mute) == (y == .mute)
        default:
            return false
        }
    }

    static func describe(_ command: RemoteCommand) -> String {
        switch command {
        case .key(let input, _): return input.description
        case .volume(let change): return "volume \(change.rawValue)"
        default: return command.logDescription
        }
    }
}
