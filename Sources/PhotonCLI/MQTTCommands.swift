import Foundation
import PhotonCore
import PhotonMQTT

/// The broker URL of `photon serve --mqtt` and `photon mqtt login`: `mqtt://HOST[:PORT]`
/// (1883) or `mqtts://HOST[:PORT]` (8883). Credentials never go in the URL: they are kept
/// in the secret store by `photon mqtt login`.
struct BrokerURL: Sendable, Equatable {
    var host: String
    var port: UInt16
    var secure: Bool

    init(_ text: String) throws {
        let secure: Bool
        let rest: Substring
        if text.hasPrefix("mqtts://") {
            secure = true
            rest = text.dropFirst(8)
        } else if text.hasPrefix("mqtt://") {
            secure = false
            rest = text.dropFirst(7)
        } else {
            throw PhotonError(.usage, "the broker is mqtt://HOST[:PORT] or mqtts://HOST[:PORT], not '\(Redaction.sanitize(text))'")
        }
        guard !rest.contains("@") else {
            throw PhotonError(
                .usage, "no username or password in the broker URL",
                hint: "store them with `photon mqtt login URL`: they stay out of process lists and logs")
        }
        let authority = rest.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
        let endpoint = try Endpoint(parsing: authority, defaultPort: secure ? 8883 : 1883)
        host = endpoint.host
        port = endpoint.port
        self.secure = secure
    }
}

/// `photon mqtt login URL`: stores the broker's username and password (0600, never printed).
enum MQTTLoginCommand {
    static let spec = CommandSpec(
        ["mqtt", "login"], summary: "store the MQTT broker's username and password", arguments: "URL", minimumArguments: 1, maximumArguments: 1,
        options: [OptionSpec("username", value: "NAME", help: "the username (else asked for)")],
        details: "The password is read from the terminal (or one line of stdin) and kept in the secret store; `photon serve --mqtt URL` uses them.",
        examples: ["photon mqtt login mqtts://broker.lan", "printf 'secret\\n' | photon mqtt login mqtt://127.0.0.1:1883 --username photon"],
        run: run)

    static func run(_ parsed: ParsedCommand, _ context: CLIContext) async throws -> Int32 {
        let url = try BrokerURL(parsed.arguments[0])
        var username = parsed.value("username")
        if username == nil {
            if context.terminal.isInteractive { context.terminal.writeError("Username: ") }
            username = context.terminal.readLine()?.trimmingCharacters(in: .whitespaces)
        }
        guard let username, !username.isEmpty, username.utf8.count <= 256 else {
            throw PhotonError(.usage, "no username was given", hint: "pass --username NAME")
        }
        if context.terminal.isInteractive { context.terminal.writeError("Password (not shown): ") }
        guard let password = context.terminal.readSecretLine(), !password.isEmpty, password.utf8.count <= 1024 else {
            throw PhotonError(.usage, "no password was given", hint: "type it at the prompt, or pipe one line on stdin")
        }
        try await context.store.saveBrokerCredentials(host: url.host, port: url.port, username: username, password: password)
        context.emit(
            .object([("stored", .string("\(url.host):\(url.port)")), ("username", .string(username))]),
            text: "Stored the login for \(url.host):\(url.port) (user \(Redaction.sanitize(username))).")
        return 0
    }
}
