import Foundation
import PhotonCore
import PhotonHAP
import PhotonKit

/// One paired TV behind its HomeKit accessory: a controller's requests become catalog
/// commands sent through the one submit path as the `homekit` source (in a router session
/// per controller, so a controller's commands are numbered and de-duplicated on their own),
/// and what the TV reports becomes the characteristics' values and events.
final class HomeKitTelevisionBridge: HAPAccessoryDelegate {
    let photon: Photon
    let deviceID: String
    let wake: WakeRequest
    let log: ServiceLog
    /// InputSource identifiers to what selecting them sends.
    let sources: [Int: RemoteCommand]
    /// App ids to their InputSource identifiers (the app the TV reports picks its input).
    let appSources: [String: Int]
    private let sessions = Locked<[String: KeptRouterSessions]>([:])
    private let server = Locked<HAPAccessoryServer?>(nil)

    /// The current key map (the store's remap, followed while the daemon runs).
    let keys = Locked(HomeKitRemoteKeys.keyMap(remap: [:]))

    init(photon: Photon, deviceID: String, wake: WakeRequest, log: ServiceLog, sources: [Int: RemoteCommand]) {
        self.photon = photon
        self.deviceID = deviceID
        self.wake = wake
        self.log = log
        self.sources = sources
        var apps: [String: Int] = [:]
        for (identifier, command) in sources { if case .launch(let app) = command { apps[app] = identifier } }
        appSources = apps
    }

    func attach(_ server: HAPAccessoryServer) { self.server.withLock { $0 = server } }

    func perform(_ request: HAPTelevision.Request, controller: String) async -> HAPStatus {
        let current = server.withLock { $0 }?.accessory
        let commands: [RemoteCommand]
        do {
            switch request {
            case .power(let on):
                // A scene that says "on" to a TV that is on does nothing: never a toggle.
                if current?.characteristic(HAPTelevision.IIDs.active)?.value == .int(on ? 1 : 0) { return .success }
                commands = on ? try await photon.powerOnCommands(for: deviceID, wake: wake) : [.key(.key(.powerOff), .press)]
            case .input(let identifier):
                guard let command = sources[identifier] else { return .invalidValue }
                commands = [command]
            case .remoteKey(let value):
                guard let key = keys.withLock({ $0[value] }) else { return .invalidValue }
                commands = [.key(.key(key), .press)]
            case .media(let play):
                let wanted: RemoteKey = play == true ? .play : play == false ? .pause : .stop
                // A brand with one play/pause key (Roku) gets it, unless the TV already
                // reports the state asked for.
                let brand = try await photon.device(deviceID).brand
                let keys = Set(try photon.registry.adapter(id: brand).keyTable.map(\.key))
                if keys.contains(wanted) || !keys.contains(.playPause) || wanted == .stop {
                    commands = [.key(.key(wanted), .press)]
                } else {
                    let state = current?.characteristic(HAPTelevision.IIDs.currentMediaState)?.value
                    if state == .int(play == true ? 0 : 1) { return .success }
                    commands = [.key(.key(.playPause), .press)]
                }
            case .volumeStep(let up): commands = [.volume(up ? .up : .down)]
            case .volume(let level): commands = [.setVolume(level)]
            case .mute(let muted):
                if current?.characteristic(HAPTelevision.IIDs.mute)?.value == .bool(muted) { return .success }
                commands = [.volume(.mute)]
            case .settingsMenu: commands = [.key(.key(.settings), .press)]
            case .identify: return .success
            }
            let routerSessions = sessions.withLock { s in
                if let kept = s[controller] { return kept }
                let kept = KeptRouterSessions(photon: photon, source: .homekit)
                s[controller] = kept
                return kept
            }
            // No automatic retry: a command that does not reach the TV in its lifetime is
            // answered as failed, and the controller decides.
            _ = try await routerSessions.submit(commands, to: deviceID, Submission(now: Date(), lifetime: .seconds(10), source: .homekit))
            return .success
        } catch {
            let error = PhotonError.wrap(error)
            log.notice("homekit: \(deviceID): \(error.message)")
            return Self.status(for: error)
        }
    }

    /// The HAP status a failure is answered with.
    static func status(for error: PhotonError) -> HAPStatus {
        switch error.code {
        case .timeout: .timedOut
        case .unsupported, .usage: .invalidValue
        default: .unableToCommunicate
        }
    }

    /// Keeps the accessory's pairings as the server changed them. An accessory reset in the
    /// store meanwhile (`photon homekit reset`) wins: the server takes it at its next read.
    func store(_ identity: HAPAccessoryIdentity) async throws {
        try await photon.store.updateHomeKitAccessory(for: deviceID) { record in
            guard record.identity.deviceID == identity.deviceID, record.identity.signingKey == identity.signingKey else { return }
            record.identity.pairings = identity.pairings
        }
    }

    /// The accessory's inputs in order (an input's instance ids follow from its place).
    let inputs = Locked<[HAPTelevision.Input]>([])

    /// A name or a hidden input set in the Home app, kept in the store for the next start.
    func remember(_ iid: Int, _ value: HAPValue) async {
        let inputs = inputs.withLock { $0 }
        var key: String?
        var hidden: (identifier: Int, hidden: Bool)?
        if iid == HAPTelevision.IIDs.configuredName {
            key = "tv"
        } else if let index = inputs.indices.first(where: { (HAPTelevision.IIDs.input($0)...HAPTelevision.IIDs.input($0) + 9).contains(iid) }) {
            let offset = iid - HAPTelevision.IIDs.input(index)
            if offset == 1 { key = String(inputs[index].identifier) }
            if offset == 5, let number = value.intValue { hidden = (inputs[index].identifier, number == 1) }
        }
        guard key != nil || hidden != nil else { return }
        let name: String? = if case .string(let text) = value { text } else { nil }
        _ = try? await photon.store.updateHomeKitAccessory(for: deviceID) { [key, hidden] record in
            if let key, let name { record.names = (record.names ?? [:]).merging([key: name]) { $1 } }
            if let hidden {
                var set = Set(record.hidden ?? [])
                if hidden.hidden { set.insert(hidden.identifier) } else { set.remove(hidden.identifier) }
                record.hidden = set.sorted()
            }
        }
    }

    func log(_ line: String) { log.notice(line.replacingOccurrences(of: "homekit:", with: "homekit: \(deviceID):")) }

    /// What the TV reported, as characteristic values.
    func updated(_ event: TVEvent) {
        guard let server = server.withLock({ $0 }) else { return }
        switch event {
        case .power(let on): server.update(HAPTelevision.IIDs.active, to: .int(on ? 1 : 0))
        case .powerState(let state, _): server.update(HAPTelevision.IIDs.active, to: .int(state == .on || state == .screenOff ? 1 : 0))
        case .volume(let volume):
            server.update(HAPTelevision.IIDs.mute, to: .bool(volume.muted))
            if volume.maximum > 0, server.accessory.characteristic(HAPTelevision.IIDs.volume) != nil {
                server.update(HAPTelevision.IIDs.volume, to: .int(min(100, max(0, volume.level * 100 / volume.maximum))))
            }
        case .currentApp(let app):
            if let identifier = appSources[app] { server.update(HAPTelevision.IIDs.activeIdentifier, to: .int(identifier)) }
        case .playback(let playback):
            // HAP: 0 play, 1 pause, 2 stop, 4 loading, 5 interrupted.
            let state: Int? =
                switch playback.state.lowercased() {
                case "play", "playing": 0
                case "pause", "paused": 1
                case "stop", "stopped", "close", "none": 2
                case "buffering", "loading", "startup", "open": 4
                default: nil
                }
            if let state {
                server.update(HAPTelevision.IIDs.currentMediaState, to: .int(state))
                if state <= 2 { server.update(HAPTelevision.IIDs.targetMediaState, to: .int(state)) }
            }
        default: break
        }
    }
}
