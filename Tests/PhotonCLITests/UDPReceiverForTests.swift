import PhotonNet

/// A loopback UDP listener for Wake-on-LAN tests.
final class UDPReceiverForTests {
    let receiver: UDPReceiver
    init(port: UInt16) throws { receiver = try UDPReceiver(host: "127.0.0.1", port: port) }
    func receive() async throws -> [UInt8] { try await receiver.receive(timeout: .seconds(10)).0 }
    func close() { receiver.close() }
}
