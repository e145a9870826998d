import PhotonCore

/// OpenSSL 3's first use in a process: loading its providers and fetching the algorithms
/// the first TLS context, key or signature needs costs 1.5–2 ms on this class of machine,
/// whoever pays it. A short-lived command that is about to use OpenSSL starts that work on
/// the other core while it reads its arguments and the store (`start`), and everything
/// that uses OpenSSL for the first time waits for it (`finished`, which `RSAKey.loading`
/// and TLS connections call) instead of doing the same work at once: two threads that
/// initialise OpenSSL together take turns on its method store's locks, and each turn wakes
/// the other core (measured: a Fire TV's key took 4.2 ms to read that way, 1.1 ms after
/// waiting). Nobody waits for it at exit: photon-cli leaves with `_exit`, so OpenSSL's exit
/// handlers never run while this thread may still be initialising it.
public enum OpenSSLWarmUp {
    private static let work = Locked<BackgroundWork?>(nil)

    /// Runs `prepare` (which makes what the command's first connection will use) on a
    /// thread of its own, once per process; later calls do nothing.
    public static func start(_ prepare: @escaping @Sendable () -> Void) {
        let started = work.withLock { work -> BackgroundWork? in
            guard work == nil else { return nil }
            let made = BackgroundWork(prepare)
            work = made
            return made
        }
        started?.start()
    }

    /// Returns once the warm-up has ended; at once if it never started or has ended.
    public static func finished() async {
        await work.withLock { $0 }?.finished()
    }
}
