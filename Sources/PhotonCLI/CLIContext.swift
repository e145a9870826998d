import Foundation
import PhotonCore
import PhotonKit
import PhotonNet
import PhotonStore

/// What every command gets: the terminal, the store, the output mode, the log, the
/// network timeout and the registered adapters.
public struct CLIContext: Sendable {
    public var terminal: any Terminal
    public var paths: StorePaths
    public var store: Store
    public var json: Bool
    public var log: PhotonLog
    public var timeout: Duration
    public var registry: AdapterRegistry
    /// `--direct`: connect to the TV even when `photon serve` runs for this home.
    public var direct = false
    /// The `photon` front end already found no daemon for this home (it sets
    /// `PHOTON_NO_DAEMON=1` before handing the command line on), so nobody asks twice.
    public var daemonAbsent = false

    /// Opens sessions to stored TVs (the direct path).
    public var sessions: SessionFactory { SessionFactory(store: store, registry: registry, timeout: timeout, log: log) }

    /// The library façade of this process: one per command line, so every command of it
    /// goes through one in-process router.
    public var photon: Photon {
        get throws { try facadeBox.get { try Photon(adapters: registry, paths: paths, timeout: timeout, log: log, cachesStore: true) } }
    }
    let facadeBox = Box<Photon>()
    let chosen = Box<any TVControl>()

    /// How this command line reaches TVs, decided once: a running `photon serve` (its warm
    /// sessions, one request per command), or this process's own façade when none runs,
    /// with `--direct`, or when the front end already found none (`PHOTON_NO_DAEMON=1`).
    /// A control that sends as `source` (`photon follow`): through a running daemon, else
    /// directly; not shared with `control()`.
    public func control(source: CommandSource) async throws -> any TVControl {
        if !direct, !daemonAbsent, let daemon = try await DaemonControl.ifRunning(store: store, timeout: timeout, source: source, log: log) {
            return daemon
        }
        return DirectControl(photon: try photon, source: source)
    }

    public func control() async throws -> any TVControl {
        if let made = chosen.current { return made }
        if !direct, !daemonAbsent, let daemon = try await DaemonControl.ifRunning(store: store, timeout: timeout, log: log) {
            // The daemon answers: this process builds no façade of its own.
            return chosen.get { daemon }
        }
        log.debug(direct ? "--direct: connecting to the TV directly" : "photon serve is not running: connecting directly")
        // The event loop and OpenSSL's first context, on the other core while the store is read.
        NetworkWarmUp.start()
        let control = DirectControl(photon: try photon)
        return chosen.get { control }
    }

    /// Ends what `control()` opened (the daemon client).
    public func finish() async {
        await chosen.current?.close()
    }

    /// This process's own façade as a control, whatever runs (voice, which the daemon's
    /// request lines are too small for).
    public func directControl() throws -> DirectControl { DirectControl(photon: try photon) }

    /// Prints a result: the JSON object with `--json`, otherwise the text (if any).
    public func emit(_ json: JSONValue, text: String?) {
        if self.json {
            terminal.write(json.encoded + "\n")
        } else if let text {
            terminal.write(text.hasSuffix("\n") ? text : text + "\n")
        }
    }

    /// A note for people on stderr (never in JSON output).
    public func note(_ text: String) {
        terminal.writeError(text + "\n")
    }
}

/// Holds what a context makes on first use.
final class Box<Value: Sendable>: Sendable {
    private let made = Locked<Value?>(nil)
    var current: Value? { made.withLock { $0 } }
    func get(_ make: () throws -> Value) rethrows -> Value {
        try made.withLock { current in
            if let current { return current }
            let new = try make()
            current = new
            return new
        }
    }
}
