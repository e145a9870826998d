import Foundation
import PhotonCore
import PhotonKit

extension MQTTBridge {
    /// A macro button from Home Assistant (`…/macro/set` with the macro's name): the saved
    /// macro runs here, each step a router command of the `mqtt` source (its rules apply
    /// to every step), and one result says how it ended. A press older than a bare value's
    /// lifetime (a redelivery after an outage) starts nothing.
    func runMacro(named payload: String, on id: String, receivedAt: Date) async {
        let commandID = UUID()
        do {
            guard Date().timeIntervalSince(receivedAt) < MQTTCommand.defaultLifetime else {
                throw PhotonError(.timeout, "the macro button press is older than \(Int(MQTTCommand.defaultLifetime)) s; the macro was not started")
            }
            let name = payload.trimmingCharacters(in: .whitespacesAndNewlines)
            let macro = try MacroLibrary(paths: photon.store.paths).macro(name)
            let device = try await photon.device(id)
            let catalog = (try? photon.registry.adapter(id: device.brand))?.descriptor.appCatalogIDs ?? [:]
            let wake = WakeRequest(destinations: settings.wakeDestinations, ports: settings.wakePorts, patience: settings.wakePatience)
            log.debug("MQTT: \(id) runs macro \(name) (\(macro.steps.count) steps)")
            let results = try await DirectControl(photon: photon, source: .mqtt).runMacro(
                macro, on: id, lifetime: .seconds(10), wake: wake, catalog: catalog)
            if let failed = results.first(where: { !$0.ok }), let error = failed.error {
                throw PhotonError(
                    error.code, "macro \(name): step \(failed.index) (\(Redaction.sanitize(failed.text, limit: 60))) failed: \(error.message)",
                    hint: error.hint)
            }
            publishResult(id, commandID: commandID.uuidString.lowercased(), .success(false))
        } catch {
            publishResult(id, commandID: commandID.uuidString.lowercased(), .failure(PhotonError.wrap(error)))
        }
    }
}
