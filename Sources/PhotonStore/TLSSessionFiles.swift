import Foundation
import Glibc
import PhotonCore

/// The TLS sessions of paired TVs between processes (`TLSSessionStore`), one file per
/// connection key in `tls-sessions/` beside the secret store: 0600 files in a 0700
/// directory, because a session holds its resumption key. A cache, not a record: files are
/// replaced without fsync, anything unreadable counts as absent, and forgetting a TV or
/// regenerating the identity empties it.
public struct TLSSessionFiles: TLSSessionStore {
    /// The directory's path, what the files are read and written through (no Foundation
    /// URL on a cold key's way).
    public let directoryPath: String
    public var directory: URL { URL(filePath: directoryPath, directoryHint: .isDirectory) }
    /// A session is a few hundred bytes to a few kilobytes (a TV's certificate inside).
    static let maximumSize = 16 << 10

    public init(paths: StorePaths) { directoryPath = paths.tlsSessionsPath }

    public func session(for key: String) -> [UInt8]? {
        guard let path = file(for: key) else { return nil }
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var st = stat()
        // Ours and private, or not used.
        guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG, st.st_uid == geteuid(), st.st_mode & 0o077 == 0,
            st.st_size > 0, st.st_size <= Self.maximumSize
        else { return nil }
        var bytes = [UInt8](repeating: 0, count: Int(st.st_size))
        let count = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        return count == bytes.count ? bytes : nil
    }

    public func save(_ session: [UInt8], for key: String) {
        guard let path = file(for: key), session.count <= Self.maximumSize else { return }
        do {
            try SecureFiles.ensurePrivateDirectory(directoryPath)
            try SecureFiles.writeAtomically(Data(session), to: path, durable: false)
        } catch {
            // A cache: the next connection runs a full handshake.
        }
    }

    public func removeSession(for key: String) {
        guard let path = file(for: key) else { return }
        unlink(path)
    }

    /// Removes every stored session.
    public func removeAll() {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directoryPath) else { return }
        for name in names { unlink(StorePaths.join(directoryPath, name)) }
    }

    /// Keys are hex digests; anything else never becomes a path.
    private func file(for key: String) -> String? {
        let isLowerHex: (UInt8) -> Bool = { (48...57).contains($0) || (97...102).contains($0) }
        guard key.utf8.count == 64, key.utf8.allSatisfy(isLowerHex) else { return nil }
        return StorePaths.join(directoryPath, key)
    }
}
