import CMosquitto
import COpenSSL
import Foundation
import Glibc
import PhotonCore

/// An MQTT 3.1.1 client over libmosquitto, for the daemon's Home Assistant bridge.
///
/// The client has a network thread of its own rather than joining Photon's event loop:
/// libmosquitto keeps the protocol (keep-alive pings, QoS 1 retries, packet framing) to
/// itself, and the thread drives it with `poll` — not libmosquitto's own
/// `mosquitto_loop_start`, whose `select` refuses descriptors above 1024, which a daemon
/// holding thousands of TV sessions reaches on its first reconnect to the broker. A pipe
/// wakes the thread when a publish from Swift has bytes to write. Reconnects back off from
/// 1 s to 30 s. Callbacks arrive on that thread and are handed on as `events`, so nothing of
/// the bridge runs inside libmosquitto.
public final class MQTTClient: @unchecked Sendable {
    /// How to reach and trust the broker.
    public struct Options: Sendable {
        public var host: String
        public var port: UInt16
        public var clientID: String
        public var username: String?
        public var password: String?
        public var keepAlive: Int32 = 30
        /// The last will: published by the broker when this client drops.
        public var will: (topic: String, payload: String, retain: Bool)?
        public var tls: TLS?
        /// Messages with a longer payload are dropped in libmosquitto's callback, before
        /// anything is copied (`Event.oversize` says which topic).
        public var maximumPayload = 8192

        public enum TLS: Sendable, Hashable {
            /// Verify the broker's chain against this CA file, and its name.
            case caFile(String)
            /// Accept exactly the certificate with this SHA-256 fingerprint.
            case pinned(CertificateFingerprint)
        }

        public init(host: String, port: UInt16, clientID: String) {
            self.host = host
            self.port = port
            self.clientID = clientID
        }
    }

    public struct Message: Sendable, Equatable {
        public var topic: String
        public var payload: [UInt8]
        public var qos: Int32
        /// Delivered from the broker's retained store (not live).
        public var retain: Bool
        /// When it arrived (stamped in libmosquitto's callback, before any queue).
        public var receivedAt: Date

        public init(topic: String, payload: [UInt8], qos: Int32 = 1, retain: Bool = false, receivedAt: Date = Date()) {
            self.topic = topic
            self.payload = payload
            self.qos = qos
            self.retain = retain
            self.receivedAt = receivedAt
        }
    }

    public enum Event: Sendable {
        case connected
        case connectionRefused(String)
        case disconnected(code: Int32)
        case message(Message)
        /// A message over `Options.maximumPayload` arrived on this topic and was dropped.
        case oversize(topic: String, bytes: Int)
        /// An error libmosquitto reported (a TLS failure, a refused socket).
        case error(String)
    }

    public let events: AsyncStream<Event>
    private let continuation: AsyncStream<Event>.Continuation
    private let handle: OpaquePointer
    private let options: Options
    private var sslContext: OpaquePointer?
    /// Whether the broker accepted the connection and it has not dropped since.
    private let connected = Locked(false)
    private var pin: UnsafeMutablePointer<UInt8>?
    private let stopped = Locked(false)
    private let stopping = Locked(false)
    private var wake: [Int32] = [-1, -1]
    private var thread: Thread?

    private static let initialise: Void = { _ = Mosquitto.lib_init() }()

    public init(_ options: Options) throws {
        try Mosquitto.load()
        _ = Self.initialise
        self.options = options
        (events, continuation) = AsyncStream.makeStream(of: Event.self, bufferingPolicy: .bufferingNewest(4096))
        guard let handle = Mosquitto.new(options.clientID, true, nil) else {
            throw PhotonError(.internal, "libmosquitto could not make a client")
        }
        self.handle = handle
        // Publishes come from Swift's threads while the network thread reads.
        _ = Mosquitto.threaded_set(handle, true)
        Mosquitto.user_data_set(handle, Unmanaged.passUnretained(self).toOpaque())
        Mosquitto.connect_callback_set(handle) { _, object, rc in
            guard let object else { return }
            let client = Unmanaged<MQTTClient>.fromOpaque(object).takeUnretainedValue()
            client.connected.withLock { $0 = rc == 0 }
            client.continuation.yield(rc == 0 ? .connected : .connectionRefused(String(cString: Mosquitto.connack_string(rc)!)))
        }
        Mosquitto.disconnect_callback_set(handle) { _, object, rc in
            guard let object else { return }
            let client = Unmanaged<MQTTClient>.fromOpaque(object).takeUnretainedValue()
            client.connected.withLock { $0 = false }
            client.continuation.yield(.disconnected(code: rc))
        }
        Mosquitto.message_callback_set(handle) { _, object, message in
            guard let object, let message else { return }
            let m = message.pointee
            let client = Unmanaged<MQTTClient>.fromOpaque(object).takeUnretainedValue()
            let topic = m.topic.map { String(cString: $0) } ?? ""
            guard Int(m.payloadlen) <= client.options.maximumPayload else {
                client.continuation.yield(.oversize(topic: topic, bytes: Int(m.payloadlen)))
                return
            }
            let payload =
                m.payloadlen > 0 && m.payload != nil
                ? Array(UnsafeRawBufferPointer(start: m.payload, count: Int(m.payloadlen))) : []
            client.continuation.yield(.message(Message(topic: topic, payload: payload, qos: m.qos, retain: m.retain, receivedAt: Date())))
        }
        Mosquitto.log_callback_set(handle) { _, object, level, text in
            guard let object, let text, level & Int32(MOSQ_LOG_ERR) != 0 else { return }
            Unmanaged<MQTTClient>.fromOpaque(object).takeUnretainedValue().continuation.yield(
                .error(Redaction.sanitize(String(cString: text), limit: 200)))
        }
        _ = Mosquitto.reconnect_delay_set(handle, 1, 30, true)
        do {
            try configure()
        } catch {
            Mosquitto.destroy(handle)
            throw error
        }
    }

    private func configure() throws {
        // Commands, results and states are small messages that must not wait: without this,
        // Nagle's algorithm holds a publish until the previous one is acknowledged, and the
        // broker's delayed acknowledgement makes that up to 40 ms.
        try check(Mosquitto.int_option(handle, MOSQ_OPT_TCP_NODELAY, 1), "turning off Nagle's algorithm")
        if let username = options.username {
            try check(Mosquitto.username_pw_set(handle, username, options.password), "setting the broker login")
        }
        if let will = options.will {
            let bytes = Array(will.payload.utf8)
            try check(Mosquitto.will_set(handle, will.topic, Int32(bytes.count), bytes, 1, will.retain), "setting the last will")
        }
        switch options.tls {
        case .caFile(let path)?:
            try check(Mosquitto.tls_set(handle, path, nil, nil, nil, nil), "loading the CA file \(path)")
        case .pinned(let fingerprint)?:
            // A context of our own whose verification is the pin alone: the certificate
            // with exactly this SHA-256 fingerprint, whatever signed it.
            guard let ctx = SSL_CTX_new(TLS_client_method()) else { throw PhotonError(.tls, "OpenSSL could not make a TLS context") }
            _ = photonMQTT_set_min_tls12(ctx)
            let stored = UnsafeMutablePointer<UInt8>.allocate(capacity: 32)
            stored.initialize(from: fingerprint.bytes, count: 32)
            pin = stored
            SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nil)
            SSL_CTX_set_cert_verify_callback(
                ctx,
                { store, argument in
                    guard let store, let argument, let certificate = X509_STORE_CTX_get0_cert(store) else { return 0 }
                    var digest = [UInt8](repeating: 0, count: 32)
                    var length: UInt32 = 0
                    guard X509_digest(certificate, EVP_sha256(), &digest, &length) == 1, length == 32 else { return 0 }
                    let expected = argument.assumingMemoryBound(to: UInt8.self)
                    return (0..<32).allSatisfy { digest[$0] == expected[$0] } ? 1 : 0
                }, stored)
            sslContext = ctx
            // Our context as it is: without libmosquitto's defaults (a CA file it would require).
            try check(Mosquitto.int_option(handle, MOSQ_OPT_SSL_CTX_WITH_DEFAULTS, 0), "configuring TLS")
            try check(Mosquitto.void_option(handle, MOSQ_OPT_SSL_CTX, UnsafeMutableRawPointer(ctx)), "using the pinned TLS context")
        case nil:
            break
        }
    }

    private func check(_ rc: Int32, _ what: String) throws {
        guard rc == MOSQ_ERR_SUCCESS.rawValue else {
            throw PhotonError(.usage, "MQTT: \(what) failed: \(String(cString: Mosquitto.strerror(rc)!))")
        }
    }

    /// Connects in the background and keeps reconnecting until `stop`.
    public func start() throws {
        guard pipe(&wake) == 0 else { throw PhotonError(.internal, "cannot make the MQTT thread's wake-up pipe") }
        for fd in wake {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
        // The thread holds the client until `stop()` ends it.
        let thread = Thread { self.networkLoop() }
        thread.name = "photon-mqtt"
        self.thread = thread
        thread.start()
    }

    /// The network thread: connect, then poll the socket (and the wake-up pipe) and let
    /// libmosquitto read, write and keep alive; reconnect with back-off when it drops.
    private func networkLoop() {
        var failures = 0
        var everConnected = false
        while !stopped.withLock({ $0 }) {
            let socket = Mosquitto.socket(handle)
            if socket < 0 {
                // Stopping: the DISCONNECT went out and libmosquitto closed the socket.
                if stopping.withLock({ $0 }) { return }
                let rc = everConnected ? Mosquitto.reconnect(handle) : Mosquitto.connect(handle, options.host, Int32(options.port), options.keepAlive)
                if rc == MOSQ_ERR_SUCCESS.rawValue {
                    everConnected = true
                    failures = 0
                } else {
                    if rc != MOSQ_ERR_ERRNO.rawValue && rc != MOSQ_ERR_CONN_LOST.rawValue && rc != MOSQ_ERR_NO_CONN.rawValue {
                        continuation.yield(.error(String(cString: Mosquitto.strerror(rc)!)))
                    }
                    failures += 1
                    let delay = min(30.0, pow(2.0, Double(min(failures - 1, 5))))
                    var slept = 0.0
                    while slept < delay, !stopped.withLock({ $0 }) {
                        usleep(100_000)
                        slept += 0.1
                    }
                }
                continue
            }
            var fds = [
                pollfd(fd: socket, events: Int16(POLLIN) | (Mosquitto.want_write(handle) ? Int16(POLLOUT) : 0), revents: 0),
                pollfd(fd: wake[0], events: Int16(POLLIN), revents: 0),
            ]
            let ready = poll(&fds, 2, 1000)
            if ready < 0 && errno != EINTR { usleep(10_000) }
            if fds[1].revents != 0 {
                var drain = [UInt8](repeating: 0, count: 64)
                while read(wake[0], &drain, 64) > 0 {}
            }
            var rc = MOSQ_ERR_SUCCESS.rawValue
            if fds[0].revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 { rc = Mosquitto.loop_read(handle, 1) }
            if rc == MOSQ_ERR_SUCCESS.rawValue, Mosquitto.want_write(handle) { rc = Mosquitto.loop_write(handle, 1) }
            if rc == MOSQ_ERR_SUCCESS.rawValue { rc = Mosquitto.loop_misc(handle) }
            if rc != MOSQ_ERR_SUCCESS.rawValue, Mosquitto.socket(handle) >= 0 {
                // A broken connection: close it; the next turn reconnects.
                _ = Mosquitto.disconnect(handle)
            }
        }
    }

    private func wakeUp() {
        var byte: UInt8 = 1
        _ = write(wake[1], &byte, 1)
    }

    /// Publishes; a client that is not connected drops it (nothing is queued for later).
    @discardableResult
    public func publish(_ topic: String, _ payload: [UInt8], qos: Int32 = 1, retain: Bool = false) -> Bool {
        guard !stopping.withLock({ $0 }) else { return false }
        // libmosquitto would queue a QoS 1 message while disconnected (answering "no
        // connection") and deliver it after the reconnect: memory grows during an outage
        // and stale results arrive late. Not connected: dropped here.
        guard connected.withLock({ $0 }) else { return false }
        let sent = payload.withUnsafeBytes { bytes in
            Mosquitto.publish(handle, nil, topic, Int32(bytes.count), bytes.baseAddress, qos, retain) == MOSQ_ERR_SUCCESS.rawValue
        }
        wakeUp()
        return sent
    }

    @discardableResult
    public func publish(_ topic: String, _ text: String, qos: Int32 = 1, retain: Bool = false) -> Bool {
        publish(topic, Array(text.utf8), qos: qos, retain: retain)
    }

    public func subscribe(_ pattern: String, qos: Int32 = 1) throws {
        try check(Mosquitto.subscribe(handle, nil, pattern, qos), "subscribing to \(pattern)")
        wakeUp()
    }

    /// Disconnects cleanly (no last will) and stops the thread. Safe to call twice.
    public func stop() {
        guard
            stopping.withLock({ s -> Bool in
                defer { s = true }
                return !s
            })
        else { return }
        // The DISCONNECT goes out on the network thread, which then ends.
        _ = Mosquitto.disconnect(handle)
        wakeUp()
        if let thread, !Thread.current.isEqual(thread) {
            for _ in 0..<100 where !thread.isFinished { usleep(5_000) }
        }
        stopped.withLock { $0 = true }
        wakeUp()
        if let thread, !Thread.current.isEqual(thread) {
            for _ in 0..<100 where !thread.isFinished { usleep(5_000) }
        }
        continuation.finish()
    }

    deinit {
        stop()
        Mosquitto.destroy(handle)
        if let sslContext { SSL_CTX_free(sslContext) }
        for fd in wake where fd >= 0 { close(fd) }
        pin?.deallocate()
    }
}
