import PhotonCore
import Testing

/// The HTTP response parser against every integer a hostile server can send: negative,
/// huge, repeated and non-decimal lengths, bad chunk sizes, floods and binary.
@Suite struct HTTPResponseParserTests {
    func parse(_ text: String, maxBody: Int = 1024, split: Int? = nil) throws -> HTTPClient.Response? {
        var parser = HTTPResponseParser(maxBody: maxBody)
        let bytes = Array(text.utf8)
        if let split {
            for start in stride(from: 0, to: bytes.count, by: split) {
                parser.append(Array(bytes[start..<min(start + split, bytes.count)]))
                if let response = try parser.next() { return response }
            }
        } else {
            parser.append(bytes)
        }
        return try parser.next(atEnd: true)
    }

    func expectError(_ text: String, _ code: PhotonError.Code, maxBody: Int = 1024, sourceLocation: SourceLocation = #_sourceLocation) {
        let error = #expect(throws: PhotonError.self, sourceLocation: sourceLocation) { _ = try parse(text, maxBody: maxBody) }
        #expect(error?.code == code, "\(error?.message ?? "")", sourceLocation: sourceLocation)
    }

    @Test func contentLengthBodies() throws {
        let ok = try #require(try parse("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello, and more"))
        #expect(ok.status == 200)
        #expect(ok.body == Array("hello".utf8))
        for split in [1, 2, 7] {
            let r = try #require(try parse("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello", split: split))
            #expect(r.body == Array("hello".utf8))
        }
        // Equal repeats (and lists) are one length; leading zeros are legal.
        #expect(try parse("HTTP/1.1 200 OK\r\nContent-Length: 3\r\ncontent-length: 3, 003\r\n\r\nabc")?.body == Array("abc".utf8))
        #expect(try parse("HTTP/1.1 204 No Content\r\nContent-Length: 10\r\n\r\n")?.body == [])
        #expect(try parse("HTTP/1.1 200 OK\r\n\r\nuntil close")?.body == Array("until close".utf8))
    }

    @Test func hostileContentLengthsAreErrors() {
        for value in ["-1", "-0", "+5", " ", "", "5 5", "0x10", "1e3", "５", "9223372036854775807", "99999999999999999999999999"] {
            #expect(throws: PhotonError.self, "\(value)") { _ = try parse("HTTP/1.1 200 OK\r\nContent-Length: \(value)\r\n\r\nabc") }
        }
        expectError("HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", .protocolViolation)
        expectError("HTTP/1.1 200 OK\r\nContent-Length: 2048\r\n\r\n", .messageTooLarge)
        expectError("HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd", .protocolViolation)
        expectError("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort", .connectionClosed)
        expectError("HTTP/1.1 200 OK\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n", .protocolViolation)
        expectError("HTTP/1.1 200 OK\r\n\r\n" + String(repeating: "x", count: 2000), .messageTooLarge)
    }

    @Test func chunkedBodies() throws {
        let text = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\nA\r\n, chunked!\r\n0\r\nX-Trailer: y\r\n\r\n"
        for split in [nil, 1, 3] as [Int?] {
            let r = try #require(try parse(text, split: split))
            #expect(String(decoding: r.body, as: UTF8.self) == "hello, chunked!")
        }
    }

    @Test func hostileChunkSizesAreErrors() {
        let head = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
        for size in ["-1", "+5", "", "g", "５", "FFFFFFFFFFFFFFFF", "7FFFFFFFFFFFFFFF", "0x5"] {
            #expect(throws: PhotonError.self, "\(size)") { _ = try parse(head + size + "\r\nhello\r\n0\r\n\r\n") }
        }
        expectError(head + "800\r\n", .messageTooLarge)
        expectError(head + "5\r\nhelloXX0\r\n\r\n", .protocolViolation)
        expectError(head + "5\r\nhel", .connectionClosed)
        expectError(head + String(repeating: "1", count: 5000), .messageTooLarge)
        expectError("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", .unsupported)
    }

    @Test func heads() throws {
        // Interim answers are skipped; the status is exactly three digits.
        #expect(try parse("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")?.status == 404)
        for line in [
            "HTTP/1.1 -1 Bad", "HTTP/1.1 +200 OK", "HTTP/1.1 2000 OK", "HTTP/1.1 ２００ OK", "HTTP/1.1 099 Low", "SSH-2.0-x",
            // Found by FuzzHTTPResponse (Fuzz/FailCases/FuzzHTTPResponse/status-900): a status past 599.
            "HTTP/1.1 900 OK",
        ] {
            #expect(throws: PhotonError.self, "\(line)") { _ = try parse(line + "\r\nContent-Length: 0\r\n\r\n") }
        }
        // A header flood ends at the head limit, and binary is refused, never trapped on.
        expectError("HTTP/1.1 200 OK\r\n" + String(repeating: "X-Flood: 1\r\n", count: 5000), .messageTooLarge)
        var parser = HTTPResponseParser(maxBody: 1024)
        parser.append([0xFF, 0xFE, 0x00, 0x0D, 0x0A, 0x0D, 0x0A])
        #expect(throws: PhotonError.self) { _ = try parser.next() }
    }
}
