import Foundation
import PhotonCore
import PhotonKit
import PhotonService
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

    /// Opens sessions to stored TVs (the direct path).
    public var sessions: SessionFactory { SessionFactory(store: store, registry: registry, timeout: timeout, log: log) }

    /// The library façade this command uses on the direct path: one per command line, so
    /// every command of it goes through one in-process router.
    public var photon: Photon {
        get throws { try façade.get { try Photon(adapters: registry, paths: paths, timeout: timeout, log: log) } }
    }
    let façade = FaçadeBox()

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

/// Holds the façade a context makes on first use.
final class FaçadeBox: Sendable {
    private let made = Locked<Photon?>(nil)
    func get(_ make: () throws -> Photon) throws -> Photon {
        try made.withLock { current in
            if let current { return current }
            let new = try make()
            current = new
            return new
        }
    }
}
