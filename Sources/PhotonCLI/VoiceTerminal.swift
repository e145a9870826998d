import Foundation
import Glibc
import PhotonCore
import PhotonVoice

/// Tells the person that the microphone is on, shows a live level meter and the time left
/// on a terminal, and that the microphone is off again.
final class RecordingMeter: Sendable {
    private let context: CLIContext
    private let live: Bool
    private let shown = Locked(0)

    init(context: CLIContext, device: String) {
        self.context = context
        live = isatty(STDERR_FILENO) == 1 && !context.json
        context.note("microphone on (\(device)): speak now\(context.terminal.isInteractive ? "; Enter stops" : "")")
    }

    func show(_ block: MicrophoneRecording.Block) {
        guard live else { return }
        // Ten updates a second are plenty for a meter.
        let turn = shown.withLock { count -> Int in
            defer { count += 1 }
            return count
        }
        guard turn % 5 == 0 else { return }
        let state = block.verdict == .waitingForSpeech ? "listening" : "hearing  "
        let seconds = String(format: "%4.1f", block.remaining.seconds)
        context.terminal.writeError("\r\(state) [\(SpeechEndpointer.meter(level: block.level))] \(seconds) s left ")
    }

    func end() {
        if live { context.terminal.writeError("\r\u{1B}[K") }
        context.note("microphone off")
    }
}

/// Calls `action` when Enter is pressed on the terminal, until `finish()`. Reads stdin
/// only while the recording runs (a later prompt gets its own answer).
final class EnterWatcher: Sendable {
    private let done = Locked(false)
    private let stopped = DispatchSemaphore(value: 0)
    private let running: Bool

    private init(running: Bool) { self.running = running }

    static func start(if interactive: Bool, _ action: @escaping @Sendable () -> Void) -> EnterWatcher {
        let watcher = EnterWatcher(running: interactive)
        guard interactive else { return watcher }
        let thread = Thread { [watcher] in
            defer { watcher.stopped.signal() }
            var descriptor = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
            while !watcher.done.withLock({ $0 }) {
                guard poll(&descriptor, 1, 100) > 0 else { continue }
                var byte: UInt8 = 0
                guard read(STDIN_FILENO, &byte, 1) == 1 else { return }
                if byte == UInt8(ascii: "\n") {
                    action()
                    return
                }
            }
        }
        thread.name = "photon-enter"
        thread.start()
        return watcher
    }

    /// Stops watching and waits until stdin is no longer read.
    func finish() {
        let wasDone = done.withLock { done -> Bool in
            defer { done = true }
            return done
        }
        guard running, !wasDone else { return }
        stopped.wait()
    }
}
