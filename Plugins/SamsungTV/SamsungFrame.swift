import PhotonCore

/// The Frame on a Samsung session: art mode as the power state `art`, power that really
/// switches the set off, and the art commands over the art channel (opened on first use,
/// or at once on a Frame to learn the art mode). A set that is not a Frame refuses art
/// with `unsupported` and the reason.
extension SamsungSession {
    /// Whether the set is a Frame (REST `FrameTVSupport`), asked once.
    func isFrame() async throws -> Bool {
        if let known = frame.withLock({ $0.isFrame }) { return known }
        let info = try await SamsungTVAdapter.deviceInfo(host: device.host, restPort: restPort, context: context)
        frame.withLock { $0.isFrame = info.frameTV }
        return info.frameTV
    }

    /// The art channel, opened on first use.
    func artChannel() async throws -> SamsungArtChannel {
        guard try await isFrame() else {
            throw PhotonError.unsupported(
                "this Samsung TV is not a Frame (its REST answer says FrameTVSupport false), so it has no art mode",
                hint: "art mode is on Samsung's The Frame")
        }
        // One opening shared by every caller (the session's start and a command at once).
        let (task, stale) = frame.withLock { s -> (Task<SamsungArtChannel, any Error>, SamsungArtChannel?) in
            if let task = s.opening, s.channel.map({ !$0.isClosed }) ?? true { return (task, nil) }
            let stale = s.channel
            s.channel = nil
            let task = Task { [device, token, security, context] in
                try await SamsungArtChannel.open(device: device, token: token, security: security, context: context) { [weak self] on in
                    self?.report(artMode: on)
                }
            }
            s.opening = task
            return (task, stale)
        }
        if let stale { await stale.close() }
        do {
            let channel = try await task.value
            frame.withLock { $0.channel = channel }
            return channel
        } catch {
            frame.withLock { s in if s.channel == nil { s.opening = nil } }
            throw error
        }
    }

    /// Art mode now (`get_artmode_status`).
    func artMode() async throws -> Bool {
        let answer = try await artChannel().request("get_artmode_status")
        guard let on = SamsungArtMessage.artMode(answer) else {
            throw PhotonError(.protocolViolation, "the Frame's art mode status says neither on nor off")
        }
        frame.withLock { $0.artMode = on }
        return on
    }

    /// Reports art mode as the power state: `art` (off for automations) or `on`.
    func report(artMode on: Bool) {
        frame.withLock { $0.artMode = on }
        continuation.yield(.powerState(on ? .art : .on, reason: on ? "art mode" : nil))
        continuation.yield(.power(isOn: !on))
    }

    /// On: from art mode, art off (the TV shows TV); from standby, KEY_POWER. Off: a held
    /// KEY_POWER (a click only toggles art mode).
    func framePower(on: Bool) async throws {
        let powered = try await currentPower() == true
        if on {
            guard powered else { return try await sendKey("KEY_POWER", .click) }
            if try await artMode() { try await art(.mode(on: false)) }
            return
        }
        guard powered else { return }
        try await sendKey("KEY_POWER", .press)
        try await context.clock.sleep(for: SamsungFrameState.offHold)
        try await sendKey("KEY_POWER", .release, paced: false)
    }

    func art(_ command: ArtCommand) async throws {
        try checkOpen()
        let channel = try await artChannel()
        switch command {
        case .mode(let on):
            try await channel.request("set_artmode_status", [("value", .string(on ? "on" : "off"))])
            report(artMode: on)
        case .show(let id): try await channel.request("select_image", [("content_id", .string(id)), ("category_id", .null), ("show", true)])
        case .delete(let id):
            let answer = try await channel.request("delete_image_list", [("content_id_list", .array([.object([("content_id", .string(id))])]))])
            let removed = answer["content_id_list"]?.stringValue.flatMap { try? JSONValue.parse($0) } ?? answer["content_id_list"]
            guard removed?.arrayValue?.contains(where: { $0["content_id"]?.stringValue == id }) == true else {
                throw PhotonError(.notFound, "the Frame did not delete \(id)", hint: "`photon art TV` lists the artworks it has")
            }
        case .brightness(let level): try await channel.request("set_brightness", [("value", .int(level))])
        case .matte(let id, let matte): try await channel.request("change_matte", [("content_id", .string(id)), ("matte_id", .string(matte))])
        case .slideshow(let minutes):
            try await channel.request(
                "set_slideshow_status",
                [("value", .string(minutes.map(String.init) ?? "off")), ("category_id", "MY-C0002"), ("type", "slideshow")])
        }
    }

    /// The artworks, the one shown marked (`get_content_list`, `get_current_artwork`).
    func artworks() async throws -> [TVListItem] {
        try checkOpen()
        let channel = try await artChannel()
        let list = try SamsungArtMessage.contentList(try await channel.request("get_content_list", [("category", .null)]))
        let current = try? await channel.request("get_current_artwork")["content_id"]?.stringValue
        return list.map { TVListItem(id: $0.contentID, name: $0.contentID, kind: $0.category, active: $0.contentID == current) }
    }

    func uploadArt(_ upload: ArtUpload) async throws {
        try checkOpen()
        let id = try await artChannel().upload(upload)
        upload.receipt.finished(contentID: id)
    }
}
