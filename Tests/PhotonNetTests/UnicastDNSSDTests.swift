import Foundation
import PhotonCore
import Testing

@testable import PhotonNet

/// The unicast DNS-SD probe asks one type per query (newcomer #13: one query with six
/// questions got a truncated answer from Avahi, and TVs went missing), and finds every TV a
/// host announces.
@Suite(.serialized) struct UnicastDNSSDTests {
    @Test func everyAnnouncedTypeIsAskedAloneAndFound() async throws {
        let types = ["_androidtvremote2._tcp", "_samsungmsf._tcp", "_companion-link._tcp", "_adb._tcp", "_viziocast._tcp", "_philipstv_s_rpc._tcp"]
        let asked = Locked<[[String]]>([])
        let responder = try UnicastDNSSDResponder(
            port: 0,
            services: types.enumerated().map { n, type in
                DNSSD.Announcement(
                    instance: "Emulated \(n)", type: type, hostname: "tv\(n).local", port: UInt16(7000 + n), txt: [("n", String(n))],
                    addresses: [[127, 0, 0, 1]])
            }, onQuery: { questions in asked.withLock { $0.append(questions) } })
        defer { responder.stop() }
        let found = try await DNSSDProber.services(host: "127.0.0.1", port: responder.port, types: types, timeout: .seconds(3))
        #expect(Set(found.map(\.type)) == Set(types), "\(found.map(\.type))")
        #expect(Set(found.map(\.port)) == Set((0..<6).map { UInt16(7000 + $0) }))
        #expect(asked.withLock { $0 }.allSatisfy { $0.count == 1 } && asked.withLock { $0.count } >= 6)
    }

    /// A host where nothing listens on the mDNS port answers the query with ICMP "port
    /// unreachable": the probe ends then, not at its timeout (an hour here: waiting it out
    /// would trip the time limit).
    @Test(.timeLimit(.minutes(1))) func aHostWithNothingOnItsMDNSPortEndsTheQueryAtOnce() async throws {
        let vacated = try UDPReceiver(host: "127.0.0.1", port: 0)
        let port = vacated.port
        vacated.close()
        let found = try await DNSSDProber.services(host: "127.0.0.1", port: port, types: ["_androidtvremote2._tcp"], timeout: .seconds(3600))
        #expect(found.isEmpty)
    }

    @Test(.timeLimit(.minutes(1))) func aConnectedReceiverHearsThatNothingListens() async throws {
        let vacated = try UDPReceiver(host: "127.0.0.1", port: 0)
        let port = vacated.port
        vacated.close()
        let socket = try UDPReceiver(host: "0.0.0.0", port: 0)
        defer { socket.close() }
        try socket.connect(to: "127.0.0.1", port: port)
        try socket.send([1, 2, 3], to: "127.0.0.1", port: port)
        await #expect {
            _ = try await socket.receive(timeout: nil)
        } throws: { ($0 as? PhotonError)?.code == .unreachable }
    }
}
