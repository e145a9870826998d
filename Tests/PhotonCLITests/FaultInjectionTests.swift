import Foundation
import PhotonCore
import PhotonJSON
import PhotonKit
import PhotonStore
import PhotonTestSupport
import Testing

/// Faults lose nothing: for every brand, the daemon (`photon serve`, a real process)
/// drives an emulated TV through a `FaultProxy` while several clients send 1,000 texts (`PHOTON_FAULT_COMMANDS` for more)
/// and the proxy injects latency, stalls, cuts, resets and black holes at random. Each
/// text is `x<4 digits>`, so what reached the TV names its command. Then:
/// - every command got exactly one definite answer (`ok`, or an error code), in time;
/// - none reached the TV twice, none after its expiry (beyond what the proxy itself held);
/// - every `ok` the TV acknowledged is on the TV; unacknowledged ones say so;
/// - after an outage the daemon is connected again within 2 s + its back-off, unasked;
/// - the daemon's memory is within 10 % of what it was before the run.
/// The figures go to the log (docs/testing.md quotes them).
@Suite(.serialized) struct FaultInjectionTests {
    static let commands = ProcessInfo.processInfo.environment["PHOTON_FAULT_COMMANDS"].flatMap { Int($0) }.map { max(100, min($0, 8000)) } ?? 1000
    static let clients = 8
    static let lifetime = 1.5
    /// The longest a fault holds bytes that then go on (a stall), plus scheduling slack:
    /// a text may reach the TV this long after its expiry without the daemon having
    /// written it late.
    static let heldTolerance = 0.5
    /// Each client's pause between its commands: 1,000 commands take about 2.5 s, long
    /// enough for a few dozen faults, and no faster than a TV takes them (an emulator
    /// that falls behind turns every outage into unacknowledged losses).
    static let pace: Duration = .milliseconds(20)

    struct Answer: Sendable {
        let number: Int
        let expiresAt: Double
        /// "ok", or the error code.
        let code: String
        let acknowledged: Bool?
        let message: String
    }

    /// Every brand, or those named in PHOTON_FAULT_BRANDS (`roku,lg`) when chasing one.
    static let brands =
        ProcessInfo.processInfo.environment["PHOTON_FAULT_BRANDS"].map { $0.split(separator: ",").map(String.init) }
        ?? ["androidtv", "samsung", "roku", "lg"]

    @Test(arguments: brands)
    func faultsLoseNothing(_ brand: String) async throws {
        let lab = try await FaultLab.start(brand)
        do {
            try await run(lab, brand)
        } catch {
            await lab.stop()
            throw error
        }
        await lab.stop()
    }

    private func run(_ lab: FaultLab, _ brand: String) async throws {
        let random = SeededGenerator(seed: UInt64(brand.utf8.reduce(0) { $0 &* 31 &+ UInt64($1) }))

        // Warm up (the first TLS handshakes, the daemon's first allocations), then measure.
        for number in 0..<20 { _ = try await lab.send(number: 9000 + number, lifetime: 5) }
        let before = try lab.daemonMemory()

        let faults = Task { [random] in
            var random = random
            while !Task.isCancelled {
                let (fault, duration) = FaultLab.randomFault(&random)
                await lab.proxies.set(fault)
                try? await Task.sleep(for: duration)
                await lab.proxies.set(.none)
                try? await Task.sleep(for: .milliseconds(Int.random(in: 100...400, using: &random)))
            }
        }
        defer { faults.cancel() }
        let started = ContinuousClock.now
        let answers = try await withThrowingTaskGroup(of: [Answer].self) { group in
            for client in 0..<Self.clients {
                group.addTask {
                    var mine: [Answer] = []
                    for index in stride(from: client, to: Self.commands, by: Self.clients) {
                        mine.append(try await lab.send(number: index, lifetime: Self.lifetime))
                        try await Task.sleep(for: Self.pace)
                    }
                    return mine
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        let elapsed = ContinuousClock.now - started
        faults.cancel()
        _ = await faults.value
        await lab.proxies.set(.none)
        // The TV takes what is still on its way before the outage cuts it.
        try await lab.settle()

        // An outage: the TV unreachable for 3 s, then back. The daemon comes back on its
        // own (nobody sends anything) within 2 s plus the back-off it had reached. (After
        // the fault run it may be waiting out a back-off of up to 30 s.)
        try await lab.waitUntilConnected(within: .seconds(40))
        await lab.proxies.set(.reset)
        try await Task.sleep(for: .seconds(3))
        let back = ContinuousClock.now
        await lab.proxies.set(.none)
        try await lab.waitUntilConnected(within: .seconds(15))
        let reconnect = ContinuousClock.now - back
        // Attempts at 0.25, 0.5, 1, 2 s … (±10 %): after 3 s away the next waits ≤ 4.4 s.
        #expect(reconnect < .seconds(2) + .milliseconds(4400), "reconnected after \(reconnect)")

        let after = try lab.daemonMemory()
        let delivered = lab.deliveries()
        let report = FaultReport(brand: brand, answers: answers, delivered: delivered, heldTolerance: Self.heldTolerance)
        print(
            "fault-injection \(brand): \(answers.count) commands in \(String(format: "%.1f", elapsed.seconds)) s over \(lab.proxies.connectionsAccepted) connections; "
                + report.summary + "; reconnect \(Int(reconnect.seconds * 1000)) ms; daemon RSS \(before / 1024) → \(after / 1024) MiB")

        #expect(answers.count == Self.commands, "every command has exactly one answer")
        #expect(report.unknownAnswers.isEmpty, "answers that are not definite: \(report.unknownAnswers.prefix(5))")
        #expect(report.duplicates.isEmpty, "delivered twice: \(report.duplicates.prefix(10))")
        #expect(report.late.isEmpty, "delivered after expiry: \(report.late.prefix(10))")
        #expect(report.acknowledgedButMissing.isEmpty, "acknowledged but not on the TV: \(report.acknowledgedButMissing.prefix(10))")
        #expect(report.refusedButDelivered.isEmpty, "answered expired yet delivered: \(report.refusedButDelivered.prefix(10))")
        #expect(report.ok > Self.commands / 4, "most of the run is clean: only \(report.ok) ok")
        #expect(Double(after) <= Double(before) * 1.10, "daemon RSS grew from \(before) KiB to \(after) KiB")
    }
}

/// What reached the TV, set against what the clients were told.
struct FaultReport {
    /// One text as the TV saw it: its number, whether it was whole, when it came (Unix s).
    struct Delivery {
        let number: Int?
        let complete: Bool
        let lastAt: Double
    }

    var ok = 0
    var unacknowledgedOK = 0
    var unacknowledgedLost = 0
    var failedCodes: [String: Int] = [:]
    var unknownAnswers: [String] = []
    var duplicates: [Int] = []
    var late: [String] = []
    var acknowledgedButMissing: [Int] = []
    var refusedButDelivered: [Int] = []
    var partial = 0

    init(brand: String, answers: [FaultInjectionTests.Answer], delivered: [Delivery], heldTolerance: Double) {
        var seen: [Int: Int] = [:]
        var whole = Set<Int>()
        for delivery in delivered {
            guard let number = delivery.number else {
                partial += 1
                continue
            }
            seen[number, default: 0] += 1
            if delivery.complete { whole.insert(number) } else { partial += 1 }
        }
        duplicates = seen.filter { $0.value > 1 }.map(\.key).sorted()
        let definite: Set<String> = [
            "ok", "expired", "unreachable", "connection_closed", "timeout", "cut_short", "tls", "protocol_violation", "duplicate", "busy",
        ]
        let byNumber = Dictionary(answers.map { ($0.number, $0) }, uniquingKeysWith: { first, _ in first })
        for answer in answers {
            if !definite.contains(answer.code) { unknownAnswers.append("\(answer.number): \(answer.code) \(answer.message)") }
            if answer.code == "ok" {
                ok += 1
                if answer.acknowledged == true {
                    if !whole.contains(answer.number) { acknowledgedButMissing.append(answer.number) }
                } else {
                    unacknowledgedOK += 1
                    if !whole.contains(answer.number) { unacknowledgedLost += 1 }
                }
            } else {
                failedCodes[answer.code, default: 0] += 1
                // Refused before anything was written: nothing of it may be on the TV.
                if answer.code == "expired", seen[answer.number] != nil { refusedButDelivered.append(answer.number) }
            }
        }
        for delivery in delivered {
            guard let number = delivery.number, let answer = byNumber[number] else { continue }
            if delivery.lastAt > answer.expiresAt + heldTolerance {
                late.append("\(number) +\(String(format: "%.3f", delivery.lastAt - answer.expiresAt)) s")
            }
        }
    }

    var summary: String {
        let failures = failedCodes.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        return "ok \(ok) (unacknowledged \(unacknowledgedOK), of which lost \(unacknowledgedLost)), failed [\(failures)], "
            + "partial texts on the TV \(partial), duplicates \(duplicates.count), late \(late.count)"
    }
}

/// A deterministic random source, so a failing run can be run again the same way.
struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64
    init(seed: UInt64) { state = seed == 0 ? 0x9E37_79B9_7F4A_7C15 : seed }
    mutating func next() -> UInt64 {
        // xorshift64*
        state ^= state >> 12
        state ^= state << 25
        state ^= state >> 27
        return state &* 0x2545_F491_4F6C_DD1D
    }
}
