import PhotonCore
import PhotonCrypto

/// What a short-lived command that is about to connect can start on the other core while
/// it reads its arguments and the store: the event loop (its thread, epoll and eventfd,
/// about a third of a millisecond made on first use, inside the first connect otherwise)
/// and the client TLS context every connection of the process uses (the first context of
/// a process is OpenSSL 3's first use: loading its providers and fetching every cipher,
/// group and signature algorithm, 1.5–2 ms).
///
/// It is OpenSSL's warm-up (`OpenSSLWarmUp`), so whatever uses OpenSSL first waits for it
/// to end rather than race it on OpenSSL's locks: a TLS connection before it takes the
/// context, a Fire TV's ADB key before it is read (`RSAKey.loading`).
public enum NetworkWarmUp {
    /// Starts the warm-up, once per process.
    public static func start() {
        OpenSSLWarmUp.start {
            _ = EventLoop.shared
            _ = try? TLSContext.client()
            PhaseTimer.mark("network warm-up done (other core)")
        }
    }

    /// Returns once the warm-up has ended; at once if it never started or has ended.
    public static func finished() async { await OpenSSLWarmUp.finished() }
}
