import Foundation
import PhotonCore
import PhotonCrypto
import Testing

@testable import AppleTV

/// OPACK byte by byte against what pyatv 0.18.0's encoder writes for the same values
/// (recorded with Tests/peers/hap_peer.py opack; AppleTVInteropTests re-checks them live),
/// and malformed input.
@Suite struct OPACKTests {
    func hex(_ text: String) -> [UInt8] { try! Hex.decode(text.replacingOccurrences(of: " ", with: "")) }

    static let samples: [(String, OPACK, String)] = [
        ("true", .bool(true), "01"), ("false", .bool(false), "02"), ("null", .null, "04"), ("zero", .int(0), "08"), ("small", .int(39), "2f"),
        ("byte", .int(40), "3028"), ("short", .int(0x1234), "313412"), ("word", .int(0x1234_5678), "3278563412"),
        ("long", .int(0x1234_5678_9ABC_DEF0), "33f0debc9a78563412"), ("double", .double(1.5), "36000000000000f83f"),
        ("empty-string", .string(""), "40"), ("string", .string("_hidC"), "455f68696443"),
        ("string-33", .string(String(repeating: "b", count: 33)), "6121" + String(repeating: "62", count: 33)),
        ("data", .data([1, 2, 3]), "73010203"), ("data-40", .data(Array(0..<40)), "9128" + Hex.encode(Array(0..<40))),
        ("uuid", .uuid(try! Hex.decode("12345678123456781234567812345678")), "0512345678123456781234567812345678"),
        ("list", .array([.int(1), .string("two"), .data(Array("3".utf8))]), "d3094374776f7133"),
        ("list-15", .array((0..<15).map { .int(Int64($0)) }), "df08090a0b0c0d0e0f1011121314151603"),
        ("dict", .object([("_i", .string("_hidC")), ("_t", .int(2)), ("_x", .int(1234))]), "e3425f69455f68696443425f740a425f7831d204"),
        (
            "dict-15", .object((0..<15).map { ("k\($0)", .int(Int64($0))) }),
            "ef426b3008426b3109426b320a426b330b426b340c426b350d426b360e426b370f426b3810426b3911436b313012436b313113436b313214436b313315436b31341603"
        ),
        (
            "message",
            .object([
                ("_i", .string("_launchApp")), ("_x", .int(123456)), ("_t", .int(2)),
                ("_c", .object([("_bundleID", .string("com.netflix.Netflix"))])),
            ]),
            "e4425f694a5f6c61756e6368417070425f783240e20100425f740a425f63e1495f62756e646c65494453636f6d2e6e6574666c69782e4e6574666c6978"
        ),
        (
            "repeat", .array([.string("same"), .string("same"), .data(Array("xyzw".utf8)), .data(Array("xyzw".utf8)), .int(1000), .int(1000)]),
            "d64473616d65a07478797a77a131e803a2"
        ),
        ("pairing", .object([("_pd", .data([0, 1, 0, 6, 1, 1])), ("_pwTy", .int(1))]), "e2435f706476000100060101455f7077547909"),
    ]

    /// Round 4, M3: one 196,614-byte frame of 49,153 distinct strings (the fuzz replay's
    /// `slow-opack-distinct-strings-196k`) decodes into those strings, with each later
    /// reference finding its value, and encodes back; the table is a hash set now, so this
    /// is linear (it kept a release build busy 55 s when every value searched the table).
    @Test func aLargeFrameOfDistinctStringsDecodesAndEncodesBack() throws {
        let letters = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789".utf8)
        var bytes: [UInt8] = [0xDF]
        var strings: [String] = []
        outer: for a in letters {
            for b in letters {
                for c in letters {
                    bytes += [0x43, a, b, c]
                    strings.append(String(decoding: [a, b, c], as: UTF8.self))
                    if bytes.count >= 196_610 { break outer }
                }
            }
        }
        bytes.append(0x03)
        #expect(bytes.count == 196_614)
        let value = try OPACK.decode(bytes)
        guard case .array(let items) = value else {
            Issue.record("not an array")
            return
        }
        #expect(items.count == strings.count && items.last == .string(strings.last!))
        // A string, then a reference to it: the first value of the table.
        let tail = try OPACK.decode([0xD2, 0x43, 0x61, 0x62, 0x63, 0xA0])
        #expect(tail == .array([.string("abc"), .string("abc")]))
        #expect(try OPACK.decode(value.encoded) == value)
    }

    @Test func encodesAsPyatvDoesAndDecodesBack() throws {
        for (name, value, expected) in Self.samples {
            #expect(Hex.encode(value.encoded) == expected, "\(name)")
            #expect(try OPACK.decode(hex(expected)) == value, "\(name)")
        }
    }

    @Test func decodesWhatOtherEncodersWrite() throws {
        // Fixed-size integers, float32, references by index, a 16-bit string length.
        #expect(try OPACK.decode(hex("3105 00")) == .int(5))
        #expect(try OPACK.decode(hex("350000c03f")) == .double(1.5))
        #expect(try OPACK.decode(hex("d3 4161 a0 a0")) == .array([.string("a"), .string("a"), .string("a")]))
        #expect(try OPACK.decode(hex("d2 4161 c100")) == .array([.string("a"), .string("a")]))
        #expect(try OPACK.decode(hex("620300616263")) == .string("abc"))
        #expect(try OPACK.decode(hex("df 09 0a 03")) == .array([.int(1), .int(2)]))
        #expect(try OPACK.decode(hex("ef 4161 09 03")) == .object([("a", .int(1))]))
        #expect(try OPACK.decode(hex("338fffffffffffffff")) == .int(-113))
        #expect(OPACK.int(-113).encoded == hex("338fffffffffffffff"))
    }

    @Test func malformedInputIsAClearError() {
        let bad: [(String, String)] = [
            ("", "nothing"), ("45 5f68", "a string cut short"), ("91 ff 00", "data past the end"), ("e1 41 61", "a dict without its value"),
            ("df 09", "an endless list without its end"), ("a0", "a reference to nothing"), ("c1 05", "a reference past the table"),
            ("f0", "an unknown tag"), ("03", "an end marker alone"), ("42 ff fe", "a string that is not UTF-8"), ("0909", "bytes after the value"),
            ("94 ffffffffffffffff", "an absurd data length"), ("30", "an integer cut short"),
        ]
        for (text, what) in bad {
            #expect(throws: PhotonError.self, "\(what)") { try OPACK.decode(try Hex.decode(text.replacingOccurrences(of: " ", with: ""))) }
        }
        // Deep nesting and reference bombs are bounded.
        #expect(throws: PhotonError.self) { try OPACK.decode([UInt8](repeating: 0xD1, count: 100) + [0x08]) }
        let bomb = [0xDF, 0x41, 0x61] + [UInt8](repeating: 0xA0, count: 200_000) + [0x03]
        #expect(throws: PhotonError.self) { try OPACK.decode(bomb) }
    }

    @Test func randomBytesNeverCrashTheDecoder() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let bytes = (0..<Int.random(in: 0..<40, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            _ = try? OPACK.decode(bytes)
        }
    }
}
