import COpenSSL
import PhotonCore

/// Turns OpenSSL's thread-local error queue into readable text and `PhotonError`s.
public enum OpenSSLError {
    /// Drains the error queue into one line (most recent last).
    public static func drain() -> String {
        var parts: [String] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            parts.append(String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return parts.joined(separator: "; ")
    }

    /// Empties this thread's error queue. Every operation that may report OpenSSL's
    /// errors starts with it, so an error left behind by an earlier call (one that failed
    /// quietly, or whose caller did not drain) never appears in this operation's message.
    public static func clear() { ERR_clear_error() }

    static func crypto(_ what: String, hint: String? = nil) -> PhotonError {
        let detail = drain()
        return PhotonError(.crypto, detail.isEmpty ? what : "\(what): \(detail)", hint: hint)
    }
}

/// Reads everything written to a memory BIO.
func readMemoryBIO(_ bio: OpaquePointer) -> [UInt8] {
    var pointer: UnsafeMutablePointer<CChar>?
    let length = photon_BIO_get_mem_data(bio, &pointer)
    guard length > 0, let pointer else { return [] }
    return pointer.withMemoryRebound(to: UInt8.self, capacity: Int(length)) {
        Array(UnsafeBufferPointer(start: $0, count: Int(length)))
    }
}

/// A memory BIO holding `bytes`, freed after `body`.
func withMemoryBIO<R>(_ bytes: [UInt8], _ body: (OpaquePointer) throws -> R) throws -> R {
    guard let bio = bytes.withUnsafeBytes({ BIO_new_mem_buf($0.baseAddress, Int32($0.count)) }) else {
        throw OpenSSLError.crypto("could not allocate a memory buffer")
    }
    defer { BIO_free(bio) }
    return try body(bio)
}

func withEmptyMemoryBIO<R>(_ body: (OpaquePointer) throws -> R) throws -> R {
    guard let bio = BIO_new(BIO_s_mem()) else { throw OpenSSLError.crypto("could not allocate a memory buffer") }
    defer { BIO_free(bio) }
    return try body(bio)
}
