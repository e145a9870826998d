import CPhotonSystem
import Foundation
import Glibc
import PhotonCore

/// One epoll loop per process that tells tasks when their sockets are ready. Sockets
/// are non-blocking; a task tries its operation first and only parks here on EAGAIN, so
/// no cooperative thread ever blocks and a connection costs no thread of its own.
public final class EventLoop: @unchecked Sendable {
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
        var continuation: CheckedContinuation<Void, any Error>
        var deadline: ContinuousClock.Instant?
    }

    private struct Entry {
        var registrationID: UInt64
        var readers: [Waiter] = []
        var writers: [Waiter] = []
        var armedMask: UInt32 = 0
    }

    private let epfd: Int32
    private let wakeFD: Int32
    private let lock = NSLock()
    private var entries: [Int32: Entry] = [:]
    private var nextID: UInt64 = 1
    private var sleepingUntil: ContinuousClock.Instant?
    private var sleepingForever = false

    private init() {
        // OpenSSL writes to sockets with write(2), which raises SIGPIPE when the peer has
        // gone (a TV that drops the connection). The error is handled as EPIPE instead.
        signal(SIGPIPE, SIG_IGN)
        epfd = epoll_create1(Int32(EPOLL_CLOEXEC))
        wakeFD = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        precondition(epfd >= 0 && wakeFD >= 0, "epoll/eventfd unavailable: \(String(cString: strerror(errno)))")
        var event = photon_epoll_event(EPOLLIN.rawValue, wakeFD)
        epoll_ctl(epfd, EPOLL_CTL_ADD, wakeFD, &event)
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
        if entry.armedMask != 0 { epoll_ctl(epfd, EPOLL_CTL_DEL, registration.fd, nil) }
        lock.unlock()
        let error = PhotonError(.connectionClosed, "the connection was closed")
        for w in entry.readers + entry.writers { w.continuation.resume(throwing: error) }
    }

    /// Waits until the socket is readable (or writable), the deadline passes (throws
    /// `timeout`), the task is cancelled, or the socket is deregistered.
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
            try await withCheckedThrowingContinuation { (c: CheckedContinuation<Void, any Error>) in
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
                let waiter = Waiter(id: waiterID, continuation: c, deadline: deadline)
                if interest == .read { entry.readers.append(waiter) } else { entry.writers.append(waiter) }
                rearm(registration.fd, &entry)
                entries[registration.fd] = entry
                var needsWake = false
                if let deadline {
                    if sleepingForever { needsWake = true }
                    if let until = sleepingUntil, deadline < until { needsWake = true }
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
                if found != nil {
                    rearm(registration.fd, &entry)
                    entries[registration.fd] = entry
                }
            }
            lock.unlock()
            found?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Sets the epoll mask to what the waiters need. Called with the lock held.
    private func rearm(_ fd: Int32, _ entry: inout Entry) {
        var mask: UInt32 = 0
        if !entry.readers.isEmpty { mask |= EPOLLIN.rawValue | EPOLLRDHUP.rawValue }
        if !entry.writers.isEmpty { mask |= EPOLLOUT.rawValue }
        guard mask != entry.armedMask else { return }
        var event = photon_epoll_event(mask, fd)
        if mask == 0 {
            epoll_ctl(epfd, EPOLL_CTL_DEL, fd, nil)
        } else if entry.armedMask == 0 {
            epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &event)
        } else {
            epoll_ctl(epfd, EPOLL_CTL_MOD, fd, &event)
        }
        entry.armedMask = mask
    }

    private func wake() {
        var one: UInt64 = 1
        _ = Glibc.write(wakeFD, &one, 8)
    }

    private func run() {
        var events = [epoll_event](repeating: epoll_event(), count: 128)
        while true {
            lock.lock()
            let now = ContinuousClock.now
            var earliest: ContinuousClock.Instant?
            for entry in entries.values {
                for w in entry.readers where w.deadline != nil {
                    if earliest == nil || w.deadline! < earliest! { earliest = w.deadline }
                }
                for w in entry.writers where w.deadline != nil {
                    if earliest == nil || w.deadline! < earliest! { earliest = w.deadline }
                }
            }
            var timeoutMS: Int32 = -1
            if let earliest {
                let remaining = earliest - now
                timeoutMS = remaining <= .zero ? 0 : Int32(min(ceil(remaining.seconds * 1000), 3_600_000))
            }
            sleepingUntil = earliest
            sleepingForever = earliest == nil
            lock.unlock()

            let count = epoll_wait(epfd, &events, Int32(events.count), timeoutMS)
            if count < 0 && errno != EINTR {
                fatalError("epoll_wait failed: \(String(cString: strerror(errno)))")
            }

            var ready: [CheckedContinuation<Void, any Error>] = []
            var expired: [CheckedContinuation<Void, any Error>] = []
            lock.lock()
            sleepingUntil = nil
            sleepingForever = false
            for i in 0..<Int(max(count, 0)) {
                let fd = photon_epoll_fd(&events[i])
                let flags = events[i].events
                if fd == wakeFD {
                    var value: UInt64 = 0
                    _ = Glibc.read(wakeFD, &value, 8)
                    continue
                }
                guard var entry = entries[fd] else { continue }
                let failed = flags & (EPOLLERR.rawValue | EPOLLHUP.rawValue) != 0
                if failed || flags & (EPOLLIN.rawValue | EPOLLRDHUP.rawValue) != 0 {
                    ready += entry.readers.map(\.continuation)
                    entry.readers.removeAll()
                }
                if failed || flags & EPOLLOUT.rawValue != 0 {
                    ready += entry.writers.map(\.continuation)
                    entry.writers.removeAll()
                }
                rearm(fd, &entry)
                entries[fd] = entry
            }
            let after = ContinuousClock.now
            for (fd, var entry) in entries {
                let before = entry.readers.count + entry.writers.count
                guard before > 0 else { continue }
                entry.readers.removeAll { w in
                    if let d = w.deadline, d <= after { expired.append(w.continuation); return true }
                    return false
                }
                entry.writers.removeAll { w in
                    if let d = w.deadline, d <= after { expired.append(w.continuation); return true }
                    return false
                }
                if entry.readers.count + entry.writers.count != before {
                    rearm(fd, &entry)
                    entries[fd] = entry
                }
            }
            lock.unlock()
            for c in ready { c.resume() }
            let timeout = PhotonError(.timeout, "the network wait timed out")
            for c in expired { c.resume(throwing: timeout) }
        }
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
