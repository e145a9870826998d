import PhotonCore


/// The daemon's log: notices always go to standard error (the journal under systemd);
/// debug lines only with `--verbose`. Both are redacted by their callers' messages.
public struct ServiceLog: Sendable {
    public let noticeSink: @Sendable (String) -> Void
    public let debugLog: PhotonLog

    public init(notice: @escaping @Sendable (String) -> Void, debug: PhotonLog) {
        self.noticeSink = notice
        self.debugLog = debug
    }

    public static let silent = ServiceLog(notice: { _ in }, debug: .silent)

    public func notice(_ message: String) { noticeSink(Redaction.redact(message)) }
    public func debug(_ message: @autoclosure () -> String) { debugLog.debug(message()) }
}
