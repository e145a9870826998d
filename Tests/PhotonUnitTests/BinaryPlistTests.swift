import PhotonCore
import PhotonCrypto
import Testing

@testable import AppleTV

/// The binary property list codec byte by byte, the keyed archives of the text-input
/// session, and every kind of malformed input failing with a clear error (never a crash
/// or a runaway).
@Suite struct BinaryPlistTests {
    func hex(_ bytes: [UInt8]) -> String { Hex.encode(bytes) }

    @Test func smallValuesAreWrittenAsApplesFormatLaysThemOut() {
        // One object: the header, the object, the offset table, the trailer.
        let one = BinaryPlist.encode(.int(1))
        #expect(
            hex(one) == "62706c6973743030" + "1001" + "08" + "000000000000" + "0101" + "0000000000000001" + "0000000000000000" + "000000000000000a")
        #expect(hex(Array(BinaryPlist.encode(.bool(true)).dropFirst(8).prefix(1))) == "09")
        #expect(hex(Array(BinaryPlist.encode(.string("abc")).dropFirst(8).prefix(4))) == "53616263")
        // Non-ASCII text is UTF-16 big-endian, counted in code units.
        #expect(hex(Array(BinaryPlist.encode(.string("é")).dropFirst(8).prefix(3))) == "6100e9")
        // Fifteen or more: the count follows as an integer object.
        #expect(hex(Array(BinaryPlist.encode(.data(Array(repeating: 7, count: 15))).dropFirst(8).prefix(3))) == "4f100f")
        #expect(hex(Array(BinaryPlist.encode(.int(-1)).dropFirst(8).prefix(9))) == "13ffffffffffffffff")
        #expect(hex(Array(BinaryPlist.encode(.int(0x1_0000)).dropFirst(8).prefix(5))) == "1200010000")
        #expect(hex(Array(BinaryPlist.encode(.uid(300)).dropFirst(8).prefix(3))) == "81012c")
        #expect(hex(Array(BinaryPlist.encode(.real(1.5)).dropFirst(8).prefix(9))) == "233ff8000000000000")
        // A dictionary: its key references, then its value references.
        let dictionary = BinaryPlist.encode(.dictionary(["a": .int(1)]))
        #expect(hex(Array(dictionary.dropFirst(8).prefix(7))) == "d1" + "01" + "02" + "5161" + "1001")
    }

    static let samples: [PlistValue] = [
        .int(0), .int(255), .int(256), .int(65_536), .int(Int64.max), .int(Int64.min), .real(-0.25), .date(123.5), .bool(false),
        .string(""), .string(String(repeating: "x", count: 300)), .string("日本語 🙂"), .data([]), .data(Array(0..<200)),
        .uid(0), .uid(70_000), .array((0..<300).map { .int($0) }),
        .dictionary((0..<20).map { PlistEntry(key: "k\($0)", value: .array([.string("v"), .dictionary(["deep": .bool(true)])])) }),
    ]

    @Test(arguments: samples) func everyValueReadsBackAsWritten(_ value: PlistValue) throws {
        #expect(try BinaryPlist.decode(BinaryPlist.encode(value)) == value)
    }

    @Test func theTextInputArchivesSayWhatTheyCarry() throws {
        let session = Array(UInt8(0)..<16)
        #expect(
            try RemoteTextInput.operation(in: RemoteTextInput.insert("the expanse", session: session)) == .insert("the expanse", session: session))
        #expect(try RemoteTextInput.operation(in: RemoteTextInput.clear(session: session)) == .clear(session: session))
        let started = try RemoteTextInput.session(in: RemoteTextInput.sessionStarted(session: session, text: "abc"))
        #expect(started.session == session && started.text == "abc")
        // Class descriptions are written once and shared.
        let insert = try BinaryPlist.decode(RemoteTextInput.insert("x", session: session))
        let objects = try #require(insert["$objects"]?.arrayValue)
        #expect(objects.first == .string("$null"))
        #expect(objects.filter { $0["$classname"] != nil }.count == 3)
        #expect(insert["$archiver"] == .string("RTIKeyedArchiver"))
    }

    @Test func anArchiveWithoutTheSessionIsRefused() throws {
        var archive = KeyedArchive()
        let text = archive.add(.string("x"))
        let output = archive.object("TIKeyboardOutput", ["insertionText": text])
        let operations = archive.object("RTITextOperations", ["keyboardOutput": output])
        #expect(throws: PhotonError.self) { try RemoteTextInput.operation(in: archive.encoded(top: ["textOperations": operations])) }
        #expect(throws: PhotonError.self) { try RemoteTextInput.session(in: BinaryPlist.encode(.dictionary(["$top": .dictionary([:])]))) }
        // A UID past the objects.
        let dangling = BinaryPlist.encode(.dictionary(["$top": .dictionary(["sessionUUID": .uid(9)]), "$objects": .array(["$null"])]))
        #expect(throws: PhotonError.self) { try RemoteTextInput.session(in: dangling) }
    }

    /// Hand-made hostile lists: each must fail with a protocol violation, quickly.
    @Test func malformedListsFailClearly() throws {
        let valid = BinaryPlist.encode(.array([.string("a"), .int(1)]))
        var cases: [(String, [UInt8])] = [
            ("empty", []), ("header only", Array("bplist00".utf8)), ("another version", Array("bplist15".utf8) + Array(valid.dropFirst(8))),
            ("truncated", Array(valid.dropLast(1))),
        ]
        func withTrailer(_ edit: (inout [UInt8], Int) -> Void) -> [UInt8] {
            var bytes = valid
            edit(&bytes, bytes.count - 32)
            return bytes
        }
        cases.append(("offset size 3", withTrailer { $0[$1 + 6] = 3 }))
        cases.append(("reference size 0", withTrailer { $0[$1 + 7] = 0 }))
        cases.append(("no objects", withTrailer { $0[$1 + 15] = 0 }))
        cases.append(("a huge count", withTrailer { b, t in for i in 8..<16 { b[t + i] = 0xFF } }))
        cases.append(("top past the end", withTrailer { $0[$1 + 23] = 9 }))
        cases.append(("table past the end", withTrailer { $0[$1 + 31] = 0xF0 }))
        cases.append(("table in the header", withTrailer { $0[$1 + 31] = 2 }))
        // An array that contains itself; an array whose count runs past the objects.
        cases.append(("a cycle", single([0xA1, 0x00])))
        cases.append(("a long array", single([0xAF, 0x10, 0xFF])))
        // Markers that are not in the format (or sizes it does not have).
        for marker: UInt8 in [0x00, 0x0F, 0x15, 0x24, 0x34, 0x70, 0x90, 0xB0, 0xE0, 0xF0] {
            cases.append(("marker \(marker)", single([marker] + Array(repeating: 0, count: 8))))
        }
        // A non-ASCII byte in an ASCII string; a lone surrogate in UTF-16; a key that is not a string.
        cases.append(("latin-1", single([0x51, 0xE9])))
        cases.append(("surrogate", single([0x61, 0xD8, 0x00])))
        cases.append(
            ("int key", [UInt8]("bplist00".utf8) + [0xD1, 0x01, 0x01, 0x10, 0x01, 0x08, 0x0B] + [0, 0, 0, 0, 0, 0, 1, 1] + be(2) + be(0) + be(13)))
        for (name, bytes) in cases {
            let error = #expect(throws: PhotonError.self, "\(name)") { try BinaryPlist.decode(bytes) }
            #expect(error?.code == .protocolViolation, "\(name)")
        }
    }

    /// Objects that share children cannot blow up: twenty-five arrays each holding the next
    /// one twice would be 2^25 values read naively (within the depth limit).
    @Test func sharedChildrenAreBounded() throws {
        var objects: [[UInt8]] = []
        for i in 0..<25 { objects.append([0xA2, UInt8(i + 1), UInt8(i + 1)]) }
        objects.append([0x10, 0x01])
        var bytes: [UInt8] = Array("bplist00".utf8)
        var offsets: [UInt8] = []
        for object in objects {
            offsets.append(UInt8(bytes.count))
            bytes += object
        }
        let table = bytes.count
        bytes += offsets + [0, 0, 0, 0, 0, 0, 1, 1] + be(UInt64(objects.count)) + be(0) + be(UInt64(table))
        let error = #expect(throws: PhotonError.self) { try BinaryPlist.decode(bytes) }
        #expect(error?.message.contains("values") == true)
    }

    /// A list of one object, `object`.
    func single(_ object: [UInt8]) -> [UInt8] {
        [UInt8]("bplist00".utf8) + object + [0x08] + [0, 0, 0, 0, 0, 0, 1, 1] + be(1) + be(0) + be(UInt64(8 + object.count))
    }

    func be(_ value: UInt64) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: value >> (8 * (7 - UInt64($0)))) } }
}
