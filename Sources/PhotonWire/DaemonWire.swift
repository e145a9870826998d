import PhotonJSON

/// What the `photon` front end and the rest of Photon must agree on to talk to a running
/// `photon serve`: where its socket is, and the form of its requests. Standard library
/// only (with PhotonJSON), so the front end shares it without loading Foundation.
public enum DaemonWire {
    /// The daemon protocol's version; bumped when a change would break existing clients.
    public static let version = 1

    /// The daemon's runtime directory (its socket and lock): `home/run` with an explicit
    /// home (`--home`, `PHOTON_HOME`), else `$XDG_RUNTIME_DIR/photon`, else
    /// `$XDG_STATE_HOME/photon/run` (default `~/.local/state/photon/run`). Nil without a
    /// home directory to fall back on.
    public static func runtimeDirectory(home: String?, environment: (String) -> String?) -> String? {
        if let home = home ?? environment("PHOTON_HOME").flatMap({ $0.isEmpty ? nil : $0 }), !home.isEmpty {
            return home + "/run"
        }
        if let runtime = environment("XDG_RUNTIME_DIR"), runtime.hasPrefix("/") { return runtime + "/photon" }
        guard let userHome = environment("HOME"), !userHome.isEmpty else { return nil }
        let state = environment("XDG_STATE_HOME").flatMap { $0.hasPrefix("/") ? $0 : nil } ?? userHome + "/.local/state"
        return state + "/photon/run"
    }

    /// The socket's file name in the runtime directory.
    public static let socketName = "photon.sock"

    /// A `send` request: one command in an envelope (its id, issue and expiry times as Unix
    /// seconds), either in a session (`session`, `seq`) or as a one-shot for `tv`.
    public static func sendRequest(
        id: Int, tv: String? = nil, session: String? = nil, sequence: Int? = nil, source: String? = nil, commandID: String,
        issuedAt: Double, expiresAt: Double, command: JSONValue
    ) -> JSONValue {
        .object(
            [("id", .int(id)), ("protocol", .int(version)), ("op", "send")]
                + sendFields(
                    tv: tv, session: session, sequence: sequence, source: source, commandID: commandID, issuedAt: issuedAt,
                    expiresAt: expiresAt, command: command))
    }

    /// The fields of a `send` request after its `id`, `protocol` and `op` (for clients
    /// that add those themselves).
    public static func sendFields(
        tv: String? = nil, session: String? = nil, sequence: Int? = nil, source: String? = nil, commandID: String,
        issuedAt: Double, expiresAt: Double, command: JSONValue
    ) -> [(String, JSONValue)] {
        var fields: [(String, JSONValue)] = []
        if let tv { fields.append(("tv", .string(tv))) }
        if let session { fields.append(("session", .string(session))) }
        if let sequence { fields.append(("seq", .int(sequence))) }
        if let source { fields.append(("source", .string(source))) }
        return fields + [
            ("commandId", .string(commandID)), ("issuedAt", .double(issuedAt)), ("expiresAt", .double(expiresAt)), ("command", command),
        ]
    }
}

extension DaemonWire {
    /// The command objects of a `send` request (`{"key":"home"}`, `{"volume":12}`…),
    /// built here for every client — the front end from its arguments, photon-cli from a
    /// `RemoteCommand` — so both speak exactly one form (docs/daemon.md).
    public enum Command {
        /// A key by name (or a brand's raw code), pressed unless `action` says otherwise
        /// (`hold-start`, `hold-end`), or held for `holdMilliseconds`.
        public static func key(_ name: String, raw: Bool = false, action: String? = nil, holdMilliseconds: Int? = nil) -> JSONValue {
            var fields: [(String, JSONValue)] = [(raw ? "raw" : "key", .string(name))]
            if let action { fields.append(("action", .string(action))) }
            if let holdMilliseconds { fields.append(("hold", .int(holdMilliseconds))) }
            return .object(fields)
        }

        public static func text(_ text: String) -> JSONValue { .object([("text", .string(text))]) }
        public static func launch(_ app: String) -> JSONValue { .object([("launch", .string(app))]) }
        public static func search(_ keyword: String) -> JSONValue { .object([("search", .string(keyword))]) }
        /// An input by name (`hdmi2`, `tv`, or the TV's label for one).
        public static func input(_ name: String) -> JSONValue { .object([("input", .string(name))]) }
        /// A channel number (`7`, `7.1`).
        public static func channel(_ number: String) -> JSONValue { .object([("channel", .string(number))]) }
        /// A message shown on the TV's screen.
        public static func notify(_ message: String) -> JSONValue { .object([("notify", .string(message))]) }
        /// The picture off or on.
        public static func screen(on: Bool) -> JSONValue { .object([("screen", .string(on ? "on" : "off"))]) }
        /// A volume step: `up`, `down` or `mute`.
        public static func volume(_ change: String) -> JSONValue { .object([("volume", .string(change))]) }
        /// An absolute volume level (0–100).
        public static func volume(level: Int) -> JSONValue { .object([("volume", .int(level))]) }
    }
}
