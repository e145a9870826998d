import PhotonCore
import PhotonCrypto

/// What a short-lived command that is about to connect can start on the other core while
/// it reads its arguments and the store: the client TLS context every connection of the
/// process uses (the first context of a process is OpenSSL 3's first use: opening the
/// library where it is loaded on first use (`COpenSSLLoader`), loading its providers and
/// fetching every cipher, group and signature algorithm, 2.5–3 ms in all), then the event
/// loop (its thread, epoll and eventfd, a fraction of a millisecond made on first use).
/// The context comes first: a TV with TLS waits for it, while the first connect makes the
/// event loop itself if the warm-up has not yet (cold keys: Samsung 9.79 → 9.51, Android
/// TV 9.93 → 9.60, Vizio 9.65 → 9.30 ms p50; Roku 5.96 → 6.03 ms, interleaved).
///
/// It is OpenSSL's warm-up (`OpenSSLWarmUp`), so whatever uses OpenSSL first waits for it
/// to end rather than race it on OpenSSL's locks: a TLS connection before it takes the
/// context, a Fire TV's ADB key before it is read (`RSAKey.loading`).
public enum NetworkWarmUp {
    /// Starts the warm-up, once per process.
    public static func start() {
        OpenSSLWarmUp.start {
            _ = try? TLSContext.client()
            _ = EventLoop.shared
            PhaseTimer.mark("network warm-up done (other core)")
        }
    }

    /// Returns once the warm-up has ended; at once if it never started or has ended.
    public static func finished() async { await OpenSSLWarmUp.finished() }
}
