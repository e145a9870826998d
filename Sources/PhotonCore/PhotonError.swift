/// The one error type of Photon. Every failure a user can meet carries a stable code (for
/// scripts and `--json`), a plain-language message and a hint that says what to do next,
/// and maps onto the exit codes of the command-line contract.
public struct PhotonError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Stable, machine-readable error codes. Never renamed: scripts match on them.
    public enum Code: String, Sendable, CaseIterable, Codable {
        case usage
        case unreachable
        case timeout
        case connectionClosed = "connection_closed"
        case pairingRefused = "pairing_refused"
        case authenticationRefused = "authentication_refused"
        case notPaired = "not_paired"
        case pinMismatch = "pin_mismatch"
        case untrustedCertificate = "untrusted_certificate"
        case unsupported
        case protocolViolation = "protocol_violation"
        case messageTooLarge = "message_too_large"
        case notFound = "not_found"
        case storeCorrupt = "store_corrupt"
        case storePermissions = "store_permissions"
        case storeIO = "store_io"
        case crypto
        case tls
        case cancelled
        case `internal`
    }

    /// What happened, where code that handles the error must tell cases apart that share
    /// a code: control flow branches on this, never on the message's words.
    public enum Reason: String, Sendable, CaseIterable, Codable {
        /// A TV cannot be woken: no MAC address is stored for it.
        case noMACAddress = "no-mac-address"
        /// The router refused a command whose lifetime ran out before it was sent.
        case commandExpired = "command-expired"
    }

    public let code: Code
    public let message: String
    public let hint: String?
    /// The typed reason, where one is needed to handle the error.
    public let reason: Reason?

    public init(_ code: Code, _ message: String, hint: String? = nil, reason: Reason? = nil) {
        self.code = code
        self.message = message
        self.hint = hint
        self.reason = reason
    }

    /// The process exit code of the command-line contract (design/cli.md).
    public var exitCode: Int32 { code.exitCode }

    public var description: String {
        if let hint { return "\(message) (\(hint))" }
        return message
    }
}

extension PhotonError.Code {
    /// 0 success; 1 generic; 2 usage; 3 unreachable or timed out; 4 pairing or
    /// authentication refused; 5 certificate pin mismatch or untrusted; 6 unsupported.
    public var exitCode: Int32 {
        switch self {
        case .usage: return 2
        case .unreachable, .timeout, .connectionClosed: return 3
        case .pairingRefused, .authenticationRefused, .notPaired: return 4
        case .pinMismatch, .untrustedCertificate: return 5
        case .unsupported: return 6
        case .protocolViolation, .messageTooLarge, .notFound, .storeCorrupt, .storePermissions,
            .storeIO, .crypto, .tls, .cancelled, .internal:
            return 1
        }
    }
}

extension PhotonError {
    /// Wraps any error into a `PhotonError`, keeping Photon errors as they are.
    public static func wrap(_ error: any Error) -> PhotonError {
        if let photon = error as? PhotonError { return photon }
        if let json = error as? JSONParseError { return PhotonError(json) }
        // The router's refusals carry their own message wherever they surface.
        if let rejection = error as? RouterRejection { return rejection.error }
        if error is CancellationError { return PhotonError(.cancelled, "the operation was cancelled") }
        return PhotonError(.internal, "unexpected error: \(error)", hint: "run again with --verbose and report it")
    }

    public static func timedOut(_ what: String, after seconds: Double) -> PhotonError {
        PhotonError(
            .timeout, "\(what) timed out after \(formatSeconds(seconds)) s",
            hint: "check that the TV is on and on this network, or raise --timeout")
    }

    public static func unsupported(_ what: String, hint: String? = nil) -> PhotonError {
        PhotonError(.unsupported, what, hint: hint)
    }
}

func formatSeconds(_ value: Double) -> String {
    if value == value.rounded() { return String(Int(value)) }
    return String(value)
}
