import PhotonCore
import PhotonNet
import Testing

@Suite struct WebSocketCodecTests {
    // RFC 6455 §5.7 examples.
    let unmaskedHello: [UInt8] = [0x81, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f]
    let maskedHello: [UInt8] = [0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58]

    @Test func encodesRFCExamples() {
        let frame = WebSocketFrame(opcode: .text, payload: Array("Hello".utf8))
        #expect(frame.encoded(maskingKey: nil) == unmaskedHello)
        #expect(frame.encoded(maskingKey: [0x37, 0xfa, 0x21, 0x3d]) == maskedHello)
        let ping = WebSocketFrame(opcode: .ping, payload: Array("Hello".utf8))
        #expect(ping.encoded(maskingKey: nil) == [0x89, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f])
        let medium = WebSocketFrame(opcode: .binary, payload: [UInt8](repeating: 7, count: 256)).encoded(maskingKey: nil)
        #expect(Array(medium.prefix(4)) == [0x82, 0x7E, 0x01, 0x00])
        let large = WebSocketFrame(opcode: .binary, payload: [UInt8](repeating: 7, count: 65536)).encoded(maskingKey: nil)
        #expect(Array(large.prefix(10)) == [0x82, 0x7F, 0, 0, 0, 0, 0, 1, 0, 0])
    }

    @Test func parsesRFCExamplesWholeAndByteByByte() throws {
        var client = WebSocketFrameParser(role: .client, maxPayload: 1024)
        client.append(unmaskedHello)
        #expect(try client.next() == WebSocketFrame(opcode: .text, payload: Array("Hello".utf8)))
        #expect(try client.next() == nil)

        var server = WebSocketFrameParser(role: .server, maxPayload: 1024)
        var frames: [WebSocketFrame] = []
        for byte in maskedHello + maskedHello {
            server.append([byte])
            while let frame = try server.next() { frames.append(frame) }
        }
        #expect(frames == Array(repeating: WebSocketFrame(opcode: .text, payload: Array("Hello".utf8)), count: 2))
        #expect(server.bufferedCount == 0)
    }

    @Test func roundTripsEverySizeClass() throws {
        for size in [0, 1, 125, 126, 127, 65535, 65536, 100_000] {
            let payload = (0..<size).map { UInt8(truncatingIfNeeded: $0 * 7) }
            let bytes = WebSocketFrame(opcode: .binary, payload: payload).encoded(maskingKey: [1, 2, 3, 4])
            var parser = WebSocketFrameParser(role: .server, maxPayload: 200_000)
            // Split at an awkward place.
            let cut = min(bytes.count, 3)
            parser.append(Array(bytes[..<cut]))
            #expect(try parser.next() == nil || size == 0 && cut >= 6)
            parser.append(Array(bytes[cut...]))
            #expect(try parser.next()?.payload == payload)
        }
    }

    @Test func refusesMalformedFrames() {
        func parse(_ bytes: [UInt8], role: WebSocketFrameParser.Role = .client, max: Int = 1024) throws -> WebSocketFrame? {
            var parser = WebSocketFrameParser(role: role, maxPayload: max)
            parser.append(bytes)
            return try parser.next()
        }
        // Reserved bits without an extension.
        #expect(throws: PhotonError.self) { try parse([0xC1, 0x00]) }
        // Unknown opcode 0x3.
        #expect(throws: PhotonError.self) { try parse([0x83, 0x00]) }
        // Fragmented ping.
        #expect(throws: PhotonError.self) { try parse([0x09, 0x00]) }
        // Control frame over 125 bytes.
        #expect(throws: PhotonError.self) { try parse([0x89, 0x7E, 0x00, 0x80]) }
        // A server must not mask; a client must.
        #expect(throws: PhotonError.self) { try parse(maskedHello, role: .client) }
        #expect(throws: PhotonError.self) { try parse(unmaskedHello, role: .server) }
        // Top bit of a 64-bit length.
        #expect(throws: PhotonError.self) { try parse([0x82, 0x7F, 0x80, 0, 0, 0, 0, 0, 0, 1]) }
    }

    @Test func oversizeLengthIsRefusedBeforeBuffering() throws {
        var parser = WebSocketFrameParser(role: .client, maxPayload: 1000)
        // Declares 2^40 bytes: refused from the header alone.
        parser.append([0x82, 0x7F, 0, 0, 0x01, 0, 0, 0, 0, 0])
        do {
            _ = try parser.next()
            Issue.record("an oversize frame was accepted")
        } catch let error as PhotonError {
            #expect(error.code == .messageTooLarge)
        }
    }

    @Test func garbageNeverCrashesOrGrowsWithoutBound() {
        var state: UInt32 = 12345
        for _ in 0..<300 {
            var parser = WebSocketFrameParser(role: .server, maxPayload: 4096)
            var bytes: [UInt8] = []
            for _ in 0..<64 {
                state = state &* 1_103_515_245 &+ 12345
                bytes.append(UInt8(truncatingIfNeeded: state >> 16))
            }
            parser.append(bytes)
            do {
                while try parser.next() != nil {}
            } catch {}
            #expect(parser.bufferedCount <= 64)
        }
    }

    @Test func acceptKeyFromRFC() {
        #expect(webSocketAccept(forKey: "dGhlIHNhbXBsZSBub25jZQ==") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
    }

    @Test func httpHeadParsing() throws {
        let head = try HTTPHead.parse(
            ArraySlice(Array("HTTP/1.1 101 Switching Protocols\r\nUpgrade: WebSocket\r\nConnection: keep-alive, Upgrade\r\n".utf8)))
        #expect(head.statusCode == 101)
        #expect(head.header("upgrade", contains: "websocket"))
        #expect(head.header("CONNECTION", contains: "upgrade"))
        #expect(head["sec-websocket-accept"] == nil)
        let request = try HTTPHead.parse(ArraySlice(Array("GET /api/v2/ HTTP/1.1\r\nHost: tv\r\n".utf8)))
        #expect(request.requestLine?.method == "GET")
        #expect(request.requestLine?.target == "/api/v2/")
        #expect(throws: PhotonError.self) { try HTTPHead.parse(ArraySlice(Array("GET / HTTP/1.1\r\nno colon here\r\n".utf8))) }
        #expect(throws: PhotonError.self) { try HTTPHead.parse(ArraySlice([0xFF, 0xFE])) }
    }

    @Test func httpHeadLinesEndAtCRLFAndHeadersLoseOnlySpacesAndTabsAroundThem() throws {
        let text = "HTTP/1.1 200 OK\r\nServer: \t Caf\u{e9} TV \u{4E2D} \t\r\n  X-Odd\t: a\nb\r\nEmpty:\r\nNBSP: \u{a0}v\u{a0}\r\n\r\n"
        let head = try HTTPHead.parse(ArraySlice(Array(text.utf8)))
        #expect(head.startLine == "HTTP/1.1 200 OK")
        #expect(head.headers.map(\.name) == ["Server", "X-Odd", "Empty", "NBSP"])
        #expect(head["server"] == "Caf\u{e9} TV \u{4E2D}")
        #expect(head["x-odd"] == "a\nb")  // a bare LF does not end a line
        #expect(head["empty"] == "")
        #expect(head["nbsp"] == "\u{a0}v\u{a0}")  // HTTP's optional whitespace is spaces and tabs only
        #expect(head.header("connection", contains: "close") == false)
        // Invalid UTF-8 on any line is refused as such, even after a well-formed line.
        let bad = Array("HTTP/1.1 200 OK\r\nA: b\r\nC: ".utf8) + [0xC3, 0x28] + Array("\r\n".utf8)
        #expect {
            try HTTPHead.parse(ArraySlice(bad))
        } throws: { ($0 as? PhotonError)?.message.contains("not valid UTF-8") == true }
        #expect(throws: PhotonError.self) { try HTTPHead.parse(ArraySlice(Array("\r\n\r\n".utf8))) }
        #expect(throws: PhotonError.self) { try HTTPHead.parse(ArraySlice(Array("HTTP/1.1 200 OK\r\n: v\r\n".utf8))) }
    }

    @Test func redactsQueryValues() {
        let target = "/api/v2/channels/samsung.remote.control?name=UGhvdG9u&token=12345678"
        #expect(WebSocketClient.redactedTarget(target) == "/api/v2/channels/samsung.remote.control?name=[REDACTED]&token=[REDACTED]")
        #expect(!Redaction.redact("GET wss://tv:8002/x?name=a&token=12345678").contains("12345678"))
    }
}
