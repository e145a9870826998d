import PhotonCore
import Testing

/// The strict JSON reader the daemon uses for requests from other processes.
@Suite struct JSONParserTests {
    @Test func readsEveryKindOfValue() throws {
        let value = try JSONValue.parse(#"{"a":1,"b":-2.5e2,"c":"x\"\\\/\n\u00e9\ud83d\ude00","d":[true,false,null],"e":{}}"#)
        #expect(value["a"]?.intValue == 1)
        #expect(value["b"]?.doubleValue == -250)
        #expect(value["c"]?.stringValue == "x\"\\/\né😀")
        #expect(value["d"]?.arrayValue?.count == 3)
        #expect(value["d"]?.arrayValue?[0].boolValue == true)
        #expect(value["d"]?.arrayValue?[2] == .null)
        #expect(value["e"]?.isObject == true)
        #expect(value["missing"] == nil)
        // Round trip through the encoder.
        #expect(try JSONValue.parse(value.encoded) == value)
        #expect(try JSONValue.parse("  [ ]  ") == .array([]))
        #expect(try JSONValue.parse("12345678901234567890").doubleValue == 1.2345678901234567e19)
    }

    @Test func refusesMalformedInputWithAPosition() {
        let bad = [
            "", "{", "}", "[1,]", "{\"a\":}", "{\"a\" 1}", "{a:1}", "01", "1.", "1e", "-", "tru", "nul",
            "\"unterminated", "\"bad \\x escape\"", "\"\\ud800\"", "\"\\udc00\"", "\"raw \n newline\"", "{} {}", "[1] x",
            "\"\\u12\"", "NaN", "1e999",
        ]
        for text in bad {
            #expect(throws: JSONParseError.self, "\(text)") { try JSONValue.parse(text) }
        }
        do {
            _ = try JSONValue.parse("{\"a\":1,}")
            Issue.record("accepted a trailing comma")
        } catch {
            // Photon reports it as a protocol violation that says where.
            let photon = PhotonError.wrap(error)
            #expect(photon.code == .protocolViolation)
            #expect(photon.message.contains("at byte 7"))
        }
    }

    @Test func refusesInvalidUTF8AndDeepNesting() {
        #expect(throws: JSONParseError.self) { try JSONValue.parse([0x22, 0xFF, 0xFE, 0x22]) }
        #expect(throws: JSONParseError.self) { try JSONValue.parse([0x22, 0xC3, 0x22]) }
        let deep = String(repeating: "[", count: 40) + String(repeating: "]", count: 40)
        #expect(throws: JSONParseError.self) { try JSONValue.parse(deep) }
        #expect(throws: Never.self) { try JSONValue.parse(Array(deep.utf8), maximumDepth: 64) }
    }
}
