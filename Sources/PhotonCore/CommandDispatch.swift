/// How a brand-neutral command reaches a session: the capability checked once, then the
/// method of the protocol the command needs. This switch is the only one over
/// `RemoteCommand` on the way to a TV; adapters never see a command they did not declare.
extension RemoteCommand {
    /// Performs this command on `session`, or throws `unsupported` (nothing sent) when
    /// the TV lacks the capability or the adapter does not implement it.
    public func perform(on session: any RemoteSession, sleep: @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) })
        async throws
    {
        // The session's own state reads, held for the command it was opened for, go now.
        defer { session.stateReadGate?.release() }
        let needed = requiredCapability
        guard session.capabilities.contains(needed) else {
            throw session.unavailability(of: needed)
                ?? PhotonError.unsupported(
                    "this TV cannot \(needed.action): its brand's protocol has no way to; nothing was sent",
                    hint: needed == .volumeSet
                        ? "it takes volume steps: photon volume TV up|down"
                        : "`photon help` for the command lists the brands that can (capability \(needed.rawValue))")
        }
        switch self {
        case .key(let input, let action):
            let keys = try Self.keySender(in: session, for: needed)
            if action == .holdEnd {
                // A key must never stay held: the release ignores the command's expiry.
                try await CommandDeadline.exempt { try await keys.sendKey(input, .holdEnd) }
            } else {
                try await keys.sendKey(input, action)
            }
        case .longPress(let input, let milliseconds):
            let keys = try Self.keySender(in: session, for: needed)
            try await keys.sendKey(input, .holdStart)
            // The release is sent even if the wait is cancelled or the command expired.
            let slept: Result<Void, any Error>
            do {
                if keys.holdsForTheTimeAsked { try await sleep(.milliseconds(milliseconds)) }
                slept = .success(())
            } catch { slept = .failure(error) }
            try await CommandDeadline.exempt { try await keys.sendKey(input, .holdEnd) }
            try slept.get()
        case .volume(let change):
            try await Self.keySender(in: session, for: needed).sendKey(.key(change.key), .press)
        case .text(let text): try await Self.implementation(of: TextTyping.self, in: session, for: needed).type(text)
        case .launch(let app):
            let launcher = try Self.implementation(of: AppLaunching.self, in: session, for: needed)
            var installed: [TVApp]?
            if AppCatalog.entry(named: app) != nil, session.capabilities.contains(.appList), let listing = session as? any AppListing {
                // Bounded: some TVs never answer the list (2024+ Samsung firmware), and the
                // command's lifetime is short. Without the list the brand's newest id is used.
                installed = (try? await waitAtMost(.milliseconds(1500)) { try await listing.installedApps() }) ?? nil
            }
            try await launcher.launch(try AppCatalog.launchTarget(for: app, ids: launcher.catalogIDs, installed: installed))
        case .setVolume(let level):
            guard CommandLimits.volumeLevels.contains(level) else {
                throw PhotonError(
                    .usage,
                    "a volume level is from \(CommandLimits.volumeLevels.lowerBound) to \(CommandLimits.volumeLevels.upperBound), not \(level)")
            }
            try await Self.implementation(of: VolumeSetting.self, in: session, for: needed).setVolume(level)
        case .voice(let pcm, let rate):
            try await Self.implementation(of: VoiceQuerying.self, in: session, for: needed).sendVoice(pcm: pcm, sampleRate: rate)
        case .liveVoice(let audio):
            try await Self.implementation(of: VoiceQuerying.self, in: session, for: needed).sendVoice(live: audio)
        case .search(let keyword): try await Self.implementation(of: Searching.self, in: session, for: needed).search(keyword)
        case .input(let name): try await Self.implementation(of: InputSwitching.self, in: session, for: needed).switchInput(name)
        case .notify(let message):
            try RemoteCommand.checkNotification(message)
            try await Self.implementation(of: Notifying.self, in: session, for: needed).notify(message)
        case .screen(let on): try await Self.implementation(of: ScreenSwitching.self, in: session, for: needed).setScreen(on: on)
        case .sound(let output): try await Self.implementation(of: SoundOutputSwitching.self, in: session, for: needed).setSoundOutput(output)
        case .picture(let mode): try await Self.implementation(of: PictureModeSwitching.self, in: session, for: needed).setPictureMode(mode)
        case .ambilight(let choice): try await Self.implementation(of: AmbilightControlling.self, in: session, for: needed).setAmbilight(choice)
        case .art(let command): try await Self.implementation(of: ArtControlling.self, in: session, for: needed).art(command)
        case .artUpload(let upload): try await Self.implementation(of: ArtControlling.self, in: session, for: needed).uploadArt(upload)
        case .channel(let number):
            if Self.channelMethod(for: session) == .tuningCall, let tuner = session as? any ChannelTuning {
                try await tuner.tune(number)
            } else {
                let keys = try Self.keySender(in: session, for: needed)
                for key in try Self.digitKeys(for: number) { try await keys.sendKey(.key(key), .press) }
            }
        case .spoken(let words, let target):
            let request = VoiceRequest(heard: words)
            guard !VoiceVocabulary.normalize(words).isEmpty else { throw PhotonError(.usage, "there are no words to send") }
            var installed: [TVApp] = []
            if case .open = request, session.capabilities.contains(.appList), let listing = session as? any AppListing {
                // The TV's own app names ("open plex"), bounded like a launch's lookup.
                installed = ((try? await waitAtMost(.milliseconds(1500)) { try await listing.installedApps() }) ?? nil) ?? []
            }
            let canSearch = session.capabilities.contains(.search)
            for command in request.commands(target: target, canSearch: canSearch, installed: installed) {
                try await command.perform(on: session, sleep: sleep)
            }
        case .wake:
            throw PhotonError(
                .internal, "a wake request is not sent over a TV's session", hint: "send it through Photon's session service (the router)")
        }
    }

    static func implementation<P>(of kind: P.Type, in session: any RemoteSession, for capability: Capability) throws -> P {
        guard let found = session as? P else { throw notImplemented(capability) }
        return found
    }

    /// The session's key sender, without a dynamic cast (keys are most commands).
    static func keySender(in session: any RemoteSession, for capability: Capability) throws -> any KeySending {
        guard let found = session.keySending else { throw notImplemented(capability) }
        return found
    }

    static func notImplemented(_ capability: Capability) -> PhotonError {
        PhotonError.unsupported(
            "this TV's adapter declares \(capability.rawValue) but does not implement it; nothing was sent",
            hint: "report this to the adapter's authors")
    }
}

extension VolumeChange {
    /// The key a volume step is.
    public var key: RemoteKey {
        switch self {
        case .up: return .volumeUp
        case .down: return .volumeDown
        case .mute: return .mute
        }
    }
}
