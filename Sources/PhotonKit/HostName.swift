import Glibc

/// This machine's name, read once per process with gethostname(2) — no resolver lookup,
/// which `ProcessInfo.hostName` may do, on the cold key path ("Photon on <host>" shown
/// by the TV), in the daemon's default MQTT site, in doctor's redaction.
public enum HostName {
    /// The whole name (`kitchen-pi.lan`), or nil when the system has none.
    public static let full: String? = {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return nil }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return name.isEmpty ? nil : name
    }()

    /// Its first label (`kitchen-pi`).
    public static let short: String? = full.flatMap { $0.split(separator: ".").first.map(String.init) }
}
