import Foundation
import PhotonCore

/// The Frame's art channel: a second WebSocket to the same server as the remote
/// (`com.samsung.art-app`, the same token and pinned certificate), ready once the TV sends
/// `ms.channel.ready`. Requests are matched to answers by their id; an `error` answer is
/// the request's error; `artmode_status` pushes go to `onArtMode`. Uploads go over a second
/// TCP connection to the address the TV names — which must be the TV's own.
final class SamsungArtChannel: Sendable {
    private struct Waiter {
        var subEvent: String?
        var promise: Promise<JSONValue>
    }

    private struct State {
        var waiters: [String: Waiter] = [:]
        /// Waiters for an event whatever its id (`image_added` follows the upload socket).
        var anyWaiters: [String: Promise<JSONValue>] = [:]
        var closed: PhotonError??
        var apiVersion: String?
    }

    let channel: any MessageStream
    let device: DeviceRecord
    let security: TransportSecurity
    let context: AdapterContext
    private let state = Locked(State())
    private let onArtMode: @Sendable (Bool) -> Void
    private let reader = Locked<Task<Void, Never>?>(nil)

    private init(
        channel: any MessageStream, device: DeviceRecord, security: TransportSecurity, context: AdapterContext,
        onArtMode: @escaping @Sendable (Bool) -> Void
    ) {
        self.channel = channel
        self.device = device
        self.security = security
        self.context = context
        self.onArtMode = onArtMode
    }

    static func open(
        device: DeviceRecord, token: String?, security: TransportSecurity, context: AdapterContext, onArtMode: @escaping @Sendable (Bool) -> Void
    ) async throws -> SamsungArtChannel {
        let request = MessageStreamRequest(
            endpoint: device.endpoint, target: SamsungCommand.channelTarget(clientName: context.clientName, token: token, app: "com.samsung.art-app"),
            security: security, maxMessageSize: SamsungArtMessage.maximumSize)
        let channel = try await context.connector.openMessageStream(request, timeout: context.timeout)
        do {
            _ = try await SamsungSession.waitForConnect(channel, timeout: context.timeout, pairing: false, log: context.log)
            try await waitForReady(channel, timeout: context.timeout)
        } catch {
            await channel.close(code: 1000, reason: "")
            throw error
        }
        let art = SamsungArtChannel(channel: channel, device: device, security: security, context: context, onArtMode: onArtMode)
        let task = Task { [weak art] () -> Void in await art?.readLoop() }
        art.reader.withLock { $0 = task }
        return art
    }

    /// `ms.channel.ready`, which the art app sends after connecting: requests before it are lost.
    private static func waitForReady(_ channel: any MessageStream, timeout: Duration) async throws {
        let end = ContinuousClock.now + timeout
        while true {
            let remaining = end - ContinuousClock.now
            guard remaining > .zero, let message = try await channel.receive(timeout: remaining) else {
                throw PhotonError(.timeout, "the TV's art channel did not become ready", hint: "is this a Frame with art mode?")
            }
            if case .text(let text) = message, case .ready = try SamsungEvent.parse(text) { return }
        }
    }

    private func readLoop() async {
        var reason: PhotonError?
        do {
            while let message = try await channel.receive(timeout: nil) {
                guard case .text(let text) = message else { continue }
                guard let answer = try SamsungArtMessage.parse(text) else { continue }
                deliver(answer)
            }
            let code = await channel.closeCode
            reason =
                code == 1000 || code == 1001
                ? nil : PhotonError(.connectionClosed, "the TV closed its art channel (code \(code.map(String.init) ?? "none"))")
        } catch {
            reason = PhotonError.wrap(error)
        }
        finish(reason)
    }

    private func deliver(_ answer: SamsungArtMessage.Answer) {
        if answer.event == "artmode_status" || answer.event == "art_mode_changed", answer.requestID == nil || !isAwaited(answer) {
            if let on = SamsungArtMessage.artMode(answer.payload) { onArtMode(on) }
        }
        let promise = state.withLock { s -> Promise<JSONValue>? in
            if let id = answer.requestID, let waiter = s.waiters[id],
                answer.event == "error" || waiter.subEvent == nil || waiter.subEvent == answer.event
            {
                s.waiters[id] = nil
                return waiter.promise
            }
            if let waiter = s.anyWaiters[answer.event] {
                s.anyWaiters[answer.event] = nil
                return waiter
            }
            return nil
        }
        guard let promise else { return }
        if answer.event == "error" {
            let code = Redaction.sanitize(
                answer.payload["error_code"]?.stringValue ?? answer.payload["error_code"]?.intValue.map(String.init) ?? "unknown", limit: 16)
            promise.fail(PhotonError(.protocolViolation, "the Frame refused the request (art error \(code))", hint: Self.hint(forError: code)))
        } else {
            promise.succeed(answer.payload)
        }
    }

    private func isAwaited(_ answer: SamsungArtMessage.Answer) -> Bool {
        state.withLock { s in answer.requestID.map { s.waiters[$0] != nil } ?? false }
    }

    static func hint(forError code: String) -> String {
        switch code {
        case "-1": return "the id is not on the TV: `photon art TV` lists them"
        case "-7": return "the TV is busy with another art request; try again"
        default: return "check the id and the value against `photon art TV`"
        }
    }

    private func finish(_ reason: PhotonError?) {
        let pending = state.withLock { s -> [Promise<JSONValue>] in
            guard s.closed == nil else { return [] }
            s.closed = .some(reason)
            defer {
                s.waiters = [:]
                s.anyWaiters = [:]
            }
            return s.waiters.values.map(\.promise) + Array(s.anyWaiters.values)
        }
        let error = reason ?? PhotonError(.connectionClosed, "the art channel closed")
        for promise in pending { promise.fail(error) }
    }

    var isClosed: Bool { state.withLock { $0.closed != nil } }

    func close() async {
        await channel.close(code: 1000, reason: "")
        reader.withLock { $0 }?.cancel()
        finish(nil)
    }

    /// Sends one request and waits for its answer (or `subEvent` among its answers).
    @discardableResult
    func request(_ name: String, _ params: [(String, JSONValue)] = [], waitFor subEvent: String? = nil, timeout: Duration? = nil) async throws
        -> JSONValue
    {
        let id = UUID().uuidString.lowercased()
        let promise = Promise<JSONValue>()
        try state.withLock { s in
            if let closed = s.closed { throw closed ?? PhotonError(.connectionClosed, "the art channel is closed") }
            s.waiters[id] = Waiter(subEvent: subEvent, promise: promise)
        }
        do {
            try await channel.send(.text(SamsungArtMessage.request(name, id: id, params)))
            return try await withTimeout(timeout ?? context.timeout, "waiting for the Frame to answer \(name)") { try await promise.value() }
        } catch {
            _ = state.withLock { $0.waiters.removeValue(forKey: id) }
            throw error
        }
    }

    /// `send_image`, then the bytes over the socket the TV names (its own address only),
    /// then `image_added` with the new content id.
    func upload(_ upload: ArtUpload) async throws -> String {
        let id = UUID().uuidString.lowercased()
        let added = Promise<JSONValue>()
        state.withLock { $0.anyWaiters["image_added"] = added }
        if try await apiVersion() == "0.97" {
            // The older art app takes the image in one binary frame on this channel.
            try await channel.send(.binary(SamsungArtMessage.legacyUpload(upload, id: id)))
            upload.receipt.progress(upload.bytes.count)
            return try await addedContent(added)
        }
        let date = Self.imageDate(Date())
        let ready = try await request(
            "send_image",
            [
                ("file_type", .string(upload.fileType)), ("file_size", .int(upload.bytes.count)), ("image_date", .string(date)),
                ("matte_id", .string(upload.matte)), ("portrait_matte_id", .string(upload.matte)),
                ("conn_info", .object([("d2d_mode", "socket"), ("connection_id", .int(Int.random(in: 0...0x7FFF_FFFF))), ("id", .string(id))])),
            ], waitFor: "ready_to_use")
        let target = try SamsungArtMessage.connection(ready)
        guard target.ip == device.host else {
            throw PhotonError(
                .protocolViolation, "the Frame named another address (\(Redaction.sanitize(target.ip, limit: 40))) for the upload; nothing was sent",
                hint: "Photon uploads only to the paired TV's own address")
        }
        let stream = try await context.connector.openByteStream(
            to: Endpoint(host: device.host, port: target.port), security: target.secured ? security : .plain, timeout: context.timeout)
        do {
            try await stream.write(
                SamsungArtMessage.uploadHeader(fileLength: upload.bytes.count, fileType: upload.fileType, key: target.key), timeout: context.timeout)
            var sent = 0
            while sent < upload.bytes.count {
                let end = min(sent + 64 * 1024, upload.bytes.count)
                try await stream.write(Array(upload.bytes[sent..<end]), timeout: context.timeout)
                sent = end
                upload.receipt.progress(sent)
            }
        } catch {
            await stream.close()
            throw error
        }
        await stream.close()
        return try await addedContent(added)
    }

    /// The content id of `image_added`.
    private func addedContent(_ added: Promise<JSONValue>) async throws -> String {
        let answer = try await withTimeout(.seconds(60), "waiting for the Frame to add the image") { try await added.value() }
        guard let content = answer["content_id"]?.stringValue, ArtCommand.isIdentifier(content) else {
            throw PhotonError(.protocolViolation, "the Frame added the image but named no usable content id")
        }
        return content
    }

    /// The art API's version (`api_version`, else the older `get_api_version`), asked once.
    func apiVersion() async throws -> String {
        if let known = state.withLock({ $0.apiVersion }) { return known }
        let answer: JSONValue
        do {
            answer = try await request("api_version")
        } catch let error as PhotonError where error.code == .protocolViolation {
            answer = try await request("get_api_version")
        }
        let version = answer["version"]?.stringValue.map { Redaction.sanitize($0, limit: 32) } ?? "unknown"
        state.withLock { $0.apiVersion = version }
        return version
    }

    /// `YYYY:MM:DD HH:MM:SS`, as the Frame's own app dates an upload.
    static func imageDate(_ date: Date) -> String {
        let c = Calendar(identifier: .gregorian).dateComponents(in: TimeZone.current, from: date)
        func two(_ n: Int?) -> String { String(format: "%02d", n ?? 0) }
        return "\(c.year ?? 1970):\(two(c.month)):\(two(c.day)) \(two(c.hour)):\(two(c.minute)):\(two(c.second))"
    }
}
