import PhotonCore
import PhotonCrypto
import Testing

@testable import AppleTV

/// Companion frames byte by byte, split at every offset, oversize, and the encryption of a
/// verified connection (counter nonces, the header as associated data, empty payloads in
/// clear, any alteration refused).
@Suite struct CompanionFrameTests {
    @Test func framesAreTypeLengthPayloadAndSplitAnywhere() throws {
        let frame = CompanionFrame(.encryptedOPACK, Array("hello".utf8))
        #expect(frame.encoded == [8, 0, 0, 5] + Array("hello".utf8))
        let two = frame.encoded + CompanionFrame(.noOp, []).encoded
        for split in 0...two.count {
            var decoder = CompanionFrameDecoder()
            var seen: [[UInt8]] = []
            decoder.append(Array(two[..<split]))
            while let next = try decoder.next() { seen.append(next.header + next.payload) }
            decoder.append(Array(two[split...]))
            while let next = try decoder.next() { seen.append(next.header + next.payload) }
            #expect(seen == [frame.encoded, [1, 0, 0, 0]], "split at \(split)")
        }
        var decoder = CompanionFrameDecoder(maximumPayload: 1024)
        decoder.append([8, 0, 4, 1])
        #expect(throws: PhotonError.self) { try decoder.next() }
    }

    @Test func encryptedFramesOpenOnlyInOrderAndUnaltered() throws {
        let a = Array(repeating: UInt8(1), count: 32)
        let b = Array(repeating: UInt8(2), count: 32)
        var client = CompanionCipher(outgoingKey: a, incomingKey: b)
        var tv = CompanionCipher(outgoingKey: b, incomingKey: a)
        for text in ["first", "second", ""] {
            let wire = try client.seal(CompanionFrame(.encryptedOPACK, Array(text.utf8)))
            #expect(Int(wire[3]) == (text.isEmpty ? 0 : text.utf8.count + 16))
            var decoder = CompanionFrameDecoder()
            decoder.append(wire)
            let (header, payload) = try #require(try decoder.next())
            #expect(try tv.open(header: header, payload: payload).payload == Array(text.utf8))
        }
        // Altered payload, altered header (associated data), or a replayed frame: refused.
        let wire = try client.seal(CompanionFrame(.encryptedOPACK, [1, 2, 3]))
        var altered = wire
        altered[6] ^= 1
        var copy = tv
        #expect(throws: PhotonError.self) { try copy.open(header: Array(altered[..<4]), payload: Array(altered[4...])) }
        var header = Array(wire[..<4])
        header[0] = 7
        copy = tv
        #expect(throws: PhotonError.self) { try copy.open(header: header, payload: Array(wire[4...])) }
        #expect(try tv.open(header: Array(wire[..<4]), payload: Array(wire[4...])).payload == [1, 2, 3])
        #expect(throws: PhotonError.self) { try tv.open(header: Array(wire[..<4]), payload: Array(wire[4...])) }
    }
}
