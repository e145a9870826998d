import COpenSSL
import Dispatch
import PhotonCore

/// OpenSSL 3 spends about 2 ms on the first TLS context of a process (loading its
/// providers, fetching every cipher, group and signature algorithm). A short-lived
/// command that is about to connect starts that on another core while it reads the
/// store and opens the TCP connection; its own context then costs a tenth of that. The
/// first context it makes waits on OpenSSL's own initialisation lock if the warm-up is
/// still running, so nothing is done twice.
public enum TLSWarmUp {
    private static let group = DispatchGroup()
    private static let started = Locked(false)

    /// Starts the warm-up, once per process.
    public static func start() {
        let first = started.withLock { started -> Bool in
            defer { started = true }
            return !started
        }
        guard first else { return }
        group.enter()
        DispatchQueue.global(qos: .userInitiated).async {
            if let context = SSL_CTX_new(TLS_client_method()) { SSL_CTX_free(context) }
            PhaseTimer.mark("tls warm-up done (other core)")
            group.leave()
        }
    }

    /// Waits until a started warm-up is done: before `exit`, so that OpenSSL's exit
    /// handlers never run while another thread is still initialising it.
    public static func finish() {
        guard started.withLock({ $0 }) else { return }
        group.wait()
    }
}
