import Glibc

/// Runs `start` (a `posix_spawn` or `Process.run`) with no signal blocked on this thread,
/// so the child starts with none blocked either. A child inherits the starting thread's
/// signal mask, and Swift concurrency's threads block nearly every signal: a daemon or
/// broker started from one would ignore the SIGTERM that ends it, and each stop would wait
/// for the SIGKILL fallback.
func withChildSignalsUnblocked<R>(_ start: () throws -> R) rethrows -> R {
    var none = sigset_t()
    sigemptyset(&none)
    var saved = sigset_t()
    pthread_sigmask(SIG_SETMASK, &none, &saved)
    defer { pthread_sigmask(SIG_SETMASK, &saved, nil) }
    return try start()
}
