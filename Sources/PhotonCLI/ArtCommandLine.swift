import Foundation
import PhotonCore
import PhotonKit

/// `photon art TV [on|off|show ID|delete ID|brightness N|matte ID MATTE|slideshow M|off]`
/// and `photon art TV upload FILE [--matte M]`: the catalog's `art` entry, plus the list
/// (without an argument) and uploads, which read a file here and go over a direct session
/// (an image does not fit a request line).
enum ArtCommandLine {
    static func spec(_ registry: AdapterRegistry) -> CommandSpec {
        let entry = CommandCatalog.entry(named: "art")!
        return CommandSpec(
            [entry.name], summary: entry.summary, arguments: "TV [list|current|\(entry.argument)|upload FILE]", minimumArguments: 1,
            maximumArguments: 4,
            options: [
                OptionSpec("matte", value: "MATTE", help: "with upload: the matte to show the image in (default none)"),
                OptionSpec("category", value: "C", help: "with list: only this category (MY-C0002 is My Photos, MY-C0004 favourites)"),
            ],
            details: entry.details + " " + ControlCommands.brandsLine(for: entry.capabilities, registry),
            examples: entry.examples + ["photon art living-room"], run: run)
    }

    static func run(_ parsed: ParsedCommand, _ context: CLIContext) async throws -> Int32 {
        let tv = parsed.arguments[0]
        let verb = parsed.arguments.count > 1 ? parsed.arguments[1].lowercased() : "list"
        if verb == "list" || verb == "current" {
            guard parsed.arguments.count <= 2 else { throw PhotonError(.usage, "art \(verb) takes no value") }
            return try await list(tv, current: verb == "current", category: parsed.value("category"), context)
        }
        if parsed.arguments[1].lowercased() == "upload" {
            guard parsed.arguments.count == 3 else { throw PhotonError(.usage, "art upload takes one FILE (a JPEG or PNG)") }
            return try await upload(parsed.arguments[2], matte: parsed.value("matte") ?? "none", to: tv, context)
        }
        if parsed.value("matte") != nil { throw PhotonError(.usage, "--matte goes with upload; `art TV matte ID MATTE` changes one") }
        let command = try RemoteCommand(verb: "art", argument: parsed.arguments.dropFirst().joined(separator: " "))
        try await ControlCommands.send([command], delay: 0, to: tv, context)
        if context.json { context.emit(.object([("art", .string(parsed.arguments.dropFirst().joined(separator: " ")))]), text: nil) }
        return 0
    }

    /// The artworks (of one category), or only the one shown.
    static func list(_ tv: String, current: Bool, category: String?, _ context: CLIContext) async throws -> Int32 {
        var items = try await context.control().items(.artworks, of: tv)
        if let category { items = items.filter { $0.kind?.lowercased() == category.lowercased() } }
        if current {
            guard let shown = items.first(where: { $0.active == true }) else {
                throw PhotonError(.notFound, "the Frame names no artwork as shown", hint: "photon art \(tv) show ID picks one")
            }
            context.emit(.object([("content_id", .string(shown.id)), ("category", .optional(shown.kind))]), text: shown.id)
            return 0
        }
        if context.json {
            for item in items { context.emit(ServiceProtocol.json(item), text: nil) }
        } else {
            let rows =
                [["ID", "CATEGORY", "SHOWN"]]
                + items.map { [Redaction.sanitize($0.id, limit: 64), Redaction.sanitize($0.kind ?? "", limit: 40), $0.active == true ? "yes" : ""] }
            context.terminal.write(Table.render(rows))
        }
        return 0
    }

    /// Reads the file (bounded, before reading it whole), checks it is an image, and sends
    /// it over a direct session with a progress line on a terminal.
    static func upload(_ path: String, matte: String, to tv: String, _ context: CLIContext) async throws -> Int32 {
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? nil
        guard let size else { throw PhotonError(.notFound, "cannot read '\(Redaction.sanitize(path))'", hint: "give the path of a JPEG or PNG") }
        guard size <= ArtUpload.maximumBytes else {
            throw PhotonError(
                .usage,
                "'\(Redaction.sanitize(path))' is \(size / 1024 / 1024) MiB; an artwork is at most \(ArtUpload.maximumBytes / 1024 / 1024) MiB")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw PhotonError(.notFound, "cannot read '\(Redaction.sanitize(path))'", hint: "give the path of a JPEG or PNG")
        }
        let showProgress = context.terminal.isInteractive && !context.json
        let terminal = context.terminal
        let total = data.count
        let receipt = ArtUploadReceipt { sent in
            guard showProgress else { return }
            let width = 30
            let done = total == 0 ? width : sent * width / total
            terminal.writeError(
                "\rUploading [\(String(repeating: "#", count: done))\(String(repeating: " ", count: width - done))] \(sent * 100 / max(total, 1))%")
        }
        let upload = try ArtUpload(bytes: [UInt8](data), matte: matte, receipt: receipt)
        let control = try context.directControl()
        _ = try await control.send([.artUpload(upload)], to: tv, delay: .zero, wake: nil, lifetime: .seconds(120))
        if showProgress { terminal.writeError("\n") }
        guard let id = receipt.contentID else { throw PhotonError(.protocolViolation, "the TV took the image but named no content id") }
        context.emit(.object([("content_id", .string(id))]), text: "Uploaded as \(id). Show it: photon art \(tv) show \(id)")
        return 0
    }
}
