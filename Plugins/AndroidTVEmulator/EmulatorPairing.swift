import AndroidTV
import Foundation
import PhotonCore
import PhotonCrypto
import PhotonEmulatorSupport
import PhotonNet

extension EmulatedAndroidTV {
    /// The pairing port: Polo exchange, code shown as an event, secret checked.
    func servePairing(_ stream: TLSStream) async {
        let framed = FramedStream(stream)
        defer { Task { await framed.close() } }
        guard let client = stream.peerCertificate, let clientModulus = client.rsaModulus, let clientExponent = client.rsaExponent
        else {
            // Real TVs answer a missing client certificate with alert 116.
            emit(EmulatorEvent("client_rejected", [("reason", .string("no client certificate on the pairing port"))]))
            return
        }
        let server = certificate
        var clientName = ""
        var alpha: [UInt8] = []
        func reply(_ body: PoloMessage.Body, status: PoloMessage.Status = .ok) async throws {
            try await framed.send(PoloMessage(body, status: status.rawValue).encoded())
        }
        do {
            while let bytes = try await framed.receive(timeout: .seconds(120)) {
                let message = try PoloMessage.decode(bytes)
                switch message.body {
                case .pairingRequest(_, let name):
                    clientName = name
                    try await reply(.pairingRequestAck(serverName: nil))
                case .options:
                    try await reply(.options(inputEncodings: [], outputEncodings: [.hexadecimal6], preferredRole: .input))
                case .configuration(let encoding, _):
                    guard encoding == .hexadecimal6 else {
                        try await reply(.none, status: .badConfiguration)
                        return
                    }
                    try await reply(.configurationAck)
                    let nonce = try SecureRandom.bytes(2)
                    alpha = Digest.sha256(
                        clientModulus + clientExponent + (server.rsaModulus ?? []) + (server.rsaExponent ?? []) + nonce)
                    let code = Hex.encode([alpha[0]] + nonce).uppercased()
                    emit(EmulatorEvent("pairing_code", [("code", .string(code)), ("client", .string(clientName))]))
                case .secret(let secret):
                    guard !alpha.isEmpty, secret == alpha else {
                        emit(EmulatorEvent("pairing_failed", [("reason", .string("wrong secret")), ("client", .string(clientName))]))
                        try await reply(.none, status: .badSecret)
                        return
                    }
                    state.withLock { _ = $0.paired.insert(client.fingerprint.compactHex) }
                    savePaired()
                    try await reply(.secretAck(alpha))
                    emit(
                        EmulatorEvent(
                            "paired", [("client", .string(clientName)), ("fingerprint", .string(client.fingerprint.description))]))
                    return
                default:
                    try await reply(.none, status: .error)
                    return
                }
            }
        } catch {
            emit(EmulatorEvent("pairing_failed", [("reason", .string(PhotonError.wrap(error).message))]))
        }
    }
}
