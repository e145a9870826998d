import PhotonCore
import PhotonKit

/// `photon apps TV`: the apps a TV has, with the ids `photon launch` takes.
enum AppsCommand {
    static let spec = CommandSpec(
        ["apps"], summary: "list a TV's installed apps (ids for `photon launch`)", arguments: "TV", minimumArguments: 1,
        maximumArguments: 1,
        details: "Where the TV's brand can list them (see the app-list capability in `photon list --json`); others exit 6.",
        examples: ["photon apps living-room", "photon apps den --json"], run: run)

    static func run(_ parsed: ParsedCommand, _ context: CLIContext) async throws -> Int32 {
        let apps = try await installedApps(parsed.arguments[0], context)
        if context.json {
            for app in apps { context.emit(.object([("id", .string(app.id)), ("name", .string(app.name))]), text: nil) }
        } else {
            let rows = [["ID", "NAME"]] + apps.map { [Redaction.sanitize($0.id, limit: 64), Redaction.sanitize($0.name, limit: 64)] }
            context.terminal.write(Table.render(rows))
        }
        return 0
    }

    /// The TV's apps through `photon serve`'s warm session when it runs, else directly.
    static func installedApps(_ tv: String, _ context: CLIContext) async throws -> [TVApp] {
        try await context.control().installedApps(tv)
    }
}
