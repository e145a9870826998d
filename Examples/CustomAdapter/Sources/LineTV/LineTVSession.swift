import PhotonCore

/// LineTV's wire format: lines of UTF-8 text, each at most `maximumLine` bytes.
public enum LineTVWire {
    public static let maximumLine = 1024

    /// Takes one complete line (without its newline) from `buffer`, or nil if none is
    /// complete yet. A line over the limit or not UTF-8 is an error.
    public static func takeLine(_ buffer: inout [UInt8]) throws -> String? {
        guard let newline = buffer.firstIndex(of: 10) else {
            guard buffer.count <= maximumLine else {
                throw PhotonError(.messageTooLarge, "a LineTV line is longer than \(maximumLine) bytes")
            }
            return nil
        }
        defer { buffer.removeSubrange(...newline) }
        guard newline <= maximumLine, let line = String(validating: buffer[..<newline], as: UTF8.self) else {
            throw PhotonError(.protocolViolation, "a LineTV line that is too long or not UTF-8")
        }
        return line
    }

    /// Whether `code` may go on the wire: capital letters, digits, `+` and `-`.
    public static func isValidCode(_ code: String) -> Bool {
        !code.isEmpty && code.utf8.count <= 32 && code.utf8.allSatisfy { (65...90).contains($0) || (48...57).contains($0) || $0 == 43 || $0 == 45 }
    }
}

/// Lines over a byte stream, read by one task at a time.
final class LineChannel: Sendable {
    let stream: any ByteStream
    private let buffer = Locked<[UInt8]>([])
    private let gate = AsyncGate()

    init(_ stream: any ByteStream) { self.stream = stream }

    /// The next line, or nil when the TV closed the connection.
    func readLine(timeout: Duration?) async throws -> String? {
        try await gate.withGate {
            while true {
                if let line = try buffer.withLock({ try LineTVWire.takeLine(&$0) }) { return line }
                let chunk = try await stream.read(maxLength: 4096, timeout: timeout)
                if chunk.isEmpty { return nil }
                buffer.withLock { $0 += chunk }
            }
        }
    }

    func write(_ line: String, timeout: Duration) async throws {
        try CommandDeadline.checkBeforeSending()
        try await stream.write(Array((line + "\n").utf8), timeout: timeout)
    }

    /// The serial from the TV's `HELLO LineTV <serial>`, or nil when it says something else.
    func hello(timeout: Duration) async throws -> String? {
        guard let line = try await readLine(timeout: timeout) else { return nil }
        let parts = line.split(separator: " ")
        guard parts.count == 3, parts[0] == "HELLO", parts[1] == "LineTV", LineTVWire.isValidCode(String(parts[2])) else { return nil }
        return String(parts[2])
    }

    func close() async { await stream.close() }
}

/// A live LineTV connection: commands in order, each answered `OK` or `ERR`; a reader
/// that ends the session on a malformed line or a closed connection.
final class LineTVSession: KeySending, TextTyping, AppLaunching {
    let lines: LineChannel
    let timeout: Duration
    let capabilities = Capabilities(.keys, .text, .appLaunch)
    let events: AsyncStream<TVEvent>
    private let continuation: AsyncStream<TVEvent>.Continuation
    private let sendGate = AsyncGate()
    private let pending = Locked<[Promise<String>]>([])
    private let ended = Locked<PhotonError?>(nil)
    private let reader = Locked<Task<Void, Never>?>(nil)

    init(lines: LineChannel, timeout: Duration) {
        self.lines = lines
        self.timeout = timeout
        (events, continuation) = AsyncStream.makeStream(of: TVEvent.self)
        let task = Task { [weak self] () -> Void in await self?.readLoop() }
        reader.withLock { $0 = task }
    }

    private func readLoop() async {
        var reason: PhotonError?
        do {
            while let line = try await lines.readLine(timeout: nil) {
                guard line == "OK" || line.hasPrefix("ERR ") else {
                    throw PhotonError(.protocolViolation, "the LineTV sent an unknown line")
                }
                let waiter = pending.withLock { $0.isEmpty ? nil : $0.removeFirst() }
                waiter?.succeed(line)
            }
            reason = PhotonError(.connectionClosed, "the LineTV closed the connection")
        } catch {
            reason = PhotonError.wrap(error)
        }
        finish(reason)
    }

    private func finish(_ reason: PhotonError?) {
        let first = ended.withLock { current -> Bool in
            guard current == nil else { return false }
            current = reason ?? PhotonError(.connectionClosed, "the session is closed")
            return true
        }
        guard first else { return }
        for waiter in pending.withLock({ p -> [Promise<String>] in
            defer { p = [] }
            return p
        }) {
            waiter.fail(reason ?? PhotonError(.connectionClosed, "the session is closed"))
        }
        continuation.yield(.disconnected(reason: reason))
        continuation.finish()
    }

    func sendKey(_ input: KeyInput, _ action: KeyAction) async throws {
        guard action == .press else { throw PhotonError.unsupported("LineTV takes single key presses, not \(action.rawValue)") }
        let code: String
        switch input {
        case .key(let key):
            guard let known = LineTVAdapter.codes[key] else { throw PhotonError.unsupported("LineTV has no '\(key.rawValue)' key") }
            code = known
        case .raw(let raw):
            guard LineTVWire.isValidCode(raw) else {
                throw PhotonError(.usage, "'\(Redaction.sanitize(raw))' is not a LineTV key code", hint: "codes are like HOME, OK, VOL+")
            }
            code = raw
        }
        try await exchange("KEY \(code)")
    }

    func type(_ text: String) async throws {
        guard !text.isEmpty, !text.contains("\n"), text.utf8.count < 512 else { throw PhotonError(.usage, "LineTV takes one line of text") }
        try await exchange("TEXT \(text)")
    }

    func launch(_ app: String) async throws {
        guard LineTVWire.isValidCode(app.uppercased()) else { throw PhotonError(.usage, "LineTV app names are letters and digits") }
        try await exchange("LAUNCH \(app)")
    }

    /// One line sent, its `OK` or `ERR` awaited.
    private func exchange(_ line: String) async throws {
        if let reason = ended.withLock({ $0 }) { throw reason }
        try await sendGate.withGate {
            let answer = Promise<String>()
            pending.withLock { $0.append(answer) }
            try await lines.write(line, timeout: timeout)
            let reply = try await withTimeout(timeout, "waiting for the LineTV's answer") { try await answer.value() }
            guard reply == "OK" else {
                throw PhotonError(.protocolViolation, "the LineTV refused it: \(Redaction.sanitize(String(reply.dropFirst(4))))")
            }
        }
    }

    func close() async {
        finish(nil)
        reader.withLock { $0 }?.cancel()
        await lines.close()
    }
}
