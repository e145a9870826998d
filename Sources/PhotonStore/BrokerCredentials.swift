import PhotonCore

/// The MQTT broker's username and password, kept in the secret file (0600) beside the
/// TVs' secrets, under a key no TV id can take (`mqtt-broker:HOST:PORT`).
extension Store {
    static func brokerKey(host: String, port: UInt16) -> String { "mqtt-broker:\(host.lowercased()):\(port)" }

    public func brokerCredentials(host: String, port: UInt16) async throws -> (username: String, password: String)? {
        let secrets = try await snapshot().secrets.devices[Self.brokerKey(host: host, port: port)]
        guard let username = secrets?["username"], let password = secrets?["password"] else { return nil }
        return (username, password)
    }

    public func saveBrokerCredentials(host: String, port: UInt16, username: String, password: String) async throws {
        try await update { _, secrets in
            secrets.devices[Self.brokerKey(host: host, port: port)] = DeviceSecrets(values: ["username": username, "password": password])
        }
    }
}
