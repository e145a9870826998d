import Foundation
import PhotonCore
import PhotonCrypto
import PhotonKit
import PhotonMQTT

/// One site, one daemon: before it publishes anything, the bridge reads the site's retained
/// availability and owner. A site that is `online` and owned by another daemon (another
/// machine, or another home on this one) — two hosts both called `raspberrypi` with the
/// default site name — would share availability topics and last wills; the second daemon
/// refuses to start, with the fix. The same daemon restarted after a crash (its will not
/// yet sent) finds itself as the owner and goes on.
extension MQTTBridge {
    /// How long the broker has at most to hand over the site's retained messages (it is
    /// asked to say when it has: a ping to this daemon's own claim topic, which the broker
    /// delivers after the retained messages of the subscriptions before it).
    static let claimWait: Duration = .seconds(2)

    var claimTopic: String { "photon/\(topics.site)/claim/\(claimNonce)" }

    /// This daemon's identity for the site: this machine (its machine id, or its host
    /// name) and this store's home.
    var ownerIdentity: String {
        let machine = (try? String(contentsOfFile: "/etc/machine-id", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
        let host = HostName.full ?? "photon"
        let home = photon.store.paths.configDirectory.path
        let digest = Digest.sha256(Array("\(machine ?? host)|\(home)".utf8)).prefix(8).map { String(format: "%02x", $0) }.joined()
        return digest + "@" + (host.split(separator: ".").first.map(String.init) ?? host)
    }

    func claimSite() {
        try? client.subscribe(topics.bridgeAvailability)
        try? client.subscribe(topics.siteOwner)
        try? client.subscribe(claimTopic)
        client.publish(claimTopic, "ping", retain: false)
        let wait = Self.claimWait
        Task {
            try? await Task.sleep(for: wait)
            self.finishClaim()
        }
    }

    func noteSiteMessage(_ message: MQTTClient.Message) {
        if message.topic == claimTopic {
            finishClaim()
            return
        }
        guard !siteClaimed, message.retain else { return }
        let text = String(decoding: message.payload, as: UTF8.self)
        if message.topic == topics.bridgeAvailability { claimSeen.online = text == "online" } else { claimSeen.owner = text }
    }

    private func finishClaim() {
        guard !siteClaimed, !claimRefused else { return }
        let identity = ownerIdentity
        if claimSeen.online, let owner = claimSeen.owner, !owner.isEmpty, owner != identity {
            let holder = Redaction.sanitize(String(owner.split(separator: "@").last ?? ""), limit: 64)
            let error = PhotonError(
                .usage, "another photon serve (on \(holder)) already serves MQTT site '\(topics.site)'",
                hint: "give this one its own site: --mqtt-site NAME (the default is the host name, the same on both)")
            log.notice("MQTT: \(error.message); the bridge stops")
            claimRefused = true
            onFatal(error)
            return
        }
        siteClaimed = true
        client.publish(topics.siteOwner, identity, retain: true)
        startServing()
    }

    func startServing() {
        try? client.subscribe(topics.commandWildcard)
        try? client.subscribe(topics.jsonCommandWildcard)
        try? client.subscribe(topics.homeAssistantStatus)
        client.publish(topics.bridgeAvailability, "online", retain: true)
        Task { await self.publishAll() }
    }
}
