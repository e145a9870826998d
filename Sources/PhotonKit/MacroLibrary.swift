import Foundation
import Glibc
import PhotonCore
import PhotonStore

/// Named macros (`photon macro save NAME -f FILE`, `photon run TV @NAME`), one file each
/// under the config folder's `macros/`, as the user wrote them. A macro is checked when it
/// is saved and again when it runs.
public struct MacroLibrary: Sendable {
    /// The folder the macros are kept in (`macros` in the config folder).
    public let directory: URL

    /// The library of the installation whose files are at `paths`.
    public init(paths: StorePaths) { directory = paths.configDirectory.appendingPathComponent("macros") }

    /// Letters, digits, `-` and `_`, starting with a letter or digit, at most 64.
    public static func check(name: String) throws {
        guard (1...64).contains(name.utf8.count), name.utf8.first.map({ $0.isASCIIAlphanumeric }) == true,
            name.utf8.allSatisfy({ $0.isASCIIAlphanumeric || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") })
        else {
            throw PhotonError(.usage, "a macro name is 1 to 64 letters, digits, - and _, not '\(Redaction.sanitize(name, limit: 64))'")
        }
    }

    private func file(_ name: String) throws -> URL {
        try Self.check(name: name)
        return directory.appendingPathComponent(name + ".macro")
    }

    /// Saves `text` (a macro file) as `name`, after checking every step.
    public func save(_ name: String, text: String) throws {
        _ = try Macro(file: text)
        let target = try file(name)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let temporary = directory.appendingPathComponent(".\(name).\(UUID().uuidString)")
        try Data(text.utf8).write(to: temporary)
        // rename(2): the old macro or the new one, never half of one.
        guard rename(temporary.path, target.path) == 0 else {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(at: temporary)
            throw PhotonError(.storePermissions, "cannot save the macro in \(directory.path): \(reason)")
        }
    }

    /// The macro file saved as `name`; `not_found` with the saved names.
    public func text(_ name: String) throws -> String {
        let url = try file(name)
        guard let data = FileManager.default.contents(atPath: url.path), data.count <= 256 * 1024 else {
            let names = (try? self.names()) ?? []
            throw PhotonError(
                .notFound, "no macro named '\(name)'",
                hint: names.isEmpty ? "save one: photon macro save NAME -f FILE" : "saved: " + names.joined(separator: ", "))
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// The macro saved as `name`, parsed; throws `notFound` or the parser's error.
    public func macro(_ name: String) throws -> Macro { try Macro(file: try text(name)) }

    /// The names of the saved macros, sorted.
    public func names() throws -> [String] {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return files.filter { $0.hasSuffix(".macro") && !$0.hasPrefix(".") }.map { String($0.dropLast(6)) }
            .filter { (try? Self.check(name: $0)) != nil }.sorted()
    }

    /// Deletes the macro saved as `name`; throws `notFound` when there is none.
    public func delete(_ name: String) throws {
        let url = try file(name)
        guard FileManager.default.fileExists(atPath: url.path) else { throw PhotonError(.notFound, "no macro named '\(name)'") }
        try FileManager.default.removeItem(at: url)
    }
}
