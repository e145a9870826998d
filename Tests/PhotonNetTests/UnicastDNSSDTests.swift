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
}
