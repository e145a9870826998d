import COpenSSL
import PhotonCore
import PhotonCrypto
import Testing

/// OpenSSL keeps a per-thread error queue; an error one call leaves there must not show
/// up in the message of the next operation that fails.
@Suite struct OpenSSLErrorQueueTests {
    @Test func aStaleErrorDoesNotLeakIntoTheNextMessage() {
        // Leave an ASN.1 decoding error behind, the way a raw call that is not drained does.
        var der: [UInt8] = [0x30, 0x82, 0xFF, 0xFF, 0x01]
        let stale = der.withUnsafeMutableBufferPointer { buffer -> OpaquePointer? in
            var cursor: UnsafePointer<UInt8>? = UnsafePointer(buffer.baseAddress)
            return d2i_X509(nil, &cursor, buffer.count)
        }
        #expect(stale == nil)
        #expect(ERR_peek_error() != 0)
        let error = #expect(throws: PhotonError.self) { _ = try RSAKey(pem: "not a key") }
        let message = error?.message.lowercased() ?? ""
        #expect(!message.contains("asn1"), "\(message)")
        #expect(!message.contains("header too long") && !message.contains("too long"), "\(message)")
    }
}
