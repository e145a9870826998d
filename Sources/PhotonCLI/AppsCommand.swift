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
        if let client = try await DaemonPath.client(context) {
            defer { Task { await client.close() } }
            let answer = try await client.request("apps", [("tv", .string(tv))], timeout: context.timeout + .seconds(5))
            return (answer["apps"]?.arrayValue ?? []).compactMap { item in
                guard let id = item["id"]?.stringValue else { return nil }
                return TVApp(id: id, name: item["name"]?.stringValue ?? id)
            }
        }
        let remote = try await context.photon.connect(tv, source: .cli)
        do {
            let apps = try await remote.installedApps()
            await remote.close()
            return apps
        } catch {
            await remote.close()
            throw error
        }
    }
}
