import COpenSSL
import Dispatch
import PhotonCore

/// What a short-lived command that is about to connect can start on the other core while
/// it reads its arguments and the store: the event loop (its thread, epoll and eventfd,
/// about a third of a millisecond made on first use, inside the first connect otherwise)
/// and OpenSSL's first TLS context (OpenSSL 3 spends about 2 ms on the first one of a
/// process, loading its providers and fetching every cipher, group and signature
/// algorithm; the command's own context then costs a tenth of that). The first context
/// the command makes waits on OpenSSL's own initialisation lock if the warm-up is still
/// running, and the event loop is made once whoever comes first, so nothing is done twice.
/// Nobody waits for it to end: photon-cli leaves with `_exit`, so OpenSSL's exit handlers
/// never run while this thread may still be initialising it.
public enum NetworkWarmUp {
    private static let started = Locked(false)

    /// Starts the warm-up, once per process.
    public static func start() {
        let first = started.withLock { started -> Bool in
            defer { started = true }
            return !started
        }
        guard first else { return }
        DispatchQueue.global(qos: .userInitiated).async {
            _ = EventLoop.shared
            if let context = SSL_CTX_new(TLS_client_method()) { SSL_CTX_free(context) }
            PhaseTimer.mark("network warm-up done (other core)")
        }
    }
}
