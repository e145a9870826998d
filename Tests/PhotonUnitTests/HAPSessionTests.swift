import PhotonCore
import PhotonCrypto
import Testing

@testable import PhotonHAP

/// HAP's encrypted frames and its HTTP messages, byte by byte: frames cut at 1,024 bytes,
/// fed in pieces, refused when altered, replayed, reordered or over length; requests read
/// whole, in pieces or several at once, bounded; answers and events written as HAP's
/// controllers read them (HomeKitInteropTests checks both against aiohomekit).
@Suite struct HAPSessionTests {
    static let secret = Array(UInt8(0)..<32)

    func pair() throws -> (controller: HAPSessionCipher, accessory: HAPSessionCipher) {
        (try HAPSessionCipher(controllerWithSharedSecret: Self.secret), try HAPSessionCipher(accessoryWithSharedSecret: Self.secret))
    }

    @Test(arguments: [0, 1, 1023, 1024, 1025, 3000])
    func framesAreCutAt1024BytesAndOpenWhole(_ size: Int) throws {
        var (controller, accessory) = try pair()
        let message = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let sealed = try controller.seal(message)
        let frames = (size + 1023) / 1024
        #expect(sealed.count == size + frames * 18)
        if size > 0 {
            // The first frame's length, little-endian, in the clear.
            let first = min(size, 1024)
            #expect(Array(sealed[0..<2]) == [UInt8(first & 0xFF), UInt8(first >> 8)])
        }
        #expect(try accessory.open(sealed) == message)
        #expect(accessory.bufferedCount == 0)
    }

    @Test func framesFedInPiecesGiveTheSameBytes() throws {
        var (controller, _) = try pair()
        let message = (0..<1100).map { UInt8(truncatingIfNeeded: $0) }
        let sealed = try controller.seal(message) + (try controller.seal(Array("next".utf8)))
        for split in stride(from: 0, through: sealed.count, by: 37) {
            var accessory = try HAPSessionCipher(accessoryWithSharedSecret: Self.secret)
            let opened = try accessory.open(Array(sealed[..<split])) + (try accessory.open(Array(sealed[split...])))
            #expect(opened == message + Array("next".utf8))
        }
        // One byte at a time: nothing until a frame is whole, never more than one frame held.
        var accessory = try HAPSessionCipher(accessoryWithSharedSecret: Self.secret)
        var opened: [UInt8] = []
        for byte in sealed {
            opened += try accessory.open([byte])
            #expect(accessory.bufferedCount <= 2 + 1024 + 16)
        }
        #expect(opened == message + Array("next".utf8))
    }

    @Test func eachDirectionHasItsOwnKeyAndCounter() throws {
        var (controller, accessory) = try pair()
        let answer = try accessory.seal(Array("HTTP/1.1 204 No Content\r\n\r\n".utf8))
        #expect(try controller.open(answer) == Array("HTTP/1.1 204 No Content\r\n\r\n".utf8))
        // The accessory cannot read its own frames (another key), so a reflected frame fails.
        var other = try HAPSessionCipher(accessoryWithSharedSecret: Self.secret)
        #expect(throws: PhotonError.self) { try other.open(answer) }
        // The same bytes sealed twice differ: the counter moved.
        let first = try controller.seal([1, 2, 3])
        let second = try controller.seal([1, 2, 3])
        #expect(first != second)
    }

    @Test func alteredReplayedReorderedOrOversizeFramesEndTheSession() throws {
        var (controller, _) = try pair()
        let first = try controller.seal(Array("first".utf8))
        let second = try controller.seal(Array("second".utf8))
        func opening(_ bytes: [UInt8]) throws -> [UInt8] {
            var accessory = try HAPSessionCipher(accessoryWithSharedSecret: Self.secret)
            return try accessory.open(bytes)
        }
        #expect(try opening(first + second) == Array("firstsecond".utf8))
        // Reordered: the second frame is not frame 0.
        #expect(throws: PhotonError.self) { try opening(second) }
        // Replayed: frame 0 again as frame 1.
        #expect(throws: PhotonError.self) { try opening(first + first) }
        // Altered ciphertext, tag, or the length the tag covers.
        for index in [2, first.count - 1] {
            var altered = first
            altered[index] ^= 0x01
            #expect(throws: PhotonError.self) { try opening(altered) }
        }
        var longer = first + [0]
        longer[0] += 1
        #expect(throws: PhotonError.self) { try opening(longer) }
        // Over 1,024 bytes: refused from the length alone, before the frame arrives.
        let oversize = #expect(throws: PhotonError.self) { try opening([0x01, 0x04]) }
        #expect(oversize?.code == .protocolViolation)
        #expect(throws: PhotonError.self) { try HAPSessionCipher(sealKey: [1], openKey: Self.secret) }
    }

    static let request =
        "PUT /characteristics HTTP/1.1\r\nHost: tv.local\r\nContent-Type: application/hap+json\r\nContent-Length: 46\r\n\r\n"
        + "{\"characteristics\":[{\"aid\":1,\"iid\":9,\"ev\":1}]}"

    @Test func requestsAreReadWholeInPiecesOrSeveralAtOnce() throws {
        let get = "GET /characteristics?id=1.9,1.10&ev=1&meta HTTP/1.1\r\nHost: tv.local\r\n\r\n"
        let bytes = Array((Self.request + get + "POST /pair-verify HTTP/1.1\r\nContent-Length: 3\r\n\r\n\u{06}\u{01}\u{01}").utf8)
        var whole = HAPRequestReader()
        whole.append(bytes)
        var requests: [HAPRequest] = []
        while let request = try whole.next() { requests.append(request) }
        #expect(requests.map(\.method) == ["PUT", "GET", "POST"])
        #expect(requests.map(\.path) == ["/characteristics", "/characteristics", "/pair-verify"])
        #expect(String(decoding: requests[0].body, as: UTF8.self) == "{\"characteristics\":[{\"aid\":1,\"iid\":9,\"ev\":1}]}")
        #expect(requests[1].query("id") == "1.9,1.10")
        #expect(requests[1].query("ev") == "1")
        #expect(requests[1].query("meta") == "")
        #expect(requests[1].body.isEmpty)
        #expect(requests[2].body == [6, 1, 1])
        #expect(whole.bufferedCount == 0)
        for split in 0...bytes.count {
            var pieces = HAPRequestReader()
            var seen: [HAPRequest] = []
            pieces.append(Array(bytes[..<split]))
            while let request = try pieces.next() { seen.append(request) }
            pieces.append(Array(bytes[split...]))
            while let request = try pieces.next() { seen.append(request) }
            #expect(seen == requests, "split at \(split)")
        }
    }

    @Test(arguments: [
        ("GET /accessories HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", PhotonError.Code.protocolViolation),
        ("PUT /characteristics HTTP/1.1\r\nContent-Length: 70000\r\n\r\n", .messageTooLarge),
        ("PUT /characteristics HTTP/1.1\r\nContent-Length: -1\r\n\r\n", .protocolViolation),
        ("PUT /characteristics HTTP/1.1\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n", .protocolViolation),
        ("PUT /characteristics HTTP/1.1\r\nContent-Length: 99999999999\r\n\r\n", .protocolViolation),
        ("get /accessories HTTP/1.1\r\n\r\n", .protocolViolation),
        ("GET accessories HTTP/1.1\r\n\r\n", .protocolViolation),
        ("GET /accessories HTTP/2\r\n\r\n", .protocolViolation),
        ("GET /accessories HTTP/1.1\r\nno colon\r\n\r\n", .protocolViolation),
        ("GET /a?%zz=1 HTTP/1.1\r\n\r\n", .protocolViolation),
    ])
    func malformedRequestsAreRefusedWithAReason(_ text: String, _ code: PhotonError.Code) throws {
        var reader = HAPRequestReader()
        reader.append(Array(text.utf8))
        let error = #expect(throws: PhotonError.self) { try reader.next() }
        #expect(error?.code == code)
    }

    /// Fuzz finding (Fuzz/FailCases/FuzzHAPMessages): a request refused for its query was
    /// consumed, so the next call read the request after it, and feeding the same bytes in
    /// pieces gave other requests. A refused request now stays refused.
    @Test func aRefusedRequestIsNotConsumed() throws {
        var reader = HAPRequestReader()
        reader.append(Array("GET /characteristics?id=1.9&ev%1 HTTP/1.1\r\n\r\nGET /accessories HTTP/1.1\r\n\r\n".utf8))
        #expect(throws: PhotonError.self) { try reader.next() }
        #expect(throws: PhotonError.self) { try reader.next() }
    }

    @Test func aHeadWithoutEndIsBoundedAndABodyIsAwaited() throws {
        var reader = HAPRequestReader()
        reader.append(Array("GET /accessories HTTP/1.1\r\nX: ".utf8) + [UInt8](repeating: 65, count: HAPRequestReader.maximumHead))
        let error = #expect(throws: PhotonError.self) { try reader.next() }
        #expect(error?.code == .messageTooLarge)
        var waiting = HAPRequestReader()
        let bytes = Array(Self.request.utf8)
        waiting.append(Array(bytes.dropLast()))
        #expect(try waiting.next() == nil)
        waiting.append([bytes.last!])
        #expect(try waiting.next()?.body.count == 46)
    }

    @Test func answersAndEventsAreWrittenAsControllersReadThem() {
        #expect(
            HAPResponse.json(207, Array("{}".utf8)).encoded
                == Array("HTTP/1.1 207 Multi-Status\r\nContent-Type: application/hap+json\r\nContent-Length: 2\r\n\r\n{}".utf8))
        #expect(HAPResponse(status: 204).encoded == Array("HTTP/1.1 204 No Content\r\nContent-Length: 0\r\n\r\n".utf8))
        #expect(
            HAPResponse.event(Array("{}".utf8)).encoded
                == Array("EVENT/1.0 200 OK\r\nContent-Type: application/hap+json\r\nContent-Length: 2\r\n\r\n{}".utf8))
        let pairing = HAPResponse.pairing(TLV8([(.state, [2])]))
        #expect(pairing.encoded.starts(with: Array("HTTP/1.1 200 OK\r\nContent-Type: application/pairing+tlv8\r\nContent-Length: 3\r\n\r\n".utf8)))
    }
}
