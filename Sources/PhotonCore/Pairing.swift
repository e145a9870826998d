import Foundation

/// A question pairing needs a person to answer. Front ends (CLI, daemon clients, tests)
/// answer them; adapters never decide on the user's behalf.
public enum PairingChallenge: Sendable, Hashable {
    /// Trust this certificate, seen for the first time? Nothing is sent to the TV before
    /// the answer.
    case trustCertificate(CertificateInfo)
    /// Type the code the TV shows: `length` symbols from `alphabet`.
    case enterCode(length: Int, alphabet: CodeAlphabet)
    /// Accept the request on the TV's screen; the flow waits for the TV's answer.
    case confirmOnTV(message: String)
    /// The TV offers no TLS: pair over a plain connection, so that its credential travels
    /// in clear text on every connection? Answered with `.trust(Bool)`; nothing is sent
    /// before a yes. `reason` says why TLS is not used.
    case allowUnencrypted(reason: String)
}

/// The symbols a pairing code is made of.
public enum CodeAlphabet: String, Sendable, Hashable {
    case hexadecimal
    case decimal

    /// Normalizes a typed code (trims, upper-cases) and checks it.
    public func validate(_ code: String, length: Int) throws -> String {
        let cleaned = code.trimmingCharacters(in: .whitespacesAndNewlines).uppercased()
        let allowed: Set<Character> =
            self == .hexadecimal ? Set("0123456789ABCDEF") : Set("0123456789")
        guard cleaned.count == length, cleaned.allSatisfy({ allowed.contains($0) }) else {
            throw PhotonError(
                .pairingRefused,
                "the code must be \(length) \(self == .hexadecimal ? "hexadecimal " : "")characters",
                hint: "type the code exactly as the TV shows it")
        }
        return cleaned
    }
}

/// A front end's answer to a `PairingChallenge`.
public enum PairingAnswer: Sendable, Hashable {
    case trust(Bool)
    case code(String)
    /// For `confirmOnTV`: keep waiting.
    case wait
}

/// Answers pairing challenges: the CLI asks the terminal, tests answer from a script.
public protocol PairingResponder: Sendable {
    func answer(_ challenge: PairingChallenge) async throws -> PairingAnswer
}

/// A pairing in progress with one TV. `run` yields challenges to the responder and ends
/// in a `PairedTV` to store, or a `PhotonError` (`pairingRefused`, `untrustedCertificate`,
/// `timeout`…).
public protocol PairingFlow: Sendable {
    func run(responder: any PairingResponder) async throws -> PairedTV
}

/// The outcome of pairing: what to remember about the TV and what to keep secret.
public struct PairedTV: Sendable, Hashable {
    public var device: DeviceRecord
    public var secrets: DeviceSecrets
    public init(device: DeviceRecord, secrets: DeviceSecrets) {
        self.device = device
        self.secrets = secrets
    }
}

extension PairingResponder {
    /// Asks for consent to the certificate a TV presents on `stream` and returns its pin;
    /// without consent (or without a certificate) it closes the stream and throws, and
    /// nothing has been sent. Every TLS brand's pairing starts with this.
    public func requireTrust(in stream: any ByteStream) async throws -> CertificateFingerprint {
        guard let certificate = stream.peerCertificate else {
            await stream.close()
            throw PhotonError(.tls, "the TV presented no certificate")
        }
        do {
            try await requireTrust(certificate)
        } catch {
            await stream.close()
            throw error
        }
        return certificate.fingerprint
    }

    /// Asks for consent to `certificate`; throws `untrustedCertificate` without it.
    public func requireTrust(_ certificate: CertificateInfo) async throws {
        guard case .trust(true) = try await answer(.trustCertificate(certificate)) else {
            throw PhotonError(
                .untrustedCertificate, "the TV's certificate \(certificate.fingerprint) was not trusted; nothing was sent",
                hint: "compare the fingerprint, then run again and accept it, or pass --trust FINGERPRINT")
        }
    }
}
