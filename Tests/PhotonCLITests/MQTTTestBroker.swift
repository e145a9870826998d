import Foundation
import PhotonCore
import PhotonNet
import PhotonTestSupport

extension MQTTBridgeTests {
    /// A mosquitto broker on a free loopback port (local-only mode: no config file).
    final class Broker {
        let port: UInt16
        private(set) var process: TestProcess
        init(port: UInt16? = nil, config: String? = nil) async throws {
            let chosen = try port ?? Self.freePort()
            self.port = chosen
            process = try Self.launch(chosen, config: config)
            try await Self.waitUntilListening(chosen)
        }
        static func launch(_ port: UInt16, config: String?) throws -> TestProcess {
            guard FileManager.default.isExecutableFile(atPath: "/usr/sbin/mosquitto") else {
                throw TestFailure("no /usr/sbin/mosquitto: scripts/setup.sh test installs it")
            }
            if let config { return try TestProcess("/usr/sbin/mosquitto", ["-c", config]) }
            return try TestProcess("/usr/sbin/mosquitto", ["-p", String(port)])
        }
        static func freePort() throws -> UInt16 {
            let result = try TestEnvironment.run(
                "/usr/bin/python3", ["-c", "import socket; s=socket.socket(); s.bind(('127.0.0.1',0)); print(s.getsockname()[1])"])
            guard let port = UInt16(result.output.trimmingCharacters(in: .whitespacesAndNewlines)) else { throw TestFailure("no free port") }
            return port
        }
        static func waitUntilListening(_ port: UInt16) async throws {
            for _ in 0..<100 {
                if try TestEnvironment.run("/usr/bin/python3", ["-c", "import socket; socket.create_connection(('127.0.0.1',\(port)),0.2)"]).status
                    == 0
                {
                    return
                }
                try await Task.sleep(for: .milliseconds(50))
            }
            throw TestFailure("mosquitto did not start on \(port)")
        }
        func restart(config: String? = nil, whileDown: () async throws -> Void = {}) async throws {
            process.terminate()
            _ = await process.waitForExit()
            try await whileDown()
            process = try Self.launch(port, config: config)
            try await Self.waitUntilListening(port)
        }
        deinit { process.terminate() }
    }

    /// The HA side: paho-mqtt subscribed to the discovery prefix and a site's topics.
    final class HomeAssistant {
        let process: TestProcess
        /// The daemon under test: its (verbose) log goes into a failure's message.
        var daemon: TestProcess?
        init(port: UInt16, site: String, prefix: String = "homeassistant") async throws {
            process = try TestProcess(try TestEnvironment.python, [TestEnvironment.peerScript("ha_client.py"), String(port), prefix, site])
            try await process.waitFor("READY")
        }
        var messages: [(topic: String, payload: String, retain: Bool)] {
            process.standardOutput.split(separator: "\n").compactMap { line in
                guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], let topic = object["topic"] as? String
                else { return nil }
                return (topic, object["payload"] as? String ?? "", object["retain"] as? Bool ?? false)
            }
        }
        func payloads(_ topic: String) -> [String] { messages.filter { $0.topic == topic }.map(\.payload) }
        func publish(_ topic: String, _ payload: String, retain: Bool = false) async throws {
            let before = process.standardOutput.components(separatedBy: "\"published\"").count
            process.writeToStandardInput("pub \(topic) \(payload.isEmpty ? "-" : payload)\(retain ? " retain" : "")\n")
            for _ in 0..<200 where process.standardOutput.components(separatedBy: "\"published\"").count == before {
                try await Task.sleep(for: .milliseconds(10))
            }
        }
        func wait(_ what: String, within limit: Duration = .seconds(15), _ condition: () -> Bool) async throws {
            let end = ContinuousClock.now + limit
            while !condition() {
                guard ContinuousClock.now < end else {
                    let log = daemon.map {
                        "\nthe daemon's log, last lines:\n" + $0.standardError.split(separator: "\n").suffix(40).joined(separator: "\n")
                    }
                    throw TestFailure("never saw \(what); saw \(messages.map(\.topic))\(log ?? "")")
                }
                try await Task.sleep(for: .milliseconds(20))
            }
        }
        deinit { process.terminate() }
    }
}
