import PhotonCore

/// The daemon's log: notices always go to standard error (the journal under systemd);
/// debug lines only with `--verbose`. Both are redacted by their callers' messages.
public struct ServiceLog: Sendable {
    /// Where notices go (the daemon's log line, a CLI's stderr).
    public let noticeSink: @Sendable (String) -> Void
    /// Where debug lines go.
    public let debugLog: PhotonLog

    /// A log that sends notices to `notice` (after redaction) and debug lines to `debug`.
    public init(notice: @escaping @Sendable (String) -> Void, debug: PhotonLog) {
        self.noticeSink = notice
        self.debugLog = debug
    }

    /// A log that drops everything.
    public static let silent = ServiceLog(notice: { _ in }, debug: .silent)

    /// Logs a notice, with secrets redacted.
    public func notice(_ message: String) { noticeSink(Redaction.redact(message)) }
    /// Logs a debug line; the text is only built when debug output is on.
    public func debug(_ message: @autoclosure () -> String) { debugLog.debug(message()) }
}
