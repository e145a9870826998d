import Foundation
import LineTV
import LineTVEmulator
import PhotonConformance
import PhotonCore
import PhotonEmulatorPlugins
import PhotonEmulatorSupport
import PhotonKit
import PhotonPlugins
import PhotonStore

// A host that adds the LineTV brand to Photon's built-in ones — one registration line —
// proves it with Photon's conformance suite against its emulated TV, then drives it
// through the PhotonKit façade exactly as it would any other brand. Exits 0 when all holds.

let lineTV = BrandPlugin(LineTVAdapter(), emulator: LineTVEmulator())
let plugins = BuiltInEmulators.all + [lineTV]  // the registration: one line

// 1. The conformance suite, every check against an emulated LineTV: on the adapter's
// own session, then through the façade (router and session service in front of it).
for route in [ConformanceRoute.adapter, .facade] {
    for check in ConformanceCheck.allCases {
        do {
            print("conformance (\(route)): \(check) \(try await check.run(lineTV, route: route))")
        } catch {
            print("conformance (\(route)): \(check) FAILED: \(error)")
            exit(1)
        }
    }
}

// 2. The façade: pair with an emulated LineTV and send it keys and text, as a Swift
// program drives any TV.
let received = Locked<[String]>([])
let tv = try await LineTVEmulator().start(EmulatorSettings(values: ["port": "0"])) { event in
    if ["key", "text", "launch"].contains(event.name) { received.withLock { $0.append("\(event.name) \(event.fields.first?.1.string ?? "")") } }
}
let home = FileManager.default.temporaryDirectory.appendingPathComponent("linetv-example-\(UUID().uuidString)")
defer { try? FileManager.default.removeItem(at: home) }

struct NoQuestions: PairingResponder {
    func answer(_ challenge: PairingChallenge) async throws -> PairingAnswer { .wait }
}

let photon = try Photon(adapters: AdapterRegistry(plugins.map(\.adapter)), paths: StorePaths(home: home))
try await photon.save(try await photon.pair("127.0.0.1:\(tv.ports["control"]!)", brand: "linetv", responder: NoQuestions()), nickname: "den")
let den = try await photon.connect("den")
for key in [RemoteKey.home, .down, .select] { try await den.send(.key(.key(key), .press)) }
try await den.send(.text("hello"))
await den.close()
await tv.stop()

let lines = received.withLock { $0 }
print("LineTV received: \(lines.joined(separator: ", "))")
exit(lines == ["key HOME", "key DOWN", "key OK", "text hello"] ? 0 : 1)
