import Foundation
import Glibc
import PhotonCore

/// The controlling terminal in raw mode for `photon remote`, with its settings restored on
/// every way out: a normal return, an error, SIGTERM, SIGHUP, SIGINT, SIGQUIT and process
/// exit, and while the process is stopped (SIGTSTP: restored, then raw again on SIGCONT).
/// Also reads key bytes on a thread of its own and reports window resizes.
final class RawTerminal: Sendable {
    /// The settings to put back, shared with the signal and exit handlers.
    private static let saved = Locked<termios?>(nil)
    private static let screenActive = Locked(false)

    let input: Int32 = STDIN_FILENO
    let output: Int32 = STDOUT_FILENO
    private let signalSources = Locked<[any DispatchSourceSignal]>([])

    /// Whether both stdin and stdout are terminals (a keyboard remote needs both).
    static var isAvailable: Bool { isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1 }

    /// Enters raw mode and the alternate screen. `onSignal` runs (on a dispatch queue) for
    /// SIGTERM, SIGHUP and SIGINT after the terminal has been restored; `onResize` for
    /// SIGWINCH.
    init(onSignal: @escaping @Sendable (Int32) -> Void, onResize: @escaping @Sendable () -> Void) throws {
        var original = termios()
        guard tcgetattr(input, &original) == 0 else {
            throw PhotonError(.usage, "cannot read the terminal's settings", hint: "run `photon remote` in a terminal")
        }
        var raw = original
        // No echo, no line editing, no signals from keys (Ctrl-C arrives as a byte), no
        // CR→NL translation, no flow control; output processing kept for "\n".
        raw.c_lflag &= ~tcflag_t(ECHO | ICANON | ISIG | IEXTEN)
        raw.c_iflag &= ~tcflag_t(IXON | ICRNL | BRKINT | INPCK | ISTRIP)
        raw.c_cflag |= tcflag_t(CS8)
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        Self.saved.withLock { $0 = original }
        Self.rawSettings.withLock { $0 = raw }
        atexit { RawTerminal.restore() }
        guard tcsetattr(input, TCSAFLUSH, &raw) == 0 else {
            Self.saved.withLock { $0 = nil }
            throw PhotonError(.usage, "cannot put the terminal in raw mode", hint: "run `photon remote` in a terminal")
        }
        // The alternate screen, cursor hidden.
        Self.screenActive.withLock { $0 = true }
        Self.writeAll("\u{1B}[?1049h\u{1B}[?25l\u{1B}[H\u{1B}[2J")
        var sources: [any DispatchSourceSignal] = []
        for number in [SIGTERM, SIGHUP, SIGINT, SIGQUIT] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                RawTerminal.restore()
                onSignal(number)
            }
            source.resume()
            sources.append(source)
        }
        // Stopped from outside (`kill -TSTP`, a job-control shell): the terminal goes back
        // to the shell while stopped, and raw again with a fresh screen on continuing.
        signal(SIGTSTP, SIG_IGN)
        let stop = DispatchSource.makeSignalSource(signal: SIGTSTP, queue: .global())
        stop.setEventHandler {
            RawTerminal.restore()
            kill(getpid(), SIGSTOP)
            RawTerminal.reenter()
            onResize()
        }
        stop.resume()
        sources.append(stop)
        signal(SIGWINCH, SIG_IGN)
        let resize = DispatchSource.makeSignalSource(signal: SIGWINCH, queue: .global())
        resize.setEventHandler { onResize() }
        resize.resume()
        sources.append(resize)
        signalSources.withLock { $0 = sources }
    }

    /// Puts the terminal back as it was: settings, main screen, cursor. Safe to call more
    /// than once and from any thread.
    static func restore() {
        if screenActive.withLock({ active -> Bool in
            defer { active = false }
            return active
        }) {
            writeAll("\u{1B}[?25h\u{1B}[?1049l")
        }
        if var original = saved.withLock({ s -> termios? in
            defer { s = nil }
            return s
        }) {
            tcsetattr(STDIN_FILENO, TCSAFLUSH, &original)
        }
    }

    func restore() {
        for source in signalSources.withLock({ $0 }) { source.cancel() }
        Self.restore()
    }

    private static let rawSettings = Locked<termios?>(nil)

    /// Raw mode and the alternate screen again, after a stop.
    static func reenter() {
        guard var raw = rawSettings.withLock({ $0 }) else { return }
        var current = termios()
        guard tcgetattr(STDIN_FILENO, &current) == 0 else { return }
        saved.withLock { $0 = current }
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &raw)
        screenActive.withLock { $0 = true }
        writeAll("\u{1B}[?1049h\u{1B}[?25l\u{1B}[H\u{1B}[2J")
    }

    /// The window's size (columns, rows), or 80×24 when the terminal does not say.
    var size: (columns: Int, rows: Int) {
        var ws = winsize()
        guard ioctl(output, UInt(TIOCGWINSZ), &ws) == 0, ws.ws_col > 0, ws.ws_row > 0 else { return (80, 24) }
        return (Int(ws.ws_col), Int(ws.ws_row))
    }

    static func writeAll(_ text: String) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let n = bytes.withUnsafeBytes { Glibc.write(STDOUT_FILENO, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return }
            bytes = bytes.dropFirst(n)
        }
    }

    func write(_ text: String) { Self.writeAll(text) }

    /// Key bytes as they arrive, read on a thread of its own; the stream ends when stdin
    /// does. A byte group that arrives together (an escape sequence) is one element.
    func bytes() -> AsyncStream<[UInt8]> {
        let (stream, continuation) = AsyncStream.makeStream(of: [UInt8].self)
        let fd = input
        let thread = Thread {
            var buffer = [UInt8](repeating: 0, count: 256)
            while true {
                let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, 256) }
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { break }
                continuation.yield(Array(buffer[0..<n]))
            }
            continuation.finish()
        }
        thread.start()
        return stream
    }
}
