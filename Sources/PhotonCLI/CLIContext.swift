import Foundation
import PhotonCore
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
