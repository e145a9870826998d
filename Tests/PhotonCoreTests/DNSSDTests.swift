import Testing

@testable import PhotonCore

/// Unicast DNS-SD: the query byte by byte, answers read back into services (with
/// compression as responders write it), and hostile answers failing clearly.
@Suite struct DNSSDTests {
    @Test func theQueryAsksForPointerRecordsWithAUnicastAnswer() throws {
        let query = try DNSSD.query(types: ["_companion-link._tcp"], id: 0x1234)
        let expected: [UInt8] =
            [0x12, 0x34, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0] + [15] + Array("_companion-link".utf8) + [4] + Array("_tcp".utf8) + [5]
            + Array("local".utf8) + [0, 0, 12, 0x80, 0x01]
        #expect(query == expected)
        let (id, types) = try DNSSD.questions(in: query)
        #expect(id == 0x1234 && types == ["_companion-link._tcp"])
    }

    static let living = DNSSD.Announcement(
        instance: "Living Room", type: "_companion-link._tcp", hostname: "Living-Room", port: 49153,
        txt: [("rpMd", "AppleTV14,1"), ("rpFl", "0x20000")], addresses: [[192, 0, 2, 7]])

    @Test func anAnswerReadsBackIntoItsServices() throws {
        let info = DNSSD.Announcement(
            instance: "Living Room", type: "_device-info._tcp", hostname: "Other-Host", port: 0, txt: [("model", "AppleTV14,1")], addresses: [])
        let answer = try DNSSD.answer(id: 7, services: [Self.living, info])
        let services = try DNSSD.services(in: answer, sender: "127.0.0.1")
        #expect(services.count == 2)
        let companion = try #require(services.first { $0.type == "_companion-link._tcp" })
        #expect(companion.name == "Living Room" && companion.host == "Living-Room" && companion.port == 49153)
        #expect(companion.addresses == ["192.0.2.7"])
        // TXT keys as discovery gives them: lowercased.
        #expect(companion.txt == ["rpmd": "AppleTV14,1", "rpfl": "0x20000"])
        // Without an address record, the sender's address stands in.
        #expect(services.first { $0.type == "_device-info._tcp" }?.addresses == ["127.0.0.1"])
    }

    /// Responders compress names: a pointer back to the service type, and the instance's
    /// records pointing at the instance name in the answer.
    @Test func compressedNamesAreFollowed() throws {
        var message: [UInt8] = [0, 9, 0x84, 0, 0, 0, 0, 1, 0, 0, 0, 1]
        let typeOffset = message.count
        message += [4] + Array("_tv_".utf8) + [4] + Array("_tcp".utf8) + [5] + Array("local".utf8) + [0]
        message += [0, 12, 0, 1, 0, 0, 0, 10]
        let instanceOffset = message.count + 2
        let pointerData: [UInt8] = [2] + Array("tv".utf8) + [0xC0, UInt8(typeOffset)]
        message += [0, UInt8(pointerData.count)] + pointerData
        // SRV owned by the instance (a pointer), target "tv.local" via a pointer to "local".
        let localOffset = typeOffset + 10
        let srvData: [UInt8] = [0, 0, 0, 0, 0x1F, 0x90] + [2] + Array("tv".utf8) + [0xC0, UInt8(localOffset)]
        message += [0xC0, UInt8(instanceOffset), 0, 33, 0x80, 1, 0, 0, 0, 10, 0, UInt8(srvData.count)] + srvData
        let services = try DNSSD.services(in: message, sender: "127.0.0.1")
        #expect(services == [DiscoveredService(name: "tv", type: "_tv_._tcp", host: "tv", addresses: ["127.0.0.1"], port: 8080, txt: [:])])
    }

    @Test func hostileAnswersFailClearly() throws {
        let good = try DNSSD.answer(id: 1, services: [Self.living])
        var cases: [(String, [UInt8])] = [
            ("short", [0, 1, 0x84]), ("truncated", Array(good.dropLast(3))), ("a query", try DNSSD.query(types: ["_x._tcp"], id: 1)),
            ("counts that lie", [0, 1, 0x84, 0, 0, 0, 0xFF, 0xFF, 0, 0, 0, 0] + Array(repeating: 0, count: 20)),
            ("oversize", [0, 1, 0x84, 0, 0, 0, 0, 0, 0, 0, 0, 0] + Array(repeating: 0, count: DNSSD.maximumMessageSize)),
        ]
        // A name that points at itself, and one that points forward.
        let header: [UInt8] = [0, 1, 0x84, 0, 0, 0, 0, 1, 0, 0, 0, 0]
        cases.append(("a pointer to itself", header + [0xC0, 12] + [0, 12, 0, 1, 0, 0, 0, 10, 0, 0]))
        cases.append(("a pointer forward", header + [0xC0, 14, 0] + [0, 12, 0, 1, 0, 0, 0, 10, 0, 0]))
        // Two names pointing at each other through labels.
        cases.append(("a pointer loop", header + [1, 0x61, 0xC0, 12] + [0, 12, 0, 1, 0, 0, 0, 10, 0, 0]))
        // A name over 255 bytes, a label type that does not exist, data past the record.
        let label: [UInt8] = [63] + Array(repeating: 0x61, count: 63)
        let long: [UInt8] = label + label + label + label + label + [0]
        cases.append(("a long name", header + long + [0, 12, 0, 1, 0, 0, 0, 10, 0, 0]))
        cases.append(("label type 0x40", header + [0x40, 0] + [0, 12, 0, 1, 0, 0, 0, 10, 0, 0]))
        cases.append(("rdata past the end", header + [0] + [0, 12, 0, 1, 0, 0, 0, 10, 0, 200, 0]))
        for (name, bytes) in cases {
            let error = #expect(throws: PhotonError.self, "\(name)") { try DNSSD.services(in: bytes, sender: "127.0.0.1") }
            #expect(error?.code == .protocolViolation, "\(name)")
        }
    }

    /// What an answer carries is untrusted: names are sanitised, a pointer to an instance
    /// of another type is ignored, and an instance without SRV is left out.
    @Test func unmatchedAndHostileRecordsAreLeftOut() throws {
        let evil = DNSSD.Announcement(
            instance: "Evil\u{1B}[31m", type: "_companion-link._tcp", hostname: "h", port: 1, txt: [], addresses: [])
        let services = try DNSSD.services(in: try DNSSD.answer(id: 1, services: [evil]), sender: "127.0.0.1")
        #expect(services.count == 1)
        #expect(!(services.first?.name.contains("\u{1B}") ?? true))
        // A PTR whose instance has no SRV record.
        var message: [UInt8] = [0, 1, 0x84, 0, 0, 0, 0, 1, 0, 0, 0, 0]
        message += try DNSSD.encodeName("_a._tcp.local") + [0, 12, 0, 1, 0, 0, 0, 10]
        let target = try DNSSD.encodeName("x._a._tcp.local")
        message += [0, UInt8(target.count)] + target
        #expect(try DNSSD.services(in: message, sender: "127.0.0.1").isEmpty)
    }
}
