import Foundation
import PhotonCore
import PhotonWire

/// Where Photon keeps its files. By default the XDG directories (metadata under
/// `$XDG_CONFIG_HOME/photon`, secrets under `$XDG_DATA_HOME/photon`, the daemon socket
/// under `$XDG_RUNTIME_DIR/photon`); `--home DIR` or `PHOTON_HOME` puts all three under
/// one folder (`DIR/config`, `DIR/data`, `DIR/run`).
public struct StorePaths: Sendable, Hashable {
    /// The three directories as absolute file-system paths, what the store itself reads
    /// and writes through: building and reading Foundation URLs was a quarter of a cold
    /// `photon key`'s work before its first byte to the TV (its first use in a process
    /// costs ~0.15 ms, and each `path` percent-decodes again). The URL properties are
    /// built from these when asked.
    public var configPath: String
    public var dataPath: String
    public var runtimePath: String

    public var configDirectory: URL {
        get { URL(filePath: configPath, directoryHint: .isDirectory) }
        set { configPath = Self.absolute(newValue.path) }
    }
    public var dataDirectory: URL {
        get { URL(filePath: dataPath, directoryHint: .isDirectory) }
        set { dataPath = Self.absolute(newValue.path) }
    }
    public var runtimeDirectory: URL {
        get { URL(filePath: runtimePath, directoryHint: .isDirectory) }
        set { runtimePath = Self.absolute(newValue.path) }
    }

    public init(configDirectory: URL, dataDirectory: URL, runtimeDirectory: URL) {
        self.init(configPath: configDirectory.path, dataPath: dataDirectory.path, runtimePath: runtimeDirectory.path)
    }

    /// The directories by path; a relative one is taken from the current directory.
    public init(configPath: String, dataPath: String, runtimePath: String) {
        self.configPath = Self.absolute(configPath)
        self.dataPath = Self.absolute(dataPath)
        self.runtimePath = Self.absolute(runtimePath)
    }

    /// Everything under one folder.
    public init(home: URL) { self.init(homePath: home.path) }

    /// Everything under one folder, by path.
    public init(homePath: String) {
        let home = Self.absolute(homePath)
        self.init(configPath: Self.join(home, "config"), dataPath: Self.join(home, "data"), runtimePath: Self.join(home, "run"))
    }

    /// `path` made absolute (from the current directory) and without a trailing slash.
    static func absolute(_ path: String) -> String {
        var result = path
        if !result.hasPrefix("/") {
            let current = FileManager.default.currentDirectoryPath
            result = result.isEmpty ? current : join(current, result)
        }
        while result.count > 1, result.hasSuffix("/") { result.removeLast() }
        return result
    }

    /// `name` under `directory`.
    static func join(_ directory: String, _ name: String) -> String {
        directory.hasSuffix("/") ? directory + name : directory + "/" + name
    }

    /// Resolves the locations: an explicit home wins, then `PHOTON_HOME`, then XDG.
    public static func resolve(home: String?, environment: EnvironmentVariables = .process)
        throws -> StorePaths
    {
        if let home = home ?? environment["PHOTON_HOME"], !home.isEmpty {
            return StorePaths(homePath: home)
        }
        guard let userHome = environment["HOME"], !userHome.isEmpty else {
            throw PhotonError(
                .storeIO, "cannot find where to keep Photon's files: HOME is not set",
                hint: "set HOME, or pass --home DIR (or PHOTON_HOME)")
        }
        func xdg(_ name: String, _ fallback: String) -> String {
            if let value = environment[name], value.hasPrefix("/") { return value }
            return join(userHome, fallback)
        }
        // The same rule the `photon` front end follows to find the daemon.
        let runtime = DaemonWire.runtimeDirectory(home: nil, environment: { environment[$0] })!
        // The same rule shell completion follows to list nicknames.
        let config = CompletionNames.configDirectory(home: nil, environment: { environment[$0] })!
        return StorePaths(configPath: config, dataPath: join(xdg("XDG_DATA_HOME", ".local/share"), "photon"), runtimePath: runtime)
    }

    public var devicesPath: String { Self.join(configPath, "devices.json") }
    public var secretsPath: String { Self.join(dataPath, "secrets.json") }
    public var lockPath: String { Self.join(dataPath, ".lock") }
    public var tlsSessionsPath: String { Self.join(dataPath, "tls-sessions") }
    public var socketPath: String { Self.join(runtimePath, DaemonWire.socketName) }
    public var serviceLockPath: String { Self.join(runtimePath, "serve.lock") }

    public var devicesFile: URL { URL(filePath: devicesPath, directoryHint: .notDirectory) }
    public var secretsFile: URL { URL(filePath: secretsPath, directoryHint: .notDirectory) }
    public var lockFile: URL { URL(filePath: lockPath, directoryHint: .notDirectory) }
    /// The TLS sessions of paired TVs (`TLSSessionFiles`): secrets, beside the secret store.
    public var tlsSessionsDirectory: URL { URL(filePath: tlsSessionsPath, directoryHint: .isDirectory) }
    /// The daemon's socket (`photon serve`).
    public var socketFile: URL { URL(filePath: socketPath, directoryHint: .notDirectory) }
    /// Held by the running daemon so that two cannot serve one home.
    public var serviceLockFile: URL { URL(filePath: serviceLockPath, directoryHint: .notDirectory) }
}
