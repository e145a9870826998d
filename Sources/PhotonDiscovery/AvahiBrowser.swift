import CAvahi
import Foundation
import PhotonCore

/// What discovery reports as services come and go.
public enum DiscoveryEvent: Sendable, Equatable {
    case found(DiscoveredService)
    case removed(name: String, type: String)
}

/// Browses mDNS service types through the system's avahi-daemon (over D-Bus, via the
/// Avahi client library), resolving each service to host, addresses, port and TXT as it
/// appears. Results stream as they resolve; names and TXT from the network are bounded
/// and sanitised. One browser, one Avahi poll thread; everything stops with `stop()`.
public final class AvahiBrowser: @unchecked Sendable {
    private let lock = NSLock()
    private let poll: OpaquePointer
    private var client: OpaquePointer?
    private var browsers: [OpaquePointer] = []
    private let continuation: AsyncStream<DiscoveryEvent>.Continuation
    public let events: AsyncStream<DiscoveryEvent>
    private var stopped = false
    /// The pointer Avahi hands back to the C callbacks.
    private var userdata: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }
    /// Keeps the browser alive while Avahi may call back, so the last release can never
    /// happen on Avahi's own thread (where stopping its loop would deadlock). Released by
    /// `stop()`, which callers must call.
    private var keepAlive: Unmanaged<AvahiBrowser>?

    /// Starts browsing `types` (e.g. `_example._tcp`). Throws a clear error when
    /// no avahi-daemon (or no D-Bus) is there.
    public init(types: [String]) throws {
        (events, continuation) = AsyncStream.makeStream(of: DiscoveryEvent.self, bufferingPolicy: .bufferingNewest(1024))
        try Avahi.load()
        guard let poll = Avahi.threaded_poll_new() else {
            throw PhotonError(.internal, "cannot create the Avahi event loop")
        }
        self.poll = poll
        var error: Int32 = 0
        let client = Avahi.client_new(
            Avahi.threaded_poll_get(poll), AvahiClientFlags(rawValue: 0),
            { _, state, userdata in
                guard let userdata else { return }
                let browser = Unmanaged<AvahiBrowser>.fromOpaque(userdata).takeUnretainedValue()
                if state == AVAHI_CLIENT_FAILURE { browser.daemonLost() }
            }, userdata, &error)
        guard let client else {
            Avahi.threaded_poll_free(poll)
            throw Self.daemonError(error)
        }
        self.client = client
        for type in types {
            guard
                let browser = Avahi.service_browser_new(
                    client, AvahiIfIndex(AVAHI_IF_UNSPEC), AvahiProtocol(AVAHI_PROTO_UNSPEC), type, nil, AvahiLookupFlags(rawValue: 0),
                    { _, interface, proto, event, name, type, domain, _, userdata in
                        guard let userdata, let name, let type else { return }
                        let browser = Unmanaged<AvahiBrowser>.fromOpaque(userdata).takeUnretainedValue()
                        browser.browseEvent(interface: interface, proto: proto, event: event, name: name, type: type, domain: domain)
                    }, userdata)
            else {
                let code = Avahi.client_errno(client)
                Avahi.client_free(client)
                Avahi.threaded_poll_free(poll)
                throw PhotonError(.internal, "cannot browse \(type): \(String(cString: Avahi.strerror(code)!))")
            }
            browsers.append(browser)
        }
        keepAlive = Unmanaged.passRetained(self)
        guard Avahi.threaded_poll_start(poll) == 0 else {
            keepAlive?.release()
            keepAlive = nil
            Avahi.client_free(client)
            Avahi.threaded_poll_free(poll)
            throw PhotonError(.internal, "cannot start the Avahi event loop")
        }
    }

    static func daemonError(_ code: Int32) -> PhotonError {
        let text = String(cString: Avahi.strerror(code)!)
        return PhotonError(
            .unreachable, "mDNS discovery needs avahi-daemon, and it is not reachable (\(text))",
            hint:
                "start it (`sudo systemctl start avahi-daemon`, or `avahi-daemon -D`), check D-Bus is running, or skip discovery: `photon probe ADDRESS`"
        )
    }

    /// Called on the Avahi thread.
    private func browseEvent(
        interface: AvahiIfIndex, proto: AvahiProtocol, event: AvahiBrowserEvent, name: UnsafePointer<CChar>,
        type: UnsafePointer<CChar>, domain: UnsafePointer<CChar>?
    ) {
        switch event {
        case AVAHI_BROWSER_NEW:
            guard let client else { return }
            // The resolver frees itself in its callback.
            _ = Avahi.service_resolver_new(
                client, interface, proto, name, type, domain, AvahiProtocol(AVAHI_PROTO_UNSPEC), AvahiLookupFlags(rawValue: 0),
                { resolver, _, _, event, name, type, _, host, address, port, txt, _, userdata in
                    defer { if let resolver { Avahi.service_resolver_free(resolver) } }
                    guard let userdata, event == AVAHI_RESOLVER_FOUND, let name, let type else { return }
                    let browser = Unmanaged<AvahiBrowser>.fromOpaque(userdata).takeUnretainedValue()
                    browser.resolved(name: name, type: type, host: host, address: address, port: port, txt: txt)
                }, userdata)
        case AVAHI_BROWSER_REMOVE:
            continuation.yield(.removed(name: Self.text(name, limit: 128), type: Self.text(type, limit: 64)))
        case AVAHI_BROWSER_FAILURE:
            daemonLost()
        default:
            break
        }
    }

    private func resolved(
        name: UnsafePointer<CChar>, type: UnsafePointer<CChar>, host: UnsafePointer<CChar>?, address: UnsafePointer<AvahiAddress>?,
        port: UInt16, txt: UnsafeMutablePointer<AvahiStringList>?
    ) {
        var addresses: [String] = []
        if let address {
            var buffer = [CChar](repeating: 0, count: Int(AVAHI_ADDRESS_STR_MAX))
            Avahi.address_snprint(&buffer, buffer.count, address)
            addresses.append(Self.text(buffer, limit: 64))
        }
        var entries: [[UInt8]] = []
        var item = txt
        while let entry = item, entries.count < MDNSTXT.maximumEntries {
            let size = Int(Avahi.string_list_get_size(entry))
            if let text = Avahi.string_list_get_text(entry), size > 0, size <= 255 {
                entries.append(Array(UnsafeBufferPointer(start: text, count: size)))
            }
            item = Avahi.string_list_get_next(entry)
        }
        let records = MDNSTXT.decode(entries: entries)
        continuation.yield(
            .found(
                DiscoveredService(
                    name: Self.text(name, limit: 128), type: Self.text(type, limit: 64), host: host.map { Self.text($0, limit: 255) } ?? "",
                    addresses: addresses, port: port, txt: records)))
    }

    private func daemonLost() {
        continuation.finish()
    }

    static func text(_ pointer: UnsafePointer<CChar>, limit: Int) -> String {
        Redaction.sanitize(String(cString: pointer), limit: limit)
    }

    static func text(_ buffer: [CChar], limit: Int) -> String {
        Redaction.sanitize(String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self), limit: limit)
    }

    /// Stops browsing and ends the event stream. Safe to call more than once, from any
    /// thread but Avahi's.
    public func stop() {
        let release: Unmanaged<AvahiBrowser>? = lock.withLock {
            guard !stopped else { return nil }
            stopped = true
            Avahi.threaded_poll_stop(poll)
            for browser in browsers { Avahi.service_browser_free(browser) }
            browsers = []
            if let client { Avahi.client_free(client) }
            client = nil
            Avahi.threaded_poll_free(poll)
            continuation.finish()
            defer { keepAlive = nil }
            return keepAlive
        }
        release?.release()
    }
}

/// Announces a service through avahi-daemon (the emulators' `--publish`).
public final class AvahiPublisher: @unchecked Sendable {
    private let poll: OpaquePointer
    private let client: OpaquePointer
    private let group: OpaquePointer
    /// The name announced (differs from the one asked for after a collision).
    public private(set) var publishedName = ""
    /// Fulfilled when avahi-daemon has finished probing and announced the service
    /// (RFC 6762 probing takes the daemon most of a second).
    public let established = Promise<Void>()
    private let box: Unmanaged<Promise<Void>>

    public init(name: String, type: String, port: UInt16, txt: [String: String]) throws {
        try Avahi.load()
        guard let poll = Avahi.threaded_poll_new() else { throw PhotonError(.internal, "cannot create the Avahi event loop") }
        var error: Int32 = 0
        guard let client = Avahi.client_new(Avahi.threaded_poll_get(poll), AvahiClientFlags(rawValue: 0), { _, _, _ in }, nil, &error) else {
            Avahi.threaded_poll_free(poll)
            throw AvahiBrowser.daemonError(error)
        }
        let box = Unmanaged.passRetained(established)
        self.box = box
        guard
            let group = Avahi.entry_group_new(
                client,
                { _, state, userdata in
                    guard let userdata else { return }
                    let promise = Unmanaged<Promise<Void>>.fromOpaque(userdata).takeUnretainedValue()
                    if state == AVAHI_ENTRY_GROUP_ESTABLISHED { promise.succeed(()) }
                    if state == AVAHI_ENTRY_GROUP_COLLISION || state == AVAHI_ENTRY_GROUP_FAILURE {
                        promise.fail(PhotonError(.internal, "avahi-daemon could not announce the service"))
                    }
                }, box.toOpaque())
        else {
            box.release()
            Avahi.client_free(client)
            Avahi.threaded_poll_free(poll)
            throw PhotonError(.internal, "cannot create an Avahi entry group")
        }
        var list: UnsafeMutablePointer<AvahiStringList>?
        for (key, value) in txt.sorted(by: { $0.key < $1.key }) { list = Avahi.string_list_add(list, "\(key)=\(value)") }
        // A name already taken on the network gets Avahi's alternative ("Name #2").
        var serviceName = name
        var added: Int32 = 0
        for _ in 0..<10 {
            added = Avahi.entry_group_add_service_strlst(
                group, AvahiIfIndex(AVAHI_IF_UNSPEC), AvahiProtocol(AVAHI_PROTO_UNSPEC), AvahiPublishFlags(rawValue: 0), serviceName,
                type, nil, nil, port, list)
            guard added == Int32(AVAHI_ERR_COLLISION), let alternative = Avahi.alternative_service_name(serviceName) else { break }
            serviceName = String(cString: alternative)
            Avahi.free(alternative)
        }
        Avahi.string_list_free(list)
        publishedName = serviceName
        guard added == 0, Avahi.entry_group_commit(group) == 0 else {
            let code = Avahi.client_errno(client)
            Avahi.client_free(client)
            Avahi.threaded_poll_free(poll)
            throw PhotonError(.internal, "cannot announce \(name): \(String(cString: Avahi.strerror(code)!))")
        }
        guard Avahi.threaded_poll_start(poll) == 0 else {
            Avahi.client_free(client)
            Avahi.threaded_poll_free(poll)
            throw PhotonError(.internal, "cannot start the Avahi event loop")
        }
        self.poll = poll
        self.client = client
        self.group = group
    }

    deinit {
        Avahi.threaded_poll_stop(poll)
        Avahi.entry_group_free(group)
        Avahi.client_free(client)
        Avahi.threaded_poll_free(poll)
        box.release()
    }
}
