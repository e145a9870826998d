import Foundation
import Glibc

/// Which local user owns the other end of a loopback TCP connection. Every local user
/// connects from 127.0.0.1, so on a loopback door the address cannot tell the owner from
/// another user of the machine; the kernel's socket table (`/proc/net/tcp`, `tcp6`) can:
/// the connecting socket is the row whose local port is the peer's port and whose remote
/// port is the server's, and the row names its user.
public enum LoopbackSocketOwner {
    /// The user id owning the client socket of a loopback connection from `clientPort` to
    /// `serverPort`; nil when the tables do not show it (another network namespace, no
    /// /proc).
    public static func uid(clientPort: UInt16, serverPort: UInt16) -> UInt32? {
        for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
            guard let text = readAll(table) else { continue }
            if let uid = owner(in: text, clientPort: clientPort, serverPort: serverPort) { return uid }
        }
        return nil
    }

    /// The `uid` column of the row for the socket bound to `clientPort` and connected to
    /// `serverPort`, in the text of a `/proc/net/tcp` table (a header line, then rows of
    /// `sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid …`,
    /// addresses as hex `ADDRESS:PORT`).
    public static func owner(in table: String, clientPort: UInt16, serverPort: UInt16) -> UInt32? {
        for line in table.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count > 7, port(of: fields[1]) == clientPort, port(of: fields[2]) == serverPort else { continue }
            return UInt32(fields[7])
        }
        return nil
    }

    /// The whole of a /proc file. Its size reads as 0, and a read that trusts the size
    /// (Foundation's) stops after the first page: a busy machine's table is longer.
    static func readAll(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while bytes.count < 64 << 20 {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            bytes += chunk[..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func port(of field: Substring) -> UInt16? {
        guard let colon = field.lastIndex(of: ":") else { return nil }
        return UInt16(field[field.index(after: colon)...], radix: 16)
    }
}
