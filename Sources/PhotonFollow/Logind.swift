import Foundation
import PhotonCore

/// What logind says about this machine and its session.
public enum LogindEvent: Sendable, Equatable {
    /// `PrepareForSleep`: true before the machine sleeps, false after it resumed.
    case sleep(starting: Bool)
    /// `PrepareForShutdown`: true before it shuts down or reboots.
    case shutdown(starting: Bool)
    /// The session's `Lock` and `Unlock`.
    case lock, unlock
    /// The session's `IdleHint` changed.
    case idle(Bool)
    /// The bus went away: nothing more will come.
    case gone(String)
}

/// systemd-logind on the system bus: the machine's sleep and shutdown, and the session's
/// lock and idle hint, as events; a *delay* inhibitor lock, so the TV can be switched off
/// before the machine sleeps, taken and released on request. One thread owns the bus
/// connection; everything else talks to it through `events` and the lock requests.
public final class Logind: Sendable {
    public let events: AsyncStream<LogindEvent>
    private let continuation: AsyncStream<LogindEvent>.Continuation
    /// The session object path watched for Lock, Unlock and IdleHint.
    public let sessionPath: String?
    private let state = Locked<State>(State())

    private struct State {
        var lockFD: Int32 = -1
        var wantLock = false
        var stopped = false
    }

    static let service = "org.freedesktop.login1"
    static let managerPath = "/org/freedesktop/login1"
    static let manager = "org.freedesktop.login1.Manager"
    static let session = "org.freedesktop.login1.Session"

    /// Connects to the system bus and logind, finds this session (`XDG_SESSION_ID`, else the
    /// session of this process), subscribes to the signals and takes the delay lock.
    /// Throws `unreachable` with a clear message when there is no logind.
    public static func connect(
        environment: [String: String] = ProcessInfo.processInfo.environment, note: @escaping @Sendable (String) -> Void = { _ in }
    ) throws -> Logind {
        let bus = try SystemBus()
        var session: String?
        do {
            if let id = environment["XDG_SESSION_ID"], !id.isEmpty {
                session = try bus.call(service, managerPath, manager, "GetSession", [.string(id)]).first?.string
            } else {
                session = try bus.call(service, managerPath, manager, "GetSessionByPID", [.uint32(UInt32(getpid()))]).first?.string
            }
        } catch let error as PhotonError where error.code == .unreachable {
            bus.close()
            throw PhotonError(
                .unreachable, "systemd-logind is not on the system bus (\(error.message))",
                hint: "`photon follow` needs logind (systemd); without it the machine's sleep and idle cannot be followed")
        } catch {
            note("no login session found for this process (\(error)); following sleep and shutdown only")
        }
        try bus.addMatch("type='signal',sender='\(service)',interface='\(manager)',member='PrepareForSleep'")
        try bus.addMatch("type='signal',sender='\(service)',interface='\(manager)',member='PrepareForShutdown'")
        if let session {
            try bus.addMatch("type='signal',sender='\(service)',interface='\(Self.session)',path='\(session)'")
            try bus.addMatch(
                "type='signal',sender='\(service)',interface='org.freedesktop.DBus.Properties',member='PropertiesChanged',path='\(session)'")
        }
        let logind = Logind(sessionPath: session)
        logind.state.withLock { $0.wantLock = true }
        logind.takeLock(on: bus, note: note)
        let thread = Thread { [logind] in logind.run(bus, note: note) }
        thread.name = "photon-logind"
        thread.start()
        return logind
    }

    private init(sessionPath: String?) {
        self.sessionPath = sessionPath
        (events, continuation) = AsyncStream.makeStream(of: LogindEvent.self, bufferingPolicy: .bufferingNewest(64))
    }

    /// Whether the delay lock is held now.
    public var holdsDelayLock: Bool { state.withLock { $0.lockFD >= 0 } }

    /// Lets the machine go on (closes the lock's descriptor): at once, from any thread.
    public func releaseDelayLock() {
        let fd = state.withLock { s -> Int32 in
            defer {
                s.lockFD = -1
                s.wantLock = false
            }
            return s.lockFD
        }
        if fd >= 0 { Foundation.close(fd) }
    }

    /// Asks for the delay lock again (after a resume); taken by the bus thread.
    public func requestDelayLock() { state.withLock { $0.wantLock = true } }

    /// Stops the thread, releases the lock and ends `events`.
    public func stop() {
        releaseDelayLock()
        state.withLock { $0.stopped = true }
    }

    private func takeLock(on bus: SystemBus, note: @Sendable (String) -> Void) {
        guard state.withLock({ $0.wantLock && $0.lockFD < 0 }) else { return }
        do {
            let reply = try bus.call(
                Self.service, Self.managerPath, Self.manager, "Inhibit",
                [.string("sleep:shutdown"), .string("Photon"), .string("switching the TV off first"), .string("delay")])
            guard case .unixFD(let fd)? = reply.first, fd >= 0 else { throw PhotonError(.protocolViolation, "Inhibit gave no descriptor") }
            state.withLock { s in
                s.lockFD = fd
                s.wantLock = false
            }
        } catch {
            state.withLock { $0.wantLock = false }
            note("logind gave no delay lock (\(error)): the TV may not be switched off before the machine sleeps")
        }
    }

    private func run(_ bus: SystemBus, note: @Sendable (String) -> Void) {
        defer {
            bus.close()
            continuation.finish()
        }
        while !state.withLock({ $0.stopped }) {
            takeLock(on: bus, note: note)
            guard bus.isConnected else {
                continuation.yield(.gone("the system bus closed the connection"))
                return
            }
            guard let signal = bus.nextSignal(timeoutMilliseconds: 100) else { continue }
            if let event = Self.event(signal, session: sessionPath) { continuation.yield(event) }
        }
    }

    /// The event a signal means, if any.
    public static func event(_ signal: DBusSignal, session: String?) -> LogindEvent? {
        switch (signal.interface, signal.member) {
        case (manager, "PrepareForSleep"): return signal.arguments.first?.bool.map { .sleep(starting: $0) }
        case (manager, "PrepareForShutdown"): return signal.arguments.first?.bool.map { .shutdown(starting: $0) }
        case (Self.session, "Lock") where signal.path == session: return .lock
        case (Self.session, "Unlock") where signal.path == session: return .unlock
        case ("org.freedesktop.DBus.Properties", "PropertiesChanged") where signal.path == session:
            guard signal.arguments.first?.string == Self.session, case .array(let changed)? = signal.arguments.dropFirst().first else { return nil }
            for case .entry(let key, let value) in changed where key.string == "IdleHint" {
                if let idle = value.bool { return .idle(idle) }
            }
            return nil
        default: return nil
        }
    }
}
