import Glibc

/// The front end's own small needs besides the daemon connection (PhotonWire's
/// `DaemonConnection`): the wall clock for a command's envelope, and its random id.
enum FrontEndSupport {
    static func unixTime() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    /// A random (version 4) UUID, for the command's id.
    static func randomUUID() -> String {
        var bytes = [UInt8](repeating: 0, count: 16)
        let fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC)
        if fd >= 0 {
            _ = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress, 16) }
            Glibc.close(fd)
        }
        bytes[6] = bytes[6] & 0x0F | 0x40
        bytes[8] = bytes[8] & 0x3F | 0x80
        let hex = bytes.map { byte -> String in
            let digits = String(byte, radix: 16, uppercase: true)
            return digits.count == 1 ? "0" + digits : digits
        }
        return [hex[0..<4], hex[4..<6], hex[6..<8], hex[8..<10], hex[10..<16]].map { $0.joined() }.joined(separator: "-")
    }
}
