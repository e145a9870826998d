import PhotonCore

/// The start of every SSAP connection, read in order before the channel's reader runs:
/// `hello`, then `system/getSystemInfo` (newer firmware wants it before registering),
/// then `register`. Frames that are not the awaited reply are skipped, so a chatty TV
/// cannot derail it, and every wait is bounded.
enum LGHandshake {
    /// What the TV said before registering.
    struct Greeting: Sendable {
        var hello: LGHello
        /// `modelName` from getSystemInfo, when the TV answered it.
        var modelName: String?
    }

    static func greet(_ stream: any MessageStream, timeout: Duration, log: PhotonLog) async throws -> Greeting {
        let end = ContinuousClock.now + timeout
        try await stream.send(.text(SSAPRequest.hello))
        let hello = try await next(from: stream, until: end, what: "the TV's hello") { $0.kind == .hello }
        try await stream.send(.text(SSAPRequest.message(id: 0, uri: "system/getSystemInfo")))
        let info = try await next(from: stream, until: end, what: "the TV's system information") { $0.id == "0" }
        var model: String?
        if info.failure == nil {
            model = info.payload["modelName"]?.stringValue.map { Redaction.sanitize($0, limit: 64) }
        } else {
            log.debug("lg: getSystemInfo before registering was refused (\(Redaction.sanitize(info.failure ?? "", limit: 80))); going on")
        }
        return Greeting(hello: LGHello(payload: hello.payload), modelName: model)
    }

    /// Registers. With a stored `clientKey` the TV answers `registered` at once; a TV that
    /// asks for a prompt instead no longer knows the key. Without one, `prompted` runs
    /// when the TV shows its prompt and the wait for the user is bounded by `accept`.
    static func register(
        _ stream: any MessageStream, clientKey: String?, timeout: Duration, accept: Duration, log: PhotonLog,
        prompted: @Sendable () async throws -> Void = {}
    ) async throws -> String {
        try await stream.send(.text(SSAPRequest.register(id: "register_0", clientKey: clientKey)))
        log.debug("lg: sent register (\(clientKey == nil ? "new pairing" : "with the stored client key"))")
        var end = ContinuousClock.now + timeout
        var prompting = false
        while true {
            let reply: SSAPMessage
            do {
                reply = try await next(from: stream, until: end, what: "the TV's answer to registering") { $0.id == "register_0" }
            } catch let error as PhotonError where error.code == .timeout && prompting {
                throw PhotonError(
                    .timeout, "nobody accepted Photon on the TV within \(Int(accept.seconds)) s",
                    hint:
                        "run `photon pair` again and accept the prompt on the TV's screen in time (it has to show the TV picture, not be in standby)")
            }
            switch reply.kind {
            case .registered:
                guard let key = reply.payload["client-key"]?.stringValue, isPlausibleKey(key) else {
                    throw PhotonError(.protocolViolation, "the TV registered Photon without a usable client key")
                }
                return key
            case .response where reply.payload["pairingType"]?.stringValue != nil:
                if clientKey != nil {
                    throw PhotonError(
                        .authenticationRefused, "the TV no longer accepts the stored client key (it asks to pair again)",
                        hint: LGErrors.stalePairingHint)
                }
                guard !prompting else { continue }
                prompting = true
                try await prompted()
                end = ContinuousClock.now + accept
            case .error:
                throw refusal(reply.error ?? "", stored: clientKey != nil)
            default:
                if let failure = reply.failure { throw refusal(failure, stored: clientKey != nil) }
            }
        }
    }

    /// What a register error means: a declined (or expired) prompt, a refused stored key,
    /// or the 2026 firmware refusing a signed manifest.
    static func refusal(_ text: String, stored: Bool) -> PhotonError {
        let shown = Redaction.sanitize(text, limit: 120)
        if text.contains("blacklisted") {
            return PhotonError(
                .pairingRefused, "the TV refused the registration (\(shown))",
                hint: "this firmware refuses signed manifests; Photon sends an unsigned one, so report this with `photon doctor --report`")
        }
        if stored {
            return PhotonError(.authenticationRefused, "the TV refused the stored client key (\(shown))", hint: LGErrors.stalePairingHint)
        }
        return PhotonError(
            .pairingRefused, "the TV refused pairing (\(shown)): the prompt was declined, or it expired on the TV",
            hint: "run `photon pair` again and choose Accept on the TV's screen")
    }

    /// Client keys are 32 hex digits on real TVs; anything printable up to 128 is taken.
    static func isPlausibleKey(_ key: String) -> Bool {
        !key.isEmpty && key.utf8.count <= 128 && key.unicodeScalars.allSatisfy { $0.value > 0x20 && $0.value < 0x7F && $0 != "\"" && $0 != "\\" }
    }

    /// The next frame that `matches`, skipping others; bounded by `end`.
    static func next(
        from stream: any MessageStream, until end: ContinuousClock.Instant, what: String, matches: (SSAPMessage) -> Bool
    ) async throws -> SSAPMessage {
        while true {
            let remaining = end - ContinuousClock.now
            guard remaining > .zero else {
                throw PhotonError(.timeout, "the TV did not send \(what) in time", hint: "is this an LG webOS TV, and is it on?")
            }
            let frame: WebSocketMessage?
            do {
                frame = try await stream.receive(timeout: remaining)
            } catch let error as PhotonError where error.code == .timeout {
                throw PhotonError(.timeout, "the TV did not send \(what) in time", hint: "is this an LG webOS TV, and is it on?")
            }
            guard let frame else {
                let code = await stream.closeCode
                throw PhotonError(
                    .connectionClosed, "the TV closed the connection while Photon waited for \(what) (code \(code.map(String.init) ?? "none"))",
                    hint: code == 1008 ? "the TV refused the connection's origin" : "check that the TV is on and that LG Connect Apps is enabled")
            }
            guard case .text(let text) = frame, let message = try SSAPMessage.parse(text), matches(message) else { continue }
            return message
        }
    }
}
