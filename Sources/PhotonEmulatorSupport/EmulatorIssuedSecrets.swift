import Foundation
import Glibc
import PhotonCore

/// The pairing secrets an emulated TV has issued (Samsung's tokens, LG's client keys), one
/// per line in its state directory, so a client paired with it stays paired when the
/// emulator restarts — as with a real TV. They are secrets: the file is owner-only (0600)
/// and replaced atomically, never left half-written.
public enum EmulatorIssuedSecrets {
    /// The secrets kept in `directory` under `name`; none without a directory or a file.
    public static func load(_ name: String, in directory: URL?) -> Set<String> {
        guard let directory,
            let text = try? String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
        else { return [] }
        return Set(text.split(separator: "\n").map(String.init))
    }

    /// Replaces the file `name` in `directory` (if given) with `secrets`.
    public static func save(_ secrets: Set<String>, as name: String, in directory: URL?) throws {
        guard let directory else { return }
        let target = directory.appendingPathComponent(name).path
        let temporary = directory.appendingPathComponent(".\(name).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp").path
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw failure("cannot create \(temporary)") }
        let bytes = Array((secrets.sorted().joined(separator: "\n") + "\n").utf8)
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        guard written == bytes.count, rename(temporary, target) == 0 else {
            let error = failure("cannot write \(target)")
            unlink(temporary)
            throw error
        }
    }

    private static func failure(_ what: String) -> PhotonError {
        PhotonError(.storeIO, "\(what): \(String(cString: strerror(errno)))", hint: "check the emulator's --state directory")
    }
}
