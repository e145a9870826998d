import Foundation
import PhotonCore
import PhotonJSON
import PhotonKit
import PhotonStore
import PhotonTestSupport
import PhotonWire

/// One brand's emulated TV behind fault proxies (one per port the TV is reached on), a
/// paired store whose record points at the proxies, `photon serve` on that store, and
/// the clients the fault suite sends through.
final class FaultLab: Sendable {
    let brand: String
    let emulator: EmulatorProcess
    let home: URL
    let proxies: ProxyGroup
    let daemon: TestProcess
    let clients: [DaemonClient]
    let watcher: DaemonClient
    private let next = Locked(0)
    /// Unix seconds minus CLOCK_MONOTONIC seconds: the emulator stamps its events with
    /// the monotonic clock, the commands carry Unix times.
    let clockOffset = Date().timeIntervalSince1970 - PhaseTimer.monotonicSeconds()

    /// Every proxy of one TV, switched together.
    struct ProxyGroup: Sendable {
        let proxies: [FaultProxy]
        func set(_ fault: FaultProxy.Fault) async { for proxy in proxies { await proxy.set(fault) } }
        var connectionsAccepted: Int { proxies.reduce(0) { $0 + $1.connectionsAccepted } }
    }

    private init(
        brand: String, emulator: EmulatorProcess, home: URL, proxies: ProxyGroup, daemon: TestProcess, clients: [DaemonClient],
        watcher: DaemonClient
    ) {
        self.brand = brand
        self.emulator = emulator
        self.home = home
        self.proxies = proxies
        self.daemon = daemon
        self.clients = clients
        self.watcher = watcher
    }

    static func start(_ brand: String, clients count: Int = FaultInjectionTests.clients) async throws -> FaultLab {
        let emulator: EmulatorProcess
        switch brand {
        case "androidtv": emulator = try await EmulatorProcess.androidTV()
        case "samsung": emulator = try await EmulatorProcess.samsung()
        case "roku": emulator = try await EmulatorProcess.start(["roku", "--port", "0"])
        case "lg": emulator = try await EmulatorProcess.start(["lg", "--port", "0", "--plain-port", "0"])
        default: throw TestFailure("no fault lab for \(brand)")
        }
        let home = try await TestEnvironment.home("photon-faults-\(brand)")
        try await pair(emulator, brand: brand, home: home)

        // Every port the record names goes through a proxy of its own.
        let store = Store(paths: StorePaths(home: home))
        let record = try await store.device(named: "tv")
        var proxied: [UInt16: FaultProxy] = [:]
        for port in Set([record.port] + Array(record.ports.values)) { proxied[port] = try FaultProxy(to: port) }
        let through = proxied.mapValues(\.port)
        try await store.update { devices, _ in
            guard let i = devices.devices.firstIndex(where: { $0.id == record.id }) else { return }
            devices.devices[i].port = through[record.port]!
            for (name, port) in record.ports { devices.devices[i].ports[name] = through[port]! }
        }
        let proxies = ProxyGroup(proxies: Array(proxied.values))

        let daemon = try TestProcess(try AndroidTVEndToEndTests.binary("photon"), ["serve", "--json", "--preconnect", "--home", home.path])
        try await daemon.waitFor("\"event\":\"ready\"")
        let socket = StorePaths(home: home).socketFile.path
        var clients: [DaemonClient] = []
        for _ in 0..<count { clients.append(try await DaemonClient.connect(path: socket, timeout: .seconds(5))) }
        let watcher = try await DaemonClient.connect(path: socket, timeout: .seconds(5))
        let lab = FaultLab(brand: brand, emulator: emulator, home: home, proxies: proxies, daemon: daemon, clients: clients, watcher: watcher)
        try await lab.waitUntilConnected(within: .seconds(15))
        return lab
    }

    /// Pairs with the emulator directly (the proxies come after).
    private static func pair(_ emulator: EmulatorProcess, brand: String, home: URL) async throws {
        let photon = try AndroidTVEndToEndTests.binary("photon")
        if brand == "androidtv" {
            let p = try await AndroidTVEndToEndTests().pair(emulator, home: home, name: "tv")
            guard await p.waitForExit() == 0 else { throw TestFailure("pairing failed: \(p.standardError)") }
            return
        }
        var arguments = ["pair", "127.0.0.1:\(emulator.port)", "--brand", brand, "--name", "tv", "--home", home.path]
        if brand != "roku" { arguments += ["--trust", emulator.fingerprint] }
        if brand == "samsung" { arguments += ["--rest-port", String(emulator.restPort)] }
        let p = try TestProcess(photon, arguments)
        p.closeStandardInput()
        guard await p.waitForExit() == 0 else { throw TestFailure("pairing failed: \(p.standardError)") }
    }

    /// Ends everything the lab started, and waits for it: the next test starts with no
    /// daemon, emulator or proxied connection of this one still running.
    func stop() async {
        for client in clients + [watcher] { await client.close() }
        daemon.terminate()
        emulator.process.terminate()
        for proxy in proxies.proxies { await proxy.stop() }
    }

    /// Sends the text `x<4 digits>` through the next client; returns its one answer.
    func send(number: Int, lifetime: Double) async throws -> FaultInjectionTests.Answer {
        let client = next.withLock { n -> DaemonClient in
            defer { n += 1 }
            return clients[n % clients.count]
        }
        let now = Date().timeIntervalSince1970
        let expiresAt = now + lifetime
        let fields = DaemonWire.sendFields(
            tv: "tv", commandID: UUID().uuidString, issuedAt: now, expiresAt: expiresAt, command: DaemonWire.Command.text(Self.text(number)))
        do {
            // The answer is due by the expiry (or soon after, for a write in flight):
            // waiting longer than 5 s past it means it was lost.
            let answer = try await client.request("send", fields, timeout: .seconds(lifetime + 5))
            return .init(number: number, expiresAt: expiresAt, code: "ok", acknowledged: answer["acknowledged"]?.boolValue, message: "")
        } catch let error as PhotonError {
            let said = error.message + " " + (error.hint ?? "")
            if error.message.contains("waiting for the daemon") || error.message.contains("the daemon closed") {
                return .init(number: number, expiresAt: expiresAt, code: "no answer", acknowledged: nil, message: said)
            }
            let notSent = said.contains("was not sent") && !said.contains("the rest was not sent")
            return .init(number: number, expiresAt: expiresAt, code: notSent ? "expired" : error.code.rawValue, acknowledged: nil, message: said)
        }
    }

    /// Short, since Roku types one character per request.
    static func text(_ number: Int) -> String { "x" + String(format: "%04d", number) }

    /// The daemon's resident memory in KiB.
    func daemonMemory() throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(daemon.process.processIdentifier)/status", encoding: .utf8)
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
            let kib = Int(line.split(separator: " ").dropFirst().first ?? "")
        else { throw TestFailure("no VmRSS in the daemon's status") }
        return kib
    }

    /// Waits until the daemon reports its connection to the TV as connected (its `list`).
    func waitUntilConnected(within limit: Duration) async throws {
        let end = ContinuousClock.now + limit
        while true {
            let list = try await watcher.request("list", timeout: .seconds(5))
            if list["tvs"]?.arrayValue?.first?["connection"]?.stringValue == "connected" { return }
            guard ContinuousClock.now < end else {
                throw TestFailure(
                    "the daemon did not connect to the \(brand) TV within \(limit) (\(list["tvs"]?.arrayValue?.first?["connection"]?.stringValue ?? "?")); its log ends: \(daemon.standardError.suffix(1500))"
                )
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Waits until the TV's log stops growing (what the daemon wrote has all arrived).
    func settle() async throws {
        var last = -1
        for _ in 0..<100 {
            let count = emulator.process.standardOutput.utf8.count
            if count == last { return }
            last = count
            try await Task.sleep(for: .milliseconds(150))
        }
    }

    /// The texts as the TV received them, split back into commands at each `x`: four
    /// digits are a whole one, fewer a cut one (Roku types one character per request, so
    /// its characters are put back together first).
    func deliveries() -> [FaultReport.Delivery] {
        var characters: [(Character, Double)] = []
        for event in emulator.events("text") {
            guard let text = event["text"] as? String, let t = event["t"] as? Double else { continue }
            let at = t + clockOffset
            if brand == "roku" {
                if let last = text.last { characters.append((last, at)) }
            } else {
                characters += text.map { ($0, at) }
            }
        }
        var deliveries: [FaultReport.Delivery] = []
        var digits: String?
        var lastAt = 0.0
        func flush() {
            if let digits {
                let whole = digits.count == 4
                deliveries.append(.init(number: whole ? Int(digits) : nil, complete: whole, lastAt: lastAt))
            }
            digits = nil
        }
        for (character, at) in characters {
            if character == "x" {
                flush()
                digits = ""
            } else {
                digits?.append(character)
            }
            lastAt = at
        }
        flush()
        return deliveries
    }

    /// A fault and how long it lasts, drawn from `random`.
    static func randomFault(_ random: inout SeededGenerator) -> (FaultProxy.Fault, Duration) {
        switch Int.random(in: 0..<10, using: &random) {
        case 0...2:
            return (.latency(.milliseconds(Int.random(in: 20...120, using: &random))), .milliseconds(Int.random(in: 100...400, using: &random)))
        case 3...4: return (.stall, .milliseconds(Int.random(in: 50...300, using: &random)))
        case 5...6: return (.cut, .milliseconds(Int.random(in: 30...150, using: &random)))
        case 7: return (.reset, .milliseconds(Int.random(in: 30...150, using: &random)))
        default: return (.blackHole, .milliseconds(Int.random(in: 100...600, using: &random)))
        }
    }
}
