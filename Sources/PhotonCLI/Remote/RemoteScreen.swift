import PhotonCore

/// What the keyboard remote shows: the key map (with keys the TV lacks marked), the status
/// line (name, connection, power, app, volume) and a message line; in text mode the line
/// being typed, in app mode the pick list. Rendering is a pure function of this value.
struct RemoteScreen: Sendable {
    enum Mode: Sendable, Equatable {
        case keys
        case text(String)
        case apps([TVApp], selected: Int)
        case loadingApps
    }

    var name: String
    var route: String
    var connection = "connecting"
    var power: String?
    var app: String?
    var volume: String?
    var message: String?
    var mode = Mode.keys
    var showHelp = true
    /// Key-map rows the TV cannot do, by their keys column, with the reason.
    var unavailable: [String: String] = [:]
    var color: Bool

    mutating func apply(_ event: TVEvent) {
        switch event {
        case .power(let on): power = on ? "on" : "off"
        case .currentApp(let id): app = Redaction.sanitize(id, limit: 40)
        case .volume(let v): volume = "\(v.level)/\(v.maximum)\(v.muted ? " muted" : "")"
        default: break
        }
    }

    private func style(_ text: String, _ code: String) -> String { color ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text }

    /// The whole screen for a window of `columns` × `rows`.
    func render(columns: Int, rows: Int) -> String {
        let width = max(columns, 20)
        func fit(_ line: String) -> String { line.count <= width ? line : String(line.prefix(width - 1)) + "…" }
        var lines: [String] = []
        lines.append(style(fit("Photon remote — \(Redaction.sanitize(name, limit: 40))"), "1"))
        lines.append("")
        switch mode {
        case .keys where showHelp:
            for entry in RemoteKeyMap.entries {
                let keys = entry.keys.padding(toLength: 14, withPad: " ", startingAt: 0)
                if let reason = unavailable[entry.keys] {
                    lines.append(style(fit("  \(keys)\(entry.label) — unavailable: \(reason)"), "2"))
                } else {
                    lines.append(fit("  \(keys)\(entry.label)"))
                }
            }
        case .keys:
            lines.append(fit("  Press ? for the key map, q to quit."))
        case .text(let typed):
            lines.append(fit("  Type the text, Enter sends it, Esc cancels:"))
            lines.append("")
            lines.append(fit("  > \(Redaction.sanitize(typed, limit: 200))_"))
        case .loadingApps:
            lines.append(fit("  Asking the TV for its apps…"))
        case .apps(let apps, let selected):
            lines.append(fit("  Up/Down choose, Enter launches, Esc cancels:"))
            let room = max(rows - 6, 3)
            let start = min(max(0, selected - room / 2), max(0, apps.count - room))
            for (index, app) in apps.enumerated().dropFirst(start).prefix(room) {
                let marker = index == selected ? "›" : " "
                let line = fit("  \(marker) \(Redaction.sanitize(app.name, limit: 40))  (\(Redaction.sanitize(app.id, limit: 60)))")
                lines.append(index == selected ? style(line, "7") : line)
            }
        }
        // Keep the status and message lines at the bottom.
        let body = max(rows - 2, 1)
        if lines.count > body { lines = Array(lines.prefix(body)) }
        while lines.count < body { lines.append("") }
        let parts = [
            Redaction.sanitize(name, limit: 30), "\(connection) (\(route))", "power: \(power ?? "?")", "app: \(app ?? "?")",
            "volume: \(volume ?? "?")",
        ]
        lines.append(style(fit(parts.joined(separator: " │ ")), "7"))
        lines.append(fit(message ?? ""))
        return "\u{1B}[H" + lines.map { $0 + "\u{1B}[K" }.joined(separator: "\r\n")
    }
}
