import PhotonCore
import PhotonCrypto
import PhotonHAP

/// Pair-setup and pair-verify carried over a Companion connection: each TLV8 message in an
/// OPACK `{"_pd": …}` inside a pairing frame, as the Apple TV expects them.
public enum CompanionPairing {
    /// Pair-setup. `pin` is asked once the Apple TV shows its PIN (after the first answer).
    public static func setup(
        on connection: CompanionConnection, name: String, timeout: Duration, pin: @Sendable () async throws -> String
    ) async throws -> HAPCredentials {
        var client = try PairSetupClient()
        let setup: [(String, OPACK)] = [("_pwTy", .int(1))]
        let m2 = try await exchange(connection, .pairSetupStart, client.m1(), setup, timeout: timeout)
        let code = try await pin()
        let m4 = try await exchange(connection, .pairSetupNext, try client.m3(answering: m2, pin: code), setup, timeout: timeout)
        let m6 = try await exchange(connection, .pairSetupNext, try client.m5(answering: m4, name: name), setup, timeout: timeout)
        return try client.credentials(from: m6)
    }

    /// Pair-verify with stored credentials, then encryption on. Fails closed (`pinMismatch`)
    /// when the Apple TV cannot prove it holds the key it was paired with.
    public static func verify(on connection: CompanionConnection, credentials: HAPCredentials, timeout: Duration) async throws {
        // Its first X25519 key is this process's first use of OpenSSL's crypto: wait for the
        // warm-up (OpenSSL's first use, on the other core) rather than fetch the same
        // algorithms beside it on OpenSSL's locks.
        await OpenSSLWarmUp.finished()
        var client = try PairVerifyClient(credentials: credentials)
        let m2 = try await exchange(connection, .pairVerifyStart, client.m1(), [("_auTy", .int(4))], timeout: timeout)
        let m4 = try await exchange(connection, .pairVerifyNext, try client.m3(answering: m2), [], timeout: timeout)
        let keys = try client.sessionKeys(from: m4)
        await connection.enableEncryption(outgoing: keys.outgoing, incoming: keys.incoming)
    }

    static func exchange(
        _ connection: CompanionConnection, _ kind: CompanionFrame.Kind, _ tlv: TLV8, _ extra: [(String, OPACK)], timeout: Duration
    ) async throws -> TLV8 {
        let answer = try await connection.exchangeAuth(kind, .object([("_pd", .data(tlv.encoded))] + extra), timeout: timeout)
        guard let data = answer["_pd"]?.dataValue else {
            throw PhotonError(.protocolViolation, "the Apple TV's pairing answer carries no pairing data")
        }
        return try TLV8.decode(data)
    }
}
