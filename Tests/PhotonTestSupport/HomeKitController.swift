import Foundation
import PhotonCore

/// aiohomekit's IP controller (`Tests/peers/homekit_controller.py`) pointed at one HomeKit
/// accessory on loopback, driven one command at a time: each answer is its JSON line.
public final class HomeKitController: Sendable {
    public let process: TestProcess

    public init(port: UInt16, accessoryID: String) throws {
        process = try TestProcess(
            try TestEnvironment.python, [TestEnvironment.peerScript("homekit_controller.py"), String(port), accessoryID])
    }

    /// Sends `command` and waits for its answer.
    public func ask(_ command: String, timeout: Duration = .seconds(30)) async throws -> [String: Any] {
        let before = process.standardOutput.split(separator: "\n").count
        process.writeToStandardInput(command + "\n")
        let end = ContinuousClock.now + timeout
        while ContinuousClock.now < end {
            let lines = process.standardOutput.split(separator: "\n")
            if lines.count > before {
                guard let answer = try JSONSerialization.jsonObject(with: Data(lines[before].utf8)) as? [String: Any] else {
                    throw TestFailure("aiohomekit answered '\(command)' with \(lines[before])")
                }
                return answer
            }
            if process.status != nil { break }
            try await Task.sleep(for: .milliseconds(5))
        }
        throw TestFailure("no answer to '\(command)'.\nstdout: \(process.standardOutput)\nstderr: \(process.standardError)")
    }

    /// Ends the controller (it closes its session first).
    public func stop() async {
        process.closeStandardInput()
        await process.waitForExit(timeout: .seconds(10))
    }
}
