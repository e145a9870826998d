import Glibc
import PhotonCatalog
import PhotonJSON
import PhotonWire

/// The part of a command line the front end answers itself: one command (`key` with one
/// key, or a catalog command the catalog marks for the fast path) for one TV, sent through a running `photon serve`.
/// Anything else — help, other commands, several keys, `--verbose`, `--direct`, `--wake`,
/// an option it does not know, a value out of range — is left to `photon-cli`, which owns
/// the command-line contract; so is every case where the daemon is not usable.
struct FastCommand {
    var home: String?
    var json = false
    var timeout = 10.0
    var tv = ""
    var command: JSONValue = .null

    /// Reads `arguments` (without the program name), or nil to hand them on.
    init?(_ arguments: [String], environment: (String) -> String?) {
        if environment("PHOTON_DIRECT") == "1" { return nil }
        home = environment("PHOTON_HOME").flatMap { $0.isEmpty ? nil : $0 }
        var positional: [String] = []
        var long = false
        var raw = false
        var hold = 1000
        var index = 0
        var given: Set<String> = []
        // An option's value; nil (hand on) when it is missing or the option came twice,
        // which photon-cli reports as a usage error.
        func value() -> String? {
            guard given.insert(arguments[index]).inserted else { return nil }
            index += 1
            return index < arguments.count ? arguments[index] : nil
        }
        func milliseconds() -> Int? {
            guard let text = value(), let ms = Int(text), (0...60_000).contains(ms) else { return nil }
            return ms
        }
        while index < arguments.count {
            let argument = arguments[index]
            switch argument {
            case "--home":
                guard let dir = value(), !dir.isEmpty else { return nil }
                home = dir
            case "--json": json = true
            case "--timeout":
                guard let text = value(), let seconds = Double(text), seconds > 0, seconds <= 3600 else { return nil }
                timeout = seconds
            case "--long": long = true
            case "--raw": raw = true
            case "--hold":
                guard let ms = milliseconds() else { return nil }
                hold = ms
            case "--delay":
                // Between keys; with one key there is nothing to wait for.
                guard milliseconds() != nil else { return nil }
            default:
                if argument.hasPrefix("-") { return nil }
                positional.append(argument)
            }
            index += 1
        }
        guard positional.count == 3 else { return nil }
        tv = positional[1]
        let argument = positional[2]
        let isKey = positional[0] == "key"
        guard isKey || (!long && !raw && hold == 1000) else { return nil }
        if isKey {
            command = DaemonWire.Command.key(argument, raw: raw, holdMilliseconds: long ? max(hold, 1) : nil)
            // A key name or code out of the catalog's limits is photon-cli's to report.
            guard (try? CommandCatalog.check(wire: command)) != nil else { return nil }
        } else {
            // The catalog's grammar and limits, as every door reads them; anything it
            // refuses is left to photon-cli, which says why.
            guard let entry = CommandCatalog.entry(named: positional[0]), entry.fastPath, entry.name == positional[0],
                let wire = try? entry.wire(fromWords: argument)
            else { return nil }
            command = wire
        }
        self.isKey = isKey
        self.holdSeconds = long ? Double(hold) / 1000 : 0
    }

    var isKey = false
    var holdSeconds = 0.0

    /// The daemon's socket for this home, by the rule `StorePaths` follows too.
    func socketPath(environment: (String) -> String?) -> String? {
        DaemonWire.runtimeDirectory(home: home, environment: environment).map { $0 + "/" + DaemonWire.socketName }
    }
}

/// `PHOTON_TIMINGS=1` on the front end's own path (newcomer #30): the same
/// `{"timings":[…]}` line `photon-cli` prints, with `"route":"photon serve (front end)"`,
/// so a key sent through the daemon is measured where it is really spent, not in a
/// `photon-cli` that never ran. CLOCK_MONOTONIC seconds, as every other mark.
final class FrontEndTimings {
    private var marks: [(String, Double)] = []

    init(startedAt: Double) { marks = [("photon main", startedAt)] }

    func mark(_ phase: String) { marks.append((phase, DaemonConnection.monotonicTime())) }

    /// The line for stderr.
    var line: String {
        let items = marks.map { JSONValue.array([.string($0.0), .double($0.1)]) }
        return JSONValue.object([("route", .string("photon serve (front end)")), ("timings", .array(items))]).encoded
    }
}

/// What became of a fast command.
enum FastOutcome {
    /// Done: exit with this status.
    case finished(Int32)
    /// Not for the front end (no usable daemon, or nothing was sent and `photon-cli`
    /// should say what is wrong): run `photon-cli` with the same arguments.
    case handOn
}

enum FrontEnd {
    /// Sends `fast` through the daemon at `socket`, printing what `photon-cli` would.
    static func run(_ fast: FastCommand, socket: String, timings: FrontEndTimings? = nil) -> FastOutcome {
        // Any doubt about the socket hands on: photon-cli, which refuses loudly, takes over.
        guard case .connected(let connection) = DaemonConnection.open(socket) else { return .handOn }
        timings?.mark("connected to photon serve")
        defer { timings?.mark("answer read") }
        let lifetime = min(fast.timeout, 10)
        let now = FrontEndSupport.unixTime()
        // The request names the protocol it speaks, so it goes out at once, without
        // waiting for the greeting: a daemon of another protocol refuses it unsent.
        let request = DaemonWire.sendRequest(
            id: 1, tv: fast.tv, source: "cli", commandID: FrontEndSupport.randomUUID(), issuedAt: now, expiresAt: now + lifetime,
            command: fast.command)
        guard connection.write(request.encoded + "\n") else { return .handOn }
        timings?.mark("request written")
        // From here the request may be read at any moment, so it is never handed on to
        // photon-cli (which would send it again under a new id) unless the daemon says it
        // did not take it. A slow greeting is waited for, however slow.
        // The daemon answers by the command's expiry; the grace covers a busy daemon
        // (half the lifetime, 1 to 5 s).
        let answerWait = lifetime + fast.holdSeconds + min(5, max(1, lifetime / 2))
        guard let hello = connection.readJSON(timeout: answerWait) else { return .finished(noAnswer(fast)) }
        // A busy or refusing daemon answers with an error instead of the greeting and
        // reads nothing: photon-cli reports it.
        guard hello["event"]?.stringValue == "hello" else { return hello["error"] == nil ? .finished(noAnswer(fast)) : .handOn }
        timings?.mark("greeting read")
        guard let answer = connection.readJSON(timeout: answerWait) else {
            // The request went out and no answer came: whether it reached the TV is
            // unknown, so it must not be sent again.
            return .finished(noAnswer(fast))
        }
        if answer["ok"]?.boolValue == true {
            if fast.json, fast.isKey, let sent = answer["sent"]?.stringValue {
                print(JSONValue.object([("sent", .array([.string(sent)]))]).encoded)
            }
            return .finished(0)
        }
        let error = answer["error"]
        let code = error?["code"]?.stringValue ?? "internal"
        // Usage errors and a protocol mismatch mean nothing was sent: photon-cli reports
        // them in full (with the suggestions it makes), after checking the command line.
        if code == "usage" || code == "protocol_violation" { return .handOn }
        return .finished(
            report(
                code: code, message: error?["message"]?.stringValue ?? "photon serve reported an error",
                hint: error?["hint"]?.stringValue, exitCode: Int32(error?["exitCode"]?.intValue ?? 1), json: fast.json))
    }

    /// The request went out and no answer came: whether it reached the TV is unknown, so
    /// it must not be sent again.
    static func noAnswer(_ fast: FastCommand) -> Int32 {
        report(
            code: "connection_closed", message: "photon serve did not answer; the command may or may not have been sent",
            hint: "see the daemon's log (journalctl --user -u photon)", exitCode: 3, json: fast.json)
    }

    /// Prints an error the way `photon-cli` does, and returns its exit code.
    static func report(code: String, message: String, hint: String?, exitCode: Int32, json: Bool) -> Int32 {
        var text = "photon: error: \(message)\n"
        if let hint { text += "  hint: \(hint)\n" }
        writeStandardError(text)
        if json {
            print(
                JSONValue.object([
                    (
                        "error",
                        .object([
                            ("code", .string(code)), ("message", .string(message)), ("hint", .optional(hint)),
                            ("exitCode", .int(Int(exitCode))),
                        ])
                    )
                ]).encoded)
        }
        return exitCode
    }
}

/// Writes to file descriptor 2 (the C `stderr` stream is not concurrency-safe in Swift 6).
func writeStandardError(_ text: String) {
    let bytes = Array(text.utf8)
    _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
}
