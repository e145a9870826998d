import Foundation
import PhotonCore
import PhotonWire

/// Where Photon keeps its files. By default the XDG directories (metadata under
/// `$XDG_CONFIG_HOME/photon`, secrets under `$XDG_DATA_HOME/photon`, the daemon socket
/// under `$XDG_RUNTIME_DIR/photon`); `--home DIR` or `PHOTON_HOME` puts all three under
/// one folder (`DIR/config`, `DIR/data`, `DIR/run`).
public struct StorePaths: Sendable, Hashable {
    public var configDirectory: URL
    public var dataDirectory: URL
    public var runtimeDirectory: URL

    public init(configDirectory: URL, dataDirectory: URL, runtimeDirectory: URL) {
        self.configDirectory = configDirectory
        self.dataDirectory = dataDirectory
        self.runtimeDirectory = runtimeDirectory
    }

    /// Everything under one folder.
    public init(home: URL) {
        self.init(
            configDirectory: home.appendingPathComponent("config"), dataDirectory: home.appendingPathComponent("data"),
            runtimeDirectory: home.appendingPathComponent("run"))
    }

    /// Resolves the locations: an explicit home wins, then `PHOTON_HOME`, then XDG.
    public static func resolve(home: String?, environment: EnvironmentVariables = .process)
        throws -> StorePaths
    {
        if let home = home ?? environment["PHOTON_HOME"], !home.isEmpty {
            return StorePaths(home: URL(fileURLWithPath: home, isDirectory: true))
        }
        guard let userHome = environment["HOME"], !userHome.isEmpty else {
            throw PhotonError(
                .storeIO, "cannot find where to keep Photon's files: HOME is not set",
                hint: "set HOME, or pass --home DIR (or PHOTON_HOME)")
        }
        func xdg(_ name: String, _ fallback: String) -> URL {
            if let value = environment[name], value.hasPrefix("/") { return URL(fileURLWithPath: value) }
            return URL(fileURLWithPath: userHome).appendingPathComponent(fallback)
        }
        // The same rule the `photon` front end follows to find the daemon.
        let runtime = URL(fileURLWithPath: DaemonWire.runtimeDirectory(home: nil, environment: { environment[$0] })!)
        // The same rule shell completion follows to list nicknames.
        let config = URL(fileURLWithPath: CompletionNames.configDirectory(home: nil, environment: { environment[$0] })!)
        return StorePaths(
            configDirectory: config,
            dataDirectory: xdg("XDG_DATA_HOME", ".local/share").appendingPathComponent("photon"),
            runtimeDirectory: runtime)
    }

    public var devicesFile: URL { configDirectory.appendingPathComponent("devices.json") }
    public var secretsFile: URL { dataDirectory.appendingPathComponent("secrets.json") }
    public var lockFile: URL { dataDirectory.appendingPathComponent(".lock") }
    /// The TLS sessions of paired TVs (`TLSSessionFiles`): secrets, beside the secret store.
    public var tlsSessionsDirectory: URL { dataDirectory.appendingPathComponent("tls-sessions") }
    /// The daemon's socket (`photon serve`).
    public var socketFile: URL { runtimeDirectory.appendingPathComponent(DaemonWire.socketName) }
    /// Held by the running daemon so that two cannot serve one home.
    public var serviceLockFile: URL { runtimeDirectory.appendingPathComponent("serve.lock") }
}
