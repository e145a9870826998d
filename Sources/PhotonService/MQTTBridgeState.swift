import Foundation
import PhotonCore
import PhotonKit

/// What the bridge publishes of each TV's state: retained topics, the power state with its
/// reason, and the lists (apps, inputs) its entities offer.
extension MQTTBridge {
    func setState(_ id: String, _ name: String, _ value: String) {
        let topic = topics.state(id, name)
        guard retainedState[topic] != value else { return }
        retainedState[topic] = value
        client.publish(topic, value, retain: true)
    }

    func tvUpdate(_ id: String, _ update: TVUpdate) async {
        guard published[id] != nil else { return }
        switch update {
        case .connection(let state, _):
            setState(id, "connection", state.rawValue)
            setState(id, "availability", state == .connected ? "online" : "offline")
            // A TV that does not answer is off, as far as anyone can tell.
            if [.reconnecting, .failed, .closed].contains(state) { setPowerState(id, .off, reason: "not answering") }
            if state == .connected, apps[id] == nil { await loadApps(id) }
        case .event(.power(let on)):
            setState(id, "power", on ? "ON" : "OFF")
            // A brand that says only on or off: a TV that answers while off is in standby.
            if !detailedPower.contains(id) { setPowerState(id, on ? .on : .standby, reason: nil) }
        case .event(.powerState(let state, let reason)):
            detailedPower.insert(id)
            setPowerState(id, state, reason: reason)
        case .event(.volume(let volume)): setState(id, "volume", String(volume.level))
        case .event(.currentApp(let reported)):
            // `app` is the id (every brand alike); the Source select shows the TV's name for it.
            let app = ReportedApp(reported)
            setState(id, "app", app.id)
            if let name = apps[id]?.first(where: { $0.id == app.id })?.name ?? app.name { setState(id, "source", name) }
        case .event(.setting(let name, let value)):
            // The state of the catalog command's entity that shows this setting.
            if let entity = CommandCatalog.entry(named: name)?.homeAssistant, entity.hasState { setState(id, entity.topic, value) }
        case .event: break
        }
    }

    func setPowerState(_ id: String, _ state: PowerState, reason: String?) {
        setState(id, "power_state", state.rawValue)
        setState(id, "power_attributes", JSONValue.object([("reason", .optional(reason))]).encoded)
    }

    /// The app list for the Source select, where the brand has one.
    func loadApps(_ id: String) async {
        guard let tv = photon.pool.existing(id), await tv.capabilities?.contains(.appList) == true,
            let list = try? await withTimeout(.seconds(5), "the app list", operation: { try await tv.installedApps() })
        else {
            await settleFirstDiscovery(id)
            return
        }
        apps[id] = list
        if await tv.capabilities?.contains(.inputList) == true,
            let listed = try? await withTimeout(.seconds(5), "the input list", operation: { try await tv.items(.inputs) })
        {
            inputs[id] = listed
        }
        firstDiscoveryPending.remove(id)
        if let device = try? await photon.device(id) { publishDiscovery(device) }
    }
}
