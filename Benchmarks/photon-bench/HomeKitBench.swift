import Foundation
import PhotonCore
import PhotonEmulatorSupport
import PhotonHAP
import PhotonKit
import PhotonNet
import PhotonPlugins
import PhotonService
import PhotonStore
import Roku
import RokuEmulator

/// The HomeKit row of `make bench`: a RemoteKey write from aiohomekit 4.0.1 (Home
/// Assistant's HomeKit controller) through the door of a daemon in this process to the
/// emulated Roku and back — the door answers once the TV has taken the key.
enum HomeKitBench {
    static func run(python: String, repositoryRoot: URL) async throws -> [String] {
        let receipts = AndroidTVBench.Receipts()
        var configuration = EmulatedRoku.Configuration()
        configuration.port = 0
        let tv = try EmulatedRoku.start(configuration) { event in
            if event.name == "key" { receipts.add(event.time) }
        }
        defer { Task { await tv.stop() } }
        let bench = try await BenchHome.make("homekit")
        defer { bench.remove() }
        var paired = try await RokuAdapter(pollInterval: .seconds(60)).pairing(
            with: Endpoint(host: "127.0.0.1", port: tv.port), options: AdapterOptionValues(), context: bench.context
        ).run(responder: RokuBench.NoQuestions())
        paired.device.nickname = "bench-roku"
        try await bench.store.save(paired)
        let photon = try Photon(
            adapters: BuiltInPlugins.adapters, paths: bench.store.paths, timeout: .seconds(5), policy: .keepWarm(ReconnectBackoff()),
            cachesStore: true)
        var settings = HomeKitDoorSettings()
        settings.address = "127.0.0.1"
        settings.announces = false
        let door = HomeKitDoor(photon: photon, settings: settings, log: ServiceLog(notice: { _ in }, debug: .silent))
        try await door.start()
        defer { Task { await door.stop() } }
        let identity = try await bench.store.homeKitAccessory(for: paired.device.id).identity
        guard let port = door.ports[paired.device.id] else { throw PhotonError(.internal, "the door opened no accessory") }

        let peer = Process()
        peer.executableURL = URL(fileURLWithPath: python)
        peer.arguments = [repositoryRoot.appendingPathComponent("Tests/peers/homekit_controller.py").path, String(port), identity.deviceID]
        let input = Pipe()
        let output = Pipe()
        peer.standardInput = input
        peer.standardOutput = output
        try peer.run()
        defer { peer.terminate() }
        let lines = output.fileHandleForReading
        func ask(_ command: String) throws -> JSONValue {
            input.fileHandleForWriting.write(Data((command + "\n").utf8))
            var line: [UInt8] = []
            while true {
                let byte = lines.readData(ofLength: 1)
                guard let first = byte.first else { throw PhotonError(.connectionClosed, "aiohomekit ended") }
                if first == 10 { break }
                line.append(first)
            }
            let answer = try JSONValue.parse(line)
            if let error = answer["error"]?.stringValue { throw PhotonError(.internal, "aiohomekit: \(error)") }
            return answer
        }
        _ = try ask("pair \(identity.setupCode.formatted)")
        _ = try ask("bench 20")
        let before = receipts.count
        let count = 300
        let times = try ask("bench \(count)")["milliseconds"]?.arrayValue?.compactMap(\.doubleValue) ?? []
        try await receipts.waitFor(before + count)
        let stats = Stats(samples: times.map { $0 / 1000 })
        return [
            "| HomeKit: RemoteKey write → the TV's receipt and the answer, aiohomekit through `photon serve --homekit` to the Roku (p50) | \(ms(stats.p50)) | — | — |",
            "| HomeKit: the same (p99) | \(ms(stats.p99)) | — | — |",
        ]
    }
}
