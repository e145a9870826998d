import Foundation
import LineTV
import PhotonCore
import PhotonCrypto
import PhotonNet

// Runs a toy LineTV on loopback, registers the LineTV adapter next to nothing else, pairs,
// and sends three keys through the real network stack. Exits 0 when the TV saw them.

let listener = try TCPListener(host: "127.0.0.1", port: 0)
let received = Locked<[String]>([])
let tv = Task {
    let connection = try await listener.accept()
    var buffer: [UInt8] = []
    while true {
        let bytes = try await connection.read(maxLength: 1024, timeout: .seconds(5))
        if bytes.isEmpty { break }
        buffer += bytes
        while let newline = buffer.firstIndex(of: 10) {
            let line = String(decoding: buffer[..<newline], as: UTF8.self)
            buffer.removeSubrange(...newline)
            received.withLock { $0.append(line) }
            try await connection.write(Array("OK\n".utf8))
        }
    }
}

struct NoQuestions: PairingResponder {
    func answer(_ challenge: PairingChallenge) async throws -> PairingAnswer { .wait }
}

let registry = AdapterRegistry([LineTVAdapter()])  // a host lists its adapters in one place
let adapter = try registry.adapter(id: "linetv")
let identity = try IdentityFactory.makeClientIdentity(commonName: "example")
let context = AdapterContext(connector: NetConnector(), clientIdentity: identity, timeout: .seconds(5))
let paired = try await adapter.pairing(with: Endpoint(host: "127.0.0.1", port: listener.port), options: [:], context: context)
    .run(responder: NoQuestions())
let session = try await adapter.openSession(device: paired.device, secrets: paired.secrets, context: context)
for key in [RemoteKey.home, .down, .select] { try await session.send(.key(.key(key), .press)) }
await session.close()
_ = await tv.result
listener.close()

let lines = received.withLock { $0 }
print("LineTV received: \(lines.joined(separator: ", "))")
exit(lines == ["KEY HOME", "KEY DOWN", "KEY OK"] ? 0 : 1)
