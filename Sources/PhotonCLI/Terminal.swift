import Foundation
import Glibc
import PhotonCore

/// Where the CLI reads and writes. The real one is the process's standard streams; tests
/// use `CapturingTerminal` to run commands in-process.
public protocol Terminal: Sendable {
    func write(_ text: String)
    func writeError(_ text: String)
    /// Whether a person can answer prompts (stdin is a TTY).
    var isInteractive: Bool { get }
    /// Whether stdout may use colour (a TTY, and NO_COLOR unset).
    var usesColor: Bool { get }
    /// One line from stdin (without the newline), or nil at end of input.
    func readLine() -> String?
    /// One line that must not appear on the screen (a password): read with the
    /// terminal's echo off when stdin is a terminal.
    func readSecretLine() -> String?
}

extension Terminal {
    public func readSecretLine() -> String? { readLine() }
}

/// The process's own stdin, stdout and stderr.
public struct StandardTerminal: Terminal {
    public init() {}

    public func write(_ text: String) {
        // A reader that went away (`photon status TV | head -1`) ends the command the way a
        // closed pipe ends any Unix tool: quietly, by SIGPIPE (commands that talk to TVs
        // ignore the signal, so the write sees EPIPE instead, which Foundation's
        // FileHandle turns into a crash).
        if !Self.writeAll(text, to: STDOUT_FILENO) {
            signal(SIGPIPE, SIG_DFL)
            raise(SIGPIPE)
            _exit(141)
        }
    }

    public func writeError(_ text: String) { _ = Self.writeAll(text, to: STDERR_FILENO) }

    /// Writes all of `text` to `descriptor` with write(2), again after a signal; false
    /// when the reader has gone (EPIPE). Other errors drop the rest of the text.
    static func writeAll(_ text: String, to descriptor: Int32) -> Bool {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                return errno != EPIPE
            }
            bytes = bytes.dropFirst(written)
        }
        return true
    }
    public var isInteractive: Bool { isatty(STDIN_FILENO) == 1 }
    public var usesColor: Bool {
        isatty(STDERR_FILENO) == 1 && EnvironmentVariables.process["NO_COLOR"] == nil
            && EnvironmentVariables.process["TERM"] != "dumb"
    }
    public func readLine() -> String? { Swift.readLine(strippingNewline: true) }

    public func readSecretLine() -> String? {
        var saved = termios()
        guard isatty(STDIN_FILENO) == 1, tcgetattr(STDIN_FILENO, &saved) == 0 else { return readLine() }
        var quiet = saved
        quiet.c_lflag &= ~tcflag_t(ECHO)
        quiet.c_lflag |= tcflag_t(ECHONL)
        _ = tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet)
        // Echo comes back whatever happens, Ctrl-C included.
        let restore = signal(SIGINT) { _ in
            var current = termios()
            if tcgetattr(STDIN_FILENO, &current) == 0 {
                current.c_lflag |= tcflag_t(ECHO)
                _ = tcsetattr(STDIN_FILENO, TCSANOW, &current)
            }
            _exit(130)
        }
        defer {
            _ = tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved)
            signal(SIGINT, restore)
        }
        return readLine()
    }
}

/// A terminal that records output, for tests.
public final class CapturingTerminal: Terminal {
    private let state: Locked<(out: String, err: String, input: [String])>
    public let isInteractive: Bool

    public init(input: [String] = [], interactive: Bool = false) {
        state = Locked((out: "", err: "", input: input))
        isInteractive = interactive
    }

    public var output: String { state.withLock { $0.out } }
    public var errors: String { state.withLock { $0.err } }
    public func write(_ text: String) { state.withLock { $0.out += text } }
    public func writeError(_ text: String) { state.withLock { $0.err += text } }
    public var usesColor: Bool { false }
    public func readLine() -> String? {
        state.withLock { s in s.input.isEmpty ? nil : s.input.removeFirst() }
    }
}
