import PhotonCore
import PhotonCrypto

/// A host's connection to adbd over TCP: the `CNXN`/`AUTH` handshake with this
/// installation's RSA key, then shell commands, each on a stream of its own (`OPEN
/// shell:…`, the output in `WRTE`s, `CLSE` at its end) over the one connection. A reader
/// task dispatches what the device sends; a command waits at most its timeout.
final class ADBConnection: Sendable {
    /// How the handshake went.
    enum Authentication: Sendable, Equatable {
        /// The device knew the key (or asks for none).
        case accepted
        /// The device did not know it: the key was offered, and the user allowed it.
        case allowedOnTheDevice
    }

    private struct ShellStream {
        var remoteID: UInt32?
        var output: [UInt8] = []
        var opened: Promise<Void>
        var finished: Promise<[UInt8]>
    }

    private struct State {
        var nextLocalID: UInt32 = 1
        var streams: [UInt32: ShellStream] = [:]
        var closed = false
        var endReason: PhotonError?
    }

    let stream: any ByteStream
    /// The device's banner (`device::ro.product.name=…;ro.product.model=…;features=…`).
    let banner: String
    let maximumPayload: Int
    private let state = Locked(State())
    private let reader = Locked<Task<Void, Never>?>(nil)
    private let ended = Promise<PhotonError?>()
    /// Output of one command beyond this is cut (a command that never stops talking).
    static let maximumOutput = 1024 * 1024

    private init(stream: any ByteStream, banner: String, maximumPayload: Int, decoder: ADBMessageDecoder) {
        self.stream = stream
        self.banner = banner
        self.maximumPayload = maximumPayload
        let task = Task { [weak self] () -> Void in await self?.readLoop(decoder) }
        reader.withLock { $0 = task }
    }

    /// The banner's properties (`ro.product.model` …).
    var properties: [String: String] {
        var result: [String: String] = [:]
        let body = banner.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false).dropFirst(2).first ?? ""
        for pair in body.split(separator: ";") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            if parts.count == 2 { result[String(parts[0])] = String(parts[1]) }
        }
        return result
    }

    /// Connects and authenticates with the key `loadKey` gives, asked for once, when the
    /// device first wants a signature (reading it then overlaps sending CNXN and the
    /// device's answer). When the device does not know the key, `offerKey` is
    /// asked whether to offer it (pairing says yes and tells the user what to accept; a
    /// session says no, and the connection fails with `authenticationRefused`), and the
    /// device's answer is awaited for at most `acceptTimeout`.
    static func open(
        _ stream: any ByteStream, key loadKey: @Sendable () async throws -> RSAKey, comment: String, timeout: Duration,
        offerKey: @Sendable (_ fingerprint: String) async throws -> Bool = { _ in false }, acceptTimeout: Duration = .seconds(60)
    ) async throws -> (ADBConnection, Authentication) {
        var decoder = ADBMessageDecoder()
        func receive(_ limit: Duration, _ what: String) async throws -> ADBMessage {
            let end = ContinuousClock.now + limit
            while true {
                if let message = try decoder.next() { return message }
                let left = end - ContinuousClock.now
                guard left > .zero else { throw PhotonError.timedOut(what, after: limit.seconds) }
                let bytes: [UInt8]
                do {
                    bytes = try await stream.read(maxLength: 64 * 1024, timeout: left)
                } catch let error as PhotonError where error.code == .timeout {
                    throw PhotonError.timedOut(what, after: limit.seconds)
                }
                guard !bytes.isEmpty else {
                    throw PhotonError(.connectionClosed, "the device closed the connection while \(what)")
                }
                decoder.append(bytes)
            }
        }
        try await stream.write(
            ADBMessage(.connect, ADBMessage.versionSkipChecksum, UInt32(ADBMessage.maximumPayload), Array("host::\0".utf8)).encoded(),
            timeout: timeout)
        var authentication = Authentication.accepted
        var signed = false
        var loadedKey: RSAKey?
        func key() async throws -> RSAKey {
            if let loadedKey { return loadedKey }
            let loaded = try await loadKey()
            loadedKey = loaded
            return loaded
        }
        while true {
            let message = try await receive(timeout, "waiting for the device's answer to CNXN")
            switch (message.command, ADBMessage.AuthType(rawValue: message.arg0)) {
            case (.connect, _):
                // A device of the old version wants checksums on what it is sent and sends them.
                decoder.checksRequired = message.arg0 < ADBMessage.versionSkipChecksum
                let payloadLimit = max(4096, min(Int(message.arg1), ADBMessage.maximumPayload))
                let connection = ADBConnection(stream: stream, banner: message.text, maximumPayload: payloadLimit, decoder: decoder)
                return (connection, authentication)
            case (.auth, .token?) where !signed:
                guard message.payload.count == 20 else {
                    throw PhotonError(.protocolViolation, "an ADB token of \(message.payload.count) bytes, not 20")
                }
                let signature = try await key().signPKCS1(digest: message.payload, algorithm: .sha1)
                try await stream.write(ADBMessage(.auth, ADBMessage.AuthType.signature.rawValue, 0, signature).encoded(), timeout: timeout)
                signed = true
            case (.auth, .token?):
                // The signature was not accepted: the device does not know this key.
                let offered = try ADBPublicKey.encode(try await key(), comment: comment)
                guard try await offerKey(ADBPublicKey.fingerprint(offered)) else {
                    throw PhotonError(
                        .authenticationRefused,
                        "the device no longer accepts Photon's ADB key for it (its debugging authorisations were revoked)",
                        hint: "pair again and allow debugging on the TV: photon pair HOST --brand firetv")
                }
                try await stream.write(ADBMessage(.auth, ADBMessage.AuthType.publicKey.rawValue, 0, offered).encoded(), timeout: timeout)
                authentication = .allowedOnTheDevice
                let answer: ADBMessage
                do {
                    answer = try await receive(acceptTimeout, "waiting for \"Allow debugging\" to be accepted on the TV")
                } catch let error as PhotonError where error.code == .connectionClosed {
                    throw PhotonError(
                        .pairingRefused, "the device declined Photon's ADB key and closed the connection",
                        hint: "run photon pair again and choose Allow on the TV (tick \"Always allow from this computer\")")
                } catch let error as PhotonError where error.code == .timeout {
                    throw PhotonError(
                        .timeout,
                        "nobody allowed debugging on the TV within \(Int(acceptTimeout.seconds)) s (a device that was declined looks the same: adbd keeps the connection waiting)",
                        hint: "run photon pair again and choose Allow on the TV's \"Allow USB debugging?\" prompt")
                }
                guard answer.command == .connect else {
                    throw PhotonError(.pairingRefused, "the device did not accept Photon's ADB key (it answered \(answer.command))")
                }
                decoder.checksRequired = answer.arg0 < ADBMessage.versionSkipChecksum
                let payloadLimit = max(4096, min(Int(answer.arg1), ADBMessage.maximumPayload))
                return (ADBConnection(stream: stream, banner: answer.text, maximumPayload: payloadLimit, decoder: decoder), authentication)
            case (.startTLS, _):
                throw PhotonError(
                    .unsupported, "the device asks for TLS (Android 11+ wireless debugging, paired with a code), which Photon does not support",
                    hint: "turn on classic network debugging (ADB debugging over TCP, port 5555) on the device")
            default:
                throw PhotonError(.protocolViolation, "the device answered CNXN with \(message.command)")
            }
        }
    }

    /// Whether the connection has ended, and why (nil: closed by us or cleanly).
    var end: PhotonError?? { state.withLock { $0.closed ? .some($0.endReason) : nil } }

    /// Waits until the connection ends; returns why (nil: closed cleanly).
    func waitForEnd() async -> PhotonError? { (try? await ended.value()) ?? nil }

    /// Runs `command` in the device's shell and returns its output (stdout and stderr as
    /// the legacy shell service mixes them).
    func shell(_ command: String, timeout: Duration) async throws -> String {
        let output = try await run(service: "shell:" + command, timeout: timeout)
        return String(decoding: output, as: UTF8.self)
    }

    /// Opens `service` as a stream and collects what it sends until it closes.
    func run(service: String, timeout: Duration) async throws -> [UInt8] {
        let payload = Array(service.utf8) + [0]
        guard payload.count <= maximumPayload else {
            throw PhotonError(.messageTooLarge, "the command is \(payload.count) bytes; the device takes at most \(maximumPayload)")
        }
        let opened = Promise<Void>()
        let finished = Promise<[UInt8]>()
        let localID = try state.withLock { s -> UInt32 in
            if s.closed { throw s.endReason ?? PhotonError(.connectionClosed, "the connection to the device is closed") }
            let id = s.nextLocalID
            s.nextLocalID = s.nextLocalID == UInt32.max ? 1 : s.nextLocalID + 1
            s.streams[id] = ShellStream(opened: opened, finished: finished)
            return id
        }
        do {
            return try await withTimeout(timeout, "waiting for the device to run a command") {
                try CommandDeadline.checkBeforeSending()
                try await self.stream.write(ADBMessage(.open, localID, 0, payload).encoded(), timeout: timeout)
                try await opened.value()
                return try await finished.value()
            }
        } catch {
            let remote = state.withLock { s -> UInt32? in s.streams.removeValue(forKey: localID)?.remoteID }
            if let remote { try? await stream.write(ADBMessage(.close, localID, remote).encoded(), timeout: .seconds(1)) }
            throw error
        }
    }

    private func readLoop(_ initial: ADBMessageDecoder) async {
        var decoder = initial
        var reason: PhotonError?
        do {
            loop: while true {
                while let message = try decoder.next() {
                    try await handle(message)
                }
                let bytes = try await stream.read(maxLength: 64 * 1024, timeout: nil)
                if bytes.isEmpty { break loop }
                decoder.append(bytes)
            }
            reason = state.withLock { $0.closed } ? nil : PhotonError(.connectionClosed, "the device closed the connection")
        } catch {
            reason = state.withLock { $0.closed } ? nil : PhotonError.wrap(error)
        }
        finish(reason)
    }

    private func handle(_ message: ADBMessage) async throws {
        switch message.command {
        case .okay:
            let opened = state.withLock { s -> Promise<Void>? in
                guard var entry = s.streams[message.arg1] else { return nil }
                if entry.remoteID == nil { entry.remoteID = message.arg0 }
                s.streams[message.arg1] = entry
                return entry.opened
            }
            opened?.succeed(())
        case .write:
            let known = state.withLock { s -> Bool in
                guard var entry = s.streams[message.arg1] else { return false }
                if entry.output.count < Self.maximumOutput { entry.output += message.payload.prefix(Self.maximumOutput - entry.output.count) }
                s.streams[message.arg1] = entry
                return true
            }
            // Every WRTE is acknowledged, or the device sends no more on that stream.
            if known { try await stream.write(ADBMessage(.okay, message.arg1, message.arg0).encoded(), timeout: .seconds(5)) }
        case .close:
            let entry = state.withLock { $0.streams.removeValue(forKey: message.arg1) }
            guard let entry else { return }
            if entry.remoteID == nil {
                // Closed before it opened: the device refused the service.
                entry.opened.fail(PhotonError(.unsupported, "the device refused the command's service"))
            } else {
                entry.opened.succeed(())
            }
            entry.finished.succeed(entry.output)
            try await stream.write(ADBMessage(.close, message.arg1, message.arg0).encoded(), timeout: .seconds(5))
        case .connect:
            // A second CNXN resets the device's side: every open stream is gone.
            throw PhotonError(.connectionClosed, "the device restarted the connection")
        case .auth:
            // Another host's connection displaced this one (some Fire OS versions allow one
            // debugging client at a time), or the device dropped its authorisation.
            throw PhotonError(
                .connectionClosed, "the device asked to authenticate again: another debugging client may have taken over the connection",
                hint: "close other ADB clients (adb, Home Assistant's Android TV integration) connected to this device")
        default:
            throw PhotonError(.protocolViolation, "the device sent \(message.command) on an open connection")
        }
    }

    private func finish(_ reason: PhotonError?) {
        let streams = state.withLock { s -> [ShellStream] in
            if !s.closed {
                s.closed = true
                s.endReason = reason
            }
            defer { s.streams.removeAll() }
            return Array(s.streams.values)
        }
        let error = reason ?? PhotonError(.connectionClosed, "the connection to the device is closed")
        for entry in streams {
            entry.opened.fail(error)
            entry.finished.fail(error)
        }
        ended.succeed(reason)
    }

    func close() async {
        let first = state.withLock { s -> Bool in
            defer { s.closed = true }
            return !s.closed
        }
        await stream.close()
        reader.withLock { $0 }?.cancel()
        if first { finish(nil) }
    }
}
