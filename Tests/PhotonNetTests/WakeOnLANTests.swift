import Foundation
import PhotonCore
import PhotonNet
import PhotonTestSupport
import Testing

/// Wake-on-LAN, always to loopback: never a real broadcast address in tests.
@Suite struct WakeOnLANTests {
    @Test func magicPacketLayout() throws {
        let mac = try WakeOnLAN.parseMAC("aa:bb:cc:dd:ee:ff")
        let packet = try WakeOnLAN.magicPacket(mac: mac)
        #expect(packet.count == 102)
        #expect(Array(packet.prefix(6)) == [UInt8](repeating: 0xFF, count: 6))
        for i in 0..<16 { #expect(Array(packet[(6 + 6 * i)..<(12 + 6 * i)]) == [0xAA, 0xBB, 0xCC, 0xDD, 0xEE, 0xFF]) }
    }

    @Test func macSpellings() throws {
        let expected: [UInt8] = [0xA8, 0x71, 0x16, 0xA2, 0x31, 0x1D]
        for text in ["A8:71:16:A2:31:1D", "a8-71-16-a2-31-1d", "a87116a2311d", "a871.16a2.311d"] {
            #expect(try WakeOnLAN.parseMAC(text) == expected, "\(text)")
        }
        for bad in ["", "none", "A8:71:16:A2:31", "A8:71-16:A2:31:1D", "GG:71:16:A2:31:1D", "00:00:00:00:00:00", "ff:ff:ff:ff:ff:ff"] {
            #expect(throws: PhotonError.self, "\(bad)") { try WakeOnLAN.parseMAC(bad) }
        }
    }

    @Test func packetArrivesOnLoopback() async throws {
        let receiver = try UDPReceiver(host: "127.0.0.1", port: 0)
        defer { receiver.close() }
        let mac = try WakeOnLAN.parseMAC("02:00:00:AA:BB:CC")
        let sent = try WakeOnLANSender.wake(mac: mac, destinations: ["127.0.0.1"], ports: [receiver.port])
        #expect(sent == ["127.0.0.1:\(receiver.port)"])
        let (bytes, _) = try await receiver.receive(timeout: .seconds(5))
        #expect(try bytes == WakeOnLAN.magicPacket(mac: mac))
    }

    @Test func cliWakesAStoredTVsMAC() async throws {
        let receiver = try UDPReceiver(host: "127.0.0.1", port: 0)
        defer { receiver.close() }
        let binary = TestEnvironment.repositoryRoot.appendingPathComponent(".build/debug/photon").path
        let result = try TestEnvironment.run(
            binary, ["wake", "02:00:00:AA:BB:CC", "--broadcast", "127.0.0.1", "--port", String(receiver.port), "--json"])
        #expect(result.status == 0, "\(result.output)")
        let (bytes, _) = try await receiver.receive(timeout: .seconds(5))
        #expect(bytes.count == 102)
        #expect(Array(bytes[6..<12]) == [0x02, 0x00, 0x00, 0xAA, 0xBB, 0xCC])
        #expect(try TestEnvironment.run(binary, ["wake", "not-a-tv", "--home", try TestEnvironment.temporaryDirectory().path]).status == 1)
    }
}
