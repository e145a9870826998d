import CPhotonSystem
import Foundation
import Glibc
import PhotonCore

/// One epoll loop per process that tells tasks when their sockets are ready. Sockets
/// are non-blocking; a task tries its operation first and only parks here on EAGAIN, so
/// no cooperative thread ever blocks and a connection costs no thread of its own.
///
/// Each socket is registered once, edge-triggered, for both directions. An edge that
/// arrives while nobody waits is remembered (`readable`/`writable`), and the next wait in
/// that direction returns at once to retry: at worst one extra EAGAIN, never a lost
/// wake-up, and no `epoll_ctl` per wait.
///
/// Sockets whose owner can wait a little (`batchReadiness`: a session's steady state,
/// where pings and state reports need no instant answer) sit in a second epoll set. While
/// it holds fewer than `batchThreshold` sockets (a CLI, a household daemon) its events are
/// handled at once, as any other. Beyond that, the first event is handled at once if the
/// set was quiet for `batchWindow`, and under load its events are collected once per
/// window: a fleet's thousands of pings cost a few wake-ups per window instead of one each.
///
/// The loop is also a `TaskExecutor`. A task that prefers it (a session's reader, through
/// `ByteStream.preferredExecutor`) runs on the loop's thread right after its socket is
/// ready: an idle TV's ping is read and answered without waking a thread of the
/// cooperative pool. Jobs run there must never block.
public final class EventLoop: TaskExecutor, @unchecked Sendable {
    public static let shared = EventLoop()

    public enum Interest: Sendable { case read, write }

    /// A socket known to the loop. Waits name the registration, not the bare fd, so a
    /// wait can never land on a later socket that reused the number.
    public final class Registration: Sendable {
        public let fd: Int32
        let id: UInt64
        init(fd: Int32, id: UInt64) {
            self.fd = fd
            self.id = id
        }
    }

    private struct Waiter {
        var id: UInt64
        var continuation: UnsafeContinuation<Void, any Error>
        var deadline: ContinuousClock.Instant?
    }

    private struct Entry {
        var registrationID: UInt64
        var readers: [Waiter] = []
        var writers: [Waiter] = []
        /// An edge came with no reader (or writer) waiting: the next wait returns at once.
        /// Both start set, so the first wait always retries before it parks.
        var readable = true
        var writable = true
        /// The peer closed its side (EPOLLRDHUP; a reset reports it too): reads never block
        /// again, so every later read wait returns at once. (Not EPOLLHUP alone: a socket
        /// not yet connected reports that.)
        var readClosed = false
        var batched = false
    }

    private let epfd: Int32
    /// What every socket is watched for, in either set: both directions and the peer's
    /// close, edge-triggered.
    private static let socketEvents = EPOLLIN.rawValue | EPOLLOUT.rawValue | EPOLLRDHUP.rawValue | EPOLLET.rawValue
    /// The batched set; itself watched by `epfd`, one-shot, re-armed after each collection.
    private let batchedEpfd: Int32
    /// How long a batched socket's readiness may wait to be collected with others.
    public static let batchWindow: Duration = .milliseconds(20)
    /// How many batched sockets it takes before their readiness is batched at all.
    public static let batchThreshold = 64
    private var batchedCount = 0
    /// When the batched set is next collected (nil: it is armed and quiet).
    private var batchCollectAt: ContinuousClock.Instant?
    private var lastBatchCollect = ContinuousClock.now - EventLoop.batchWindow
    private let wakeFD: Int32
    private let lock = NSLock()
    private var entries: [Int32: Entry] = [:]
    /// The waits that have a deadline, by deadline (most waits, an idle session's reader
    /// among them, have none).
    private var timers = DeadlineQueue()
    private var nextID: UInt64 = 1
    /// Set while the loop is in (or about to enter) `epoll_wait`, with its deadline.
    private var asleep = false
    private var sleepingUntil: ContinuousClock.Instant?
    /// Jobs of tasks that prefer this executor, run by the loop's thread in order.
    private var jobs: [UnownedJob] = []
    private var loopThread: pthread_t?

    private init() {
        // OpenSSL writes to sockets with write(2), which raises SIGPIPE when the peer has
        // gone (a TV that drops the connection). The error is handled as EPIPE instead.
        signal(SIGPIPE, SIG_IGN)
        epfd = epoll_create1(Int32(EPOLL_CLOEXEC))
        batchedEpfd = epoll_create1(Int32(EPOLL_CLOEXEC))
        wakeFD = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        precondition(
            epfd >= 0 && batchedEpfd >= 0 && wakeFD >= 0, "epoll/eventfd unavailable: \(String(cString: strerror(errno)))")
        var event = photon_epoll_event(EPOLLIN.rawValue, wakeFD)
        epoll_ctl(epfd, EPOLL_CTL_ADD, wakeFD, &event)
        var batched = photon_epoll_event(EPOLLIN.rawValue | EPOLLONESHOT.rawValue, batchedEpfd)
        epoll_ctl(epfd, EPOLL_CTL_ADD, batchedEpfd, &batched)
        let thread = Thread { [unowned self] in self.run() }
        thread.name = "photon-event-loop"
        thread.start()
    }

    /// Starts watching `fd` (which must be non-blocking).
    public func register(_ fd: Int32) -> Registration {
        lock.lock()
        defer { lock.unlock() }
        let id = nextID
        nextID += 1
        entries[fd] = Entry(registrationID: id)
        var event = photon_epoll_event(EventLoop.socketEvents, fd)
        epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &event)
        return Registration(fd: fd, id: id)
    }

    /// Stops watching; waiters fail with `connectionClosed`. Call before closing the fd.
    public func deregister(_ registration: Registration) {
        lock.lock()
        guard let entry = entries[registration.fd], entry.registrationID == registration.id else {
            lock.unlock()
            return
        }
        entries[registration.fd] = nil
        epoll_ctl(entry.batched ? batchedEpfd : epfd, EPOLL_CTL_DEL, registration.fd, nil)
        if entry.batched { batchedCount -= 1 }
        for w in entry.readers + entry.writers where w.deadline != nil { timers.remove(id: w.id) }
        lock.unlock()
        let error = PhotonError(.connectionClosed, "the connection was closed")
        for w in entry.readers + entry.writers { w.continuation.resume(throwing: error) }
    }

    /// Moves a socket to the batched set: its readiness may wait up to `batchWindow` to
    /// be handled together with others'. For connections in a steady state only; a
    /// request that waits for an answer on it may take that much longer.
    public func batchReadiness(_ registration: Registration) {
        lock.lock()
        defer { lock.unlock() }
        guard var entry = entries[registration.fd], entry.registrationID == registration.id, !entry.batched else { return }
        var event = photon_epoll_event(EventLoop.socketEvents, registration.fd)
        epoll_ctl(epfd, EPOLL_CTL_DEL, registration.fd, nil)
        guard epoll_ctl(batchedEpfd, EPOLL_CTL_ADD, registration.fd, &event) == 0 else {
            epoll_ctl(epfd, EPOLL_CTL_ADD, registration.fd, &event)
            return
        }
        // Whatever came during the move is found by the retry these flags cause.
        entry.batched = true
        batchedCount += 1
        entry.readable = true
        entry.writable = true
        entries[registration.fd] = entry
    }

    /// Waits until the socket may be readable (or writable), the deadline passes (throws
    /// `timeout`), the task is cancelled, or the socket is deregistered. A return means
    /// "try again", not a promise: callers retry their operation and wait again on EAGAIN.
    public func wait(
        _ registration: Registration, for interest: Interest, deadline: ContinuousClock.Instant?
    ) async throws {
        let waiterID: UInt64 = {
            lock.lock()
            defer { lock.unlock() }
            nextID += 1
            return nextID
        }()
        try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { (c: UnsafeContinuation<Void, any Error>) in
                lock.lock()
                if Task.isCancelled {
                    lock.unlock()
                    c.resume(throwing: CancellationError())
                    return
                }
                guard var entry = entries[registration.fd], entry.registrationID == registration.id else {
                    lock.unlock()
                    c.resume(throwing: PhotonError(.connectionClosed, "the connection was closed"))
                    return
                }
                // An edge already came while nobody waited: retry now.
                if interest == .read ? entry.readable || entry.readClosed : entry.writable {
                    if interest == .read { entry.readable = false } else { entry.writable = false }
                    entries[registration.fd] = entry
                    lock.unlock()
                    c.resume()
                    return
                }
                let waiter = Waiter(id: waiterID, continuation: c, deadline: deadline)
                if interest == .read { entry.readers.append(waiter) } else { entry.writers.append(waiter) }
                entries[registration.fd] = entry
                var needsWake = false
                if let deadline {
                    timers.insert(id: waiterID, fd: registration.fd, deadline: deadline)
                    if asleep, sleepingUntil.map({ deadline < $0 }) ?? true { needsWake = true }
                }
                lock.unlock()
                if needsWake { wake() }
            }
        } onCancel: {
            lock.lock()
            var found: Waiter?
            if var entry = entries[registration.fd], entry.registrationID == registration.id {
                if let i = entry.readers.firstIndex(where: { $0.id == waiterID }) {
                    found = entry.readers.remove(at: i)
                } else if let i = entry.writers.firstIndex(where: { $0.id == waiterID }) {
                    found = entry.writers.remove(at: i)
                }
                if let found {
                    if found.deadline != nil { timers.remove(id: found.id) }
                    entries[registration.fd] = entry
                }
            }
            lock.unlock()
            found?.continuation.resume(throwing: CancellationError())
        }
    }

    // MARK: TaskExecutor

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        lock.lock()
        jobs.append(job)
        let needsWake = asleep && !isLoopThread
        lock.unlock()
        if needsWake { wake() }
    }

    private var isLoopThread: Bool { loopThread.map { pthread_equal($0, pthread_self()) != 0 } ?? false }

    /// Runs the jobs queued so far (not those they queue: the loop polls its sockets
    /// between batches, so a busy task cannot starve the others' readiness).
    private func runQueuedJobs() {
        lock.lock()
        let batch = jobs
        jobs.removeAll(keepingCapacity: true)
        lock.unlock()
        let executor = asUnownedTaskExecutor()
        for job in batch { job.runSynchronously(on: executor) }
    }

    private func wake() {
        var one: UInt64 = 1
        _ = Glibc.write(wakeFD, &one, 8)
    }

    private func run() {
        lock.lock()
        loopThread = pthread_self()
        lock.unlock()
        var events = [epoll_event](repeating: epoll_event(), count: 256)
        while true {
            lock.lock()
            var earliest = timers.earliest()
            if let collect = batchCollectAt, earliest.map({ collect < $0 }) ?? true { earliest = collect }
            var timeoutMS: Int32 = -1
            if !jobs.isEmpty {
                timeoutMS = 0
            } else if let earliest {
                let remaining = earliest - ContinuousClock.now
                timeoutMS = remaining <= .zero ? 0 : Int32(min(ceil(remaining.seconds * 1000), 3_600_000))
            }
            asleep = timeoutMS != 0
            sleepingUntil = earliest
            lock.unlock()

            let count = epoll_wait(epfd, &events, Int32(events.count), timeoutMS)
            if count < 0 && errno != EINTR {
                fatalError("epoll_wait failed: \(String(cString: strerror(errno)))")
            }

            var ready: [UnsafeContinuation<Void, any Error>] = []
            var expired: [UnsafeContinuation<Void, any Error>] = []
            lock.lock()
            asleep = false
            sleepingUntil = nil
            for i in 0..<Int(max(count, 0)) {
                let fd = photon_epoll_fd(&events[i])
                if fd == wakeFD {
                    var value: UInt64 = 0
                    _ = Glibc.read(wakeFD, &value, 8)
                } else if fd == batchedEpfd {
                    // The quiet batched set woke: collect now if it is small or the last
                    // collection was a window ago, else when the window ends.
                    let now = ContinuousClock.now
                    batchCollectAt = batchedCount < EventLoop.batchThreshold ? now : max(now, lastBatchCollect + EventLoop.batchWindow)
                } else {
                    markReady(fd, events[i].events, into: &ready)
                }
            }
            if let collect = batchCollectAt, collect <= ContinuousClock.now {
                while true {
                    let n = epoll_wait(batchedEpfd, &events, Int32(events.count), 0)
                    for i in 0..<Int(max(n, 0)) { markReady(photon_epoll_fd(&events[i]), events[i].events, into: &ready) }
                    if n < Int32(events.count) { break }
                }
                batchCollectAt = nil
                lastBatchCollect = ContinuousClock.now
                var rearm = photon_epoll_event(EPOLLIN.rawValue | EPOLLONESHOT.rawValue, batchedEpfd)
                epoll_ctl(epfd, EPOLL_CTL_MOD, batchedEpfd, &rearm)
            }
            for (id, fd) in timers.popExpired(at: ContinuousClock.now) {
                guard var entry = entries[fd] else { continue }
                if let i = entry.readers.firstIndex(where: { $0.id == id }) {
                    expired.append(entry.readers.remove(at: i).continuation)
                } else if let i = entry.writers.firstIndex(where: { $0.id == id }) {
                    expired.append(entry.writers.remove(at: i).continuation)
                } else {
                    continue
                }
                entries[fd] = entry
            }
            lock.unlock()
            for c in ready { c.resume() }
            let timeout = PhotonError(.timeout, "the network wait timed out")
            for c in expired { c.resume(throwing: timeout) }
            runQueuedJobs()
        }
    }

    /// Hands `fd`'s readiness to its waiters, or remembers it for the next wait. Called
    /// with the lock held.
    private func markReady(_ fd: Int32, _ flags: UInt32, into ready: inout [UnsafeContinuation<Void, any Error>]) {
        guard var entry = entries[fd] else { return }
        let failed = flags & (EPOLLERR.rawValue | EPOLLHUP.rawValue) != 0
        if flags & EPOLLRDHUP.rawValue != 0 { entry.readClosed = true }
        if failed || flags & (EPOLLIN.rawValue | EPOLLRDHUP.rawValue) != 0 {
            if entry.readers.isEmpty { entry.readable = true }
            for w in entry.readers {
                if w.deadline != nil { timers.remove(id: w.id) }
                ready.append(w.continuation)
            }
            entry.readers.removeAll()
        }
        if failed || flags & EPOLLOUT.rawValue != 0 {
            if entry.writers.isEmpty { entry.writable = true }
            for w in entry.writers {
                if w.deadline != nil { timers.remove(id: w.id) }
                ready.append(w.continuation)
            }
            entry.writers.removeAll()
        }
        entries[fd] = entry
    }
}

/// The deadline `timeout` from now, or nil for no limit.
func deadline(after timeout: Duration?) -> ContinuousClock.Instant? {
    timeout.map { ContinuousClock.now + $0 }
}

/// The current errno as readable text.
func errnoText(_ code: Int32 = errno) -> String { String(cString: strerror(code)) }

extension EventLoop {
    /// Raises this process's soft limit on open descriptors to the hard limit: a daemon
    /// (or a benchmark) holding hundreds of connections needs more than the usual 1024.
    @discardableResult
    public static func raiseDescriptorLimit() -> (soft: Int, hard: Int) {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return (1024, 1024) }
        if limit.rlim_cur < limit.rlim_max {
            let raised = rlimit(rlim_cur: limit.rlim_max, rlim_max: limit.rlim_max)
            var copy = raised
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &copy) == 0 { limit = raised }
        }
        func clamp(_ value: rlim_t) -> Int { value > rlim_t(Int32.max) ? Int(Int32.max) : Int(value) }
        return (clamp(limit.rlim_cur), clamp(limit.rlim_max))
    }
}
