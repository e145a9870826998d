import Foundation
import PhotonCore
import PhotonNet
import PhotonTestSupport
import Testing

/// SSDP parsing from recorded answers, and a search sent only to loopback.
@Suite struct SSDPTests {
    static let samsungAnswer =
        "HTTP/1.1 200 OK\r\nCACHE-CONTROL: max-age=1800\r\nDATE: Sun, 01 Jan 2023 00:00:00 GMT\r\nEXT:\r\nLOCATION: http://127.0.0.1:7676/smp_15_\r\nSERVER: SHP, UPnP/1.0, Samsung UPnP SDK/1.0\r\nST: urn:samsung.com:device:RemoteControlReceiver:1\r\nUSN: uuid:29b76356-aaaa-bbbb::urn:samsung.com:device:RemoteControlReceiver:1\r\nContent-Length: 0\r\n\r\n"

    @Test func parsesRecordedAnswers() throws {
        let answer = try SSDP.parse(Array(Self.samsungAnswer.utf8))
        #expect(answer.host == "127.0.0.1")
        #expect(answer.searchTarget == "urn:samsung.com:device:RemoteControlReceiver:1")
        #expect(answer.server == "SHP, UPnP/1.0, Samsung UPnP SDK/1.0")
        let notify =
            "NOTIFY * HTTP/1.1\r\nHOST: 239.255.255.250:1900\r\nLOCATION: http://127.0.0.2:9197/dmr\r\nNT: urn:schemas-upnp-org:device:MediaRenderer:1\r\nNTS: ssdp:alive\r\nUSN: uuid:x::urn:schemas-upnp-org:device:MediaRenderer:1\r\n\r\n"
        #expect(try SSDP.parse(Array(notify.utf8)).searchTarget == "urn:schemas-upnp-org:device:MediaRenderer:1")
        let request = String(decoding: SSDP.searchRequest(target: "urn:samsung.com:device:RemoteControlReceiver:1"), as: UTF8.self)
        #expect(request.hasPrefix("M-SEARCH * HTTP/1.1\r\n") && request.contains("MAN: \"ssdp:discover\"") && request.hasSuffix("\r\n\r\n"))
    }

    @Test func malformedAnswersAreRefused() {
        let cases = [
            "", "GET / HTTP/1.1\r\n\r\n", "HTTP/1.1 200 OK\r\nST: x\r\nUSN: y\r\n\r\n",
            "HTTP/1.1 200 OK\r\nLOCATION: ftp://1.2.3.4/\r\nST: x\r\nUSN: y\r\n\r\n", "HTTP/1.1 200 OK\r\nno colon\r\n\r\n",
            "HTTP/1.1 200 OK\r\n" + String(repeating: "X: y\r\n", count: 500),
        ]
        for bad in cases { #expect(throws: PhotonError.self, "\(bad.prefix(30))") { try SSDP.parse(Array(bad.utf8)) } }
        #expect(throws: PhotonError.self) { try SSDP.parse([0xFF, 0xFE, 0x00]) }
    }

    @Test func aLocationMustNameTheSender() throws {
        let bytes = Array(Self.samsungAnswer.utf8)
        #expect(try SSDP.parse(bytes, sender: "127.0.0.1").host == "127.0.0.1")
        #expect(try SSDP.parse(bytes, sender: "::ffff:127.0.0.1").host == "127.0.0.1")
        #expect(throws: PhotonError.self) { try SSDP.parse(bytes, sender: "127.0.0.2") }
    }

    @Test func unicastSearchFindsALoopbackResponder() async throws {
        // A fake Samsung set on loopback answering M-SEARCH; never multicast in tests.
        let responder = try UDPReceiver(host: "127.0.0.1", port: 0)
        defer { responder.close() }
        let answering = Task {
            while let (bytes, from) = try? await responder.receive(timeout: .seconds(10)) {
                guard String(decoding: bytes, as: UTF8.self).hasPrefix("M-SEARCH") else { continue }
                try? responder.send(Array(Self.samsungAnswer.utf8), to: from.host, port: from.port)
                try? responder.send(Array("garbage".utf8), to: from.host, port: from.port)
                // Another host's address in LOCATION: dropped, not taken as a TV there.
                try? responder.send(
                    Array(
                        Self.samsungAnswer.replacingOccurrences(of: "127.0.0.1:7676", with: "127.0.0.9:7676").replacingOccurrences(
                            of: "29b76356", with: "spoofed0"
                        ).utf8),
                    to: from.host, port: from.port)
            }
        }
        defer { answering.cancel() }
        let answers = try await SSDPSearcher.search(
            targets: ["urn:samsung.com:device:RemoteControlReceiver:1"], host: "127.0.0.1", port: responder.port, timeout: .milliseconds(700))
        #expect(answers.count == 1)
        #expect(answers.first?.usn.hasPrefix("uuid:29b76356") == true)
        #expect(!answers.contains { $0.usn.contains("spoofed0") })

        // Through the CLI: the answer becomes a Samsung TV line.
        let photon = TestEnvironment.repositoryRoot.appendingPathComponent(".build/debug/photon").path
        let p = try TestProcess(
            photon,
            [
                "discover", "--brand", "samsung", "--timeout", "1", "--ssdp", "127.0.0.1:\(responder.port)", "--json", "--home",
                try TestEnvironment.temporaryDirectory().path,
            ])
        #expect(await p.waitForExit(timeout: .seconds(10)) == 0, "\(p.standardError)")
        #expect(p.standardOutput.contains(#""brand":"samsung""#))
        #expect(p.standardOutput.contains(#""id":"uuid:29b76356-aaaa-bbbb""#))
        #expect(p.standardOutput.contains(#""service":"ssdp:urn:samsung.com:device:RemoteControlReceiver:1""#))
    }
}
