import AndroidKeys
import AndroidTV
import Foundation
import PhotonCore
import PhotonEmulatorSupport
import PhotonNet

extension EmulatedAndroidTV {
    /// The input each TV_INPUT key switches to, by its standard name.
    static let inputs: [Int32: String] = [243: "hdmi1", 244: "hdmi2", 245: "hdmi3", 246: "hdmi4", 170: "tv", 247: "av", 249: "component"]

    /// The remote port: unpaired clients are dropped right after the handshake; paired
    /// ones get the configure/set-active handshake, state reports and pings.
    func serveRemote(_ stream: TLSStream) async {
        guard let client = stream.peerCertificate, pairedClients.contains(client.fingerprint.compactHex) else {
            emit(EmulatorEvent("client_rejected", [("reason", .string("client certificate not paired"))]))
            await stream.close()
            return
        }
        let framed = FramedStream(stream)
        let sessionID = state.withLock { s -> UInt64 in
            defer { s.nextSession += 1 }
            s.sessions[s.nextSession] = framed
            return s.nextSession
        }
        emit(EmulatorEvent("client_connected", [("fingerprint", .string(client.fingerprint.description))]))
        let pinger = Task { await self.pingLoop(framed) }
        defer {
            pinger.cancel()
            state.withLock {
                $0.sessions[sessionID] = nil
                $0.activeFeatures[sessionID] = nil
            }
            Task { await framed.close() }
            emit(EmulatorEvent("client_disconnected"))
        }
        do {
            let info = RemoteDeviceInfo(
                model: configuration.model, vendor: "Photon", platform: 1, osVersion: "12",
                packageName: "com.google.android.tv.remote.service", appVersion: "5.2.473254133")
            try await framed.send(RemoteMessage.configure(features: configuration.features, device: info).encoded())
            guard let first = try await framed.receive(timeout: .seconds(10)),
                case .configure(let requested, _) = try RemoteMessage.decode(first)
            else { return }
            let active = RemoteFeatures(rawValue: requested & configuration.features)
            state.withLock { $0.activeFeatures[sessionID] = active }
            try await framed.send(RemoteMessage.setActive(features: 0).encoded())
            guard let second = try await framed.receive(timeout: .seconds(10)),
                case .setActive = try RemoteMessage.decode(second)
            else { return }
            let (power, volume, app) = state.withLock { ($0.power, $0.volume, $0.app) }
            if active.contains(.power) { try await framed.send(RemoteMessage.start(started: power).encoded()) }
            if active.contains(.ime) {
                try await framed.send(RemoteMessage.imeKeyInject(appPackage: app, label: nil).encoded())
                try await framed.send(RemoteMessage.imeBatchEdit(imeCounter: 1, fieldCounter: 1, text: nil).encoded())
            }
            await report(RemoteMessage.setVolumeLevel(volume), to: .volume)
            emit(EmulatorEvent("session_ready", [("features", .int(Int(active.rawValue)))]))

            var voiceBytes = 0
            while true {
                if state.withLock({ $0.misbehaviour }) == .silent {
                    try await Task.sleep(for: .milliseconds(50))
                    continue
                }
                guard let bytes = try await framed.receive(timeout: nil) else { return }
                let message = try RemoteMessage.decode(bytes)
                switch message {
                case .keyInject(let code, let direction):
                    guard configuration.features & RemoteFeatures.key.rawValue != 0 else {
                        try await framed.send(RemoteMessage.error(value: 1, echoed: bytes).encoded())
                        emit(EmulatorEvent("client_rejected", [("reason", .string("key refused: KEY feature off"))]))
                        continue
                    }
                    emit(
                        EmulatorEvent(
                            "key",
                            [("key", .string(AndroidKeyCodes.name(of: code))), ("code", .int(Int(code))), ("direction", .string(direction.name))]))
                    // A TV with inputs switches on the TV_INPUT keys.
                    if direction != .endLong, let input = Self.inputs[code] { emit(EmulatorEvent("input", [("input", .string(input))])) }
                    try await react(toKey: code, direction: direction, framed: framed, active: active)
                case .imeBatchEdit(_, _, let text):
                    if let text { emit(EmulatorEvent("text", [("text", .string(text))])) }
                case .appLinkLaunch(let link):
                    emit(EmulatorEvent("launch", [("app", .string(link))]))
                    state.withLock { $0.app = link }
                    // Every connected remote hears the new foreground app, as on a real TV
                    // (newcomer #15: a second client's `status --watch` missed it).
                    await report(RemoteMessage.imeKeyInject(appPackage: link, label: nil), to: .ime)
                case .voiceBegin(let id, _):
                    voiceBytes = 0
                    emit(EmulatorEvent("voice_begin", [("session", .int(Int(id)))]))
                case .voicePayload(_, let samples):
                    voiceBytes += samples.count
                    // Each piece as it comes: a live recording's first arrives while the
                    // user is still speaking (the events' times show it).
                    emit(EmulatorEvent("voice_chunk", [("bytes", .int(samples.count)), ("total", .int(voiceBytes))]))
                case .voiceEnd(let id):
                    emit(EmulatorEvent("voice", [("bytes", .int(voiceBytes)), ("session", .int(Int(id)))]))
                case .pingResponse:
                    break
                default:
                    break
                }
            }
        } catch {
            emit(EmulatorEvent("session_error", [("reason", .string(PhotonError.wrap(error).message))]))
        }
    }

    private func react(toKey code: Int32, direction: RemoteKeyDirection, framed: FramedStream, active: RemoteFeatures) async throws {
        guard direction == .short || direction == .startLong else { return }
        switch code {
        case 26, 223, 224:  // POWER, SLEEP, WAKEUP
            let on = state.withLock { s -> Bool in
                s.power = code == 26 ? !s.power : code == 224
                return s.power
            }
            await report(RemoteMessage.start(started: on), to: .power)
        case 24, 25, 164:  // VOLUME_UP, VOLUME_DOWN, VOLUME_MUTE
            let volume = state.withLock { s -> RemoteVolume in
                switch code {
                case 24: s.volume.level = min(s.volume.maximum, s.volume.level + 1)
                case 25: s.volume.level = max(0, s.volume.level - 1)
                default: s.volume.muted.toggle()
                }
                return s.volume
            }
            await report(RemoteMessage.setVolumeLevel(volume), to: .volume)
        case 84 where active.contains(.voice) && configuration.startsVoice:  // SEARCH starts a voice session
            let id = state.withLock { s -> Int32 in
                s.voiceSession += 1
                return s.voiceSession
            }
            try await framed.send(RemoteMessage.voiceBegin(sessionID: id, packageName: "com.google.android.katniss").encoded())
        default:
            break
        }
    }

    /// A state change goes to every connected remote that activated `feature`, as a real
    /// TV reports to all its remotes.
    private func report(_ message: RemoteMessage, to feature: RemoteFeatures) async {
        let targets = state.withLock { s in s.sessions.filter { s.activeFeatures[$0.key]?.contains(feature) == true }.map(\.value) }
        for framed in targets { try? await framed.send(message.encoded()) }
    }

    private func pingLoop(_ framed: FramedStream) async {
        var counter: Int32 = 0
        while !Task.isCancelled {
            try? await Task.sleep(for: configuration.pingInterval)
            guard !Task.isCancelled else { return }
            let misbehaviour = state.withLock { $0.misbehaviour }
            do {
                switch misbehaviour {
                case .silent: continue
                case .malformedFrames: try await framed.stream.write([0x04, 0x0b, 0xff, 0xff, 0xff])
                case .oversizeFrames: try await framed.stream.write([0xff, 0xff, 0xff, 0x7f, 0x01, 0x02])
                case .none:
                    counter &+= 1
                    try await framed.send(RemoteMessage.pingRequest(val1: counter, val2: Int32.random(in: Int32.min...Int32.max)).encoded())
                }
            } catch {
                return
            }
        }
    }

    /// Sends a malformed or oversize frame to every client now.
    public func misbehaveNow(_ m: Misbehaviour) async {
        let sessions = state.withLock { Array($0.sessions.values) }
        for framed in sessions {
            switch m {
            case .malformedFrames: try? await framed.stream.write([0x04, 0x0b, 0xff, 0xff, 0xff])
            case .oversizeFrames: try? await framed.stream.write([0xff, 0xff, 0xff, 0x7f, 0x01, 0x02])
            default: break
            }
        }
    }
}
