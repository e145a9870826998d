import Foundation
import PhotonTestSupport

/// A `photon-emulator` process, its `ready` line parsed and its JSON events readable.
/// Immutable once started (the parsed line holds `Any` values, hence unchecked).
struct EmulatorProcess: @unchecked Sendable {
    let process: TestProcess
    let ready: [String: Any]

    var port: Int { ready["port"] as? Int ?? 0 }
    var pairingPort: Int { ready["pairing_port"] as? Int ?? 0 }
    var restPort: Int { ready["rest_port"] as? Int ?? 0 }
    var fingerprint: String { ready["fingerprint"] as? String ?? "" }

    static func start(_ arguments: [String]) async throws -> EmulatorProcess {
        let process = try TestProcess(
            try AndroidTVEndToEndTests.binary("photon-emulator"), arguments, environment: try TestEnvironment.emulatorEnvironment())
        try await process.waitFor("\"event\":\"ready\"")
        let line = process.standardOutput.split(separator: "\n").first { $0.contains("\"ready\"") }!
        let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any]
        return EmulatorProcess(process: process, ready: object)
    }

    static func androidTV(_ extra: [String] = []) async throws -> EmulatorProcess {
        try await start(["androidtv", "--port", "0", "--ping-interval", "0.5"] + extra)
    }

    static func samsung(_ extra: [String] = []) async throws -> EmulatorProcess {
        try await start(["samsung", "--port", "0", "--rest-port", "0"] + extra)
    }

    func events(_ name: String) -> [[String: Any]] {
        process.standardOutput.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }.filter { $0["event"] as? String == name }
    }
}
