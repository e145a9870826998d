/// What `photon power TV on|off|toggle` asks for (also a macro step).
public enum PowerTarget: String, Sendable, CaseIterable {
    case on, off, toggle
}

/// What a `wait-for` step waits for.
public enum MacroCondition: Sendable, Equatable, CustomStringConvertible {
    /// An app in front, by catalog name, id, or a word of the TV's own name for it.
    case app(String)
    case power(PowerState)

    public var description: String {
        switch self {
        case .app(let name): return "app \(name)"
        case .power(let state): return "power \(state.rawValue)"
        }
    }
}

/// One step of a macro, parsed before anything is sent (a typo in step 5 sends nothing).
public enum MacroStep: Sendable, Equatable {
    /// Router commands, sent in order (`key down down select` is three).
    case commands([RemoteCommand])
    case power(PowerTarget)
    case wait(Duration)
    case waitFor(MacroCondition, within: Duration)
}

/// A macro: steps in order, each its own router command (own id, own expiry, no retry),
/// the first failure ending it. Written one step per line: `key home`, `key down down
/// select`, `text the expanse`, `launch youtube`, `volume 12`, `input hdmi2`, `channel 7`,
/// `search …`, `notify …`, `screen off`, `power on`, `wait 500ms`, `wait-for app youtube
/// 10s`, `wait-for power on 20s`; `#` starts a comment line.
public struct Macro: Sendable, Equatable {
    public var steps: [(text: String, step: MacroStep)]

    /// The pause between two commands sent one after another, in a macro and by `photon
    /// key` (its default `--delay`): real TVs drop keys that come in a burst.
    public static let keyPacingMilliseconds = 100

    public static func == (a: Macro, b: Macro) -> Bool {
        a.steps.map(\.text) == b.steps.map(\.text) && a.steps.map(\.step) == b.steps.map(\.step)
    }

    /// The most steps a macro may have, and the longest wait a step may ask for.
    public static let stepLimit = 200
    public static let longestWait: Duration = .seconds(600)
    /// How long a `wait-for` waits when it names no time.
    public static let defaultWaitFor: Duration = .seconds(10)
    /// The longest step line: room for the longest text the catalog takes and its verb.
    public static let stepBytes = CommandLimits.textBytes + 64

    /// One step per element; errors name the step (`step 3 ("lunch x")`).
    public init(steps texts: [String]) throws {
        guard !texts.isEmpty else {
            throw PhotonError(.usage, "a macro needs at least one step", hint: "e.g. \"key home\" \"wait 1s\" \"launch youtube\"")
        }
        guard texts.count <= Self.stepLimit else { throw PhotonError(.usage, "a macro has at most \(Self.stepLimit) steps") }
        steps = try texts.enumerated().map { index, text in
            do {
                return (text, try Self.parse(step: text))
            } catch let error as PhotonError {
                throw PhotonError(error.code, "step \(index + 1) (\"\(Redaction.sanitize(text, limit: 60))\"): \(error.message)", hint: error.hint)
            }
        }
    }

    /// A macro file: one step per line; blank lines and lines starting with `#` are skipped.
    public init(file text: String) throws {
        // "\r\n" is one Character in Swift: both line ends are separators.
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }).map { line in
            String(line.hasSuffix("\r") ? line.dropLast() : line[...])
        }
        try self.init(
            steps: lines.filter { line in
                let trimmed = line.drop { $0 == " " || $0 == "\t" }
                return !trimmed.isEmpty && !trimmed.hasPrefix("#")
            }.map { String($0.drop { $0 == " " || $0 == "\t" }) })
    }

    /// Reads one step. Throws `usage` with what the step should look like.
    public static func parse(step text: String) throws -> MacroStep {
        guard text.utf8.count <= Self.stepBytes, !text.unicodeScalars.contains(where: { $0.value < 0x20 && $0 != "\t" }) else {
            throw PhotonError(.usage, "a step is one line of at most \(Self.stepBytes) bytes, without control characters")
        }
        let words = text.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        guard let verb = words.first?.lowercased() else { throw PhotonError(.usage, "an empty step") }
        let rest = String(text.drop { $0 == " " || $0 == "\t" }.dropFirst(words[0].count).drop { $0 == " " || $0 == "\t" })
        let arguments = Array(words.dropFirst())
        func needs(_ shape: String) -> PhotonError { PhotonError(.usage, "\(verb) takes \(shape)") }
        switch verb {
        case "key", "keys":
            guard !arguments.isEmpty else { throw needs("key names: key down down select") }
            return .commands(try arguments.map { try RemoteCommand(verb: "key", argument: $0) })
        case "power":
            guard arguments.count == 1, let target = PowerTarget(rawValue: arguments[0].lowercased()) else { throw needs("on, off or toggle") }
            return .power(target)
        case "wait":
            guard arguments.count == 1 else { throw needs("a time: wait 500ms, wait 2s") }
            return .wait(try duration(arguments[0]))
        case "wait-for":
            guard arguments.count >= 2 else { throw needs("app NAME [TIME] or power STATE [TIME]: wait-for app youtube 10s") }
            var rest = Array(arguments.dropFirst())
            var limit = defaultWaitFor
            if rest.count > 1, let last = rest.last, let parsed = try? duration(last) {
                limit = parsed
                rest.removeLast()
            }
            switch arguments[0].lowercased() {
            case "app": return .waitFor(.app(rest.joined(separator: " ")), within: limit)
            case "power":
                guard rest.count == 1, let state = PowerState(rawValue: rest[0].lowercased()) else {
                    throw needs("a power state: on, standby, screen-off or off")
                }
                return .waitFor(.power(state), within: limit)
            default: throw needs("app NAME [TIME] or power STATE [TIME]")
            }
        default:
            // Every other step is a catalog command: its argument is the rest of the line.
            guard let entry = CommandCatalog.entry(named: verb) else {
                throw PhotonError(
                    .usage, "unknown step '\(Redaction.sanitize(verb))'",
                    hint: "steps: \((CommandCatalog.entries.map(\.name) + ["power", "wait", "wait-for"]).joined(separator: ", "))")
            }
            guard !rest.isEmpty else { throw needs("\(entry.argument): \(entry.name) \(entry.argument.split(separator: "|").first ?? "")") }
            return .commands([try RemoteCommand(verb: entry.name, argument: rest)])
        }
    }

    /// `500ms`, `2s`, `1.5s`, `1m`: at most ten minutes.
    public static func duration(_ text: String) throws -> Duration {
        let lower = text.lowercased()
        let (number, scale): (Substring, Double)
        if lower.hasSuffix("ms") {
            (number, scale) = (lower.dropLast(2), 0.001)
        } else if lower.hasSuffix("s") {
            (number, scale) = (lower.dropLast(), 1)
        } else if lower.hasSuffix("m") {
            (number, scale) = (lower.dropLast(), 60)
        } else {
            throw PhotonError(.usage, "'\(Redaction.sanitize(text))' is not a time", hint: "write 500ms, 2s or 1m")
        }
        guard !number.isEmpty, number.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }), let value = Double(number), value.isFinite,
            value * scale <= longestWait.seconds
        else {
            throw PhotonError(.usage, "'\(Redaction.sanitize(text))' is not a time of at most 10 minutes", hint: "write 500ms, 2s or 1m")
        }
        return .milliseconds(Int((value * scale * 1000).rounded()))
    }

    /// The longest this macro can take: its waits, its wait-fors' limits, and `perStep`
    /// for every other step (what a client waiting for it must allow).
    public func longestRun(perStep: Duration) -> Duration {
        steps.reduce(Duration.zero) { total, entry in
            switch entry.step {
            case .wait(let d): return total + d
            case .waitFor(_, let d): return total + d
            case .commands(let commands): return total + perStep * commands.count
            case .power: return total + perStep + .seconds(60)
            }
        }
    }
}
