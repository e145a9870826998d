import PhotonCore
import PhotonNet

/// Wakes a paired TV the way its adapter says (`TVAdapter.wakeMethod`), for the façade,
/// the CLI and the daemon alike.
public enum TVWaker {
    /// Sends the wake signal; returns where it went. `unsupported` for brands that cannot
    /// be woken, or when no MAC was learned at pairing.
    @discardableResult
    public static func wake(_ device: DeviceRecord, adapter: any TVAdapter, destinations: [String] = [], ports: [UInt16] = []) throws
        -> [String]
    {
        guard adapter.descriptor.wakeMethod == .wakeOnLAN else {
            throw PhotonError.unsupported("\(adapter.displayName) TVs cannot be woken from here", hint: "switch the TV on with its own remote")
        }
        let macs = device.wakeMACs.compactMap { try? WakeOnLAN.parseMAC($0) }
        guard !macs.isEmpty else {
            throw PhotonError(
                .unsupported, "no MAC address is stored for \(Redaction.sanitize(device.nickname))",
                hint: "give the MAC: photon wake AA:BB:CC:DD:EE:FF", reason: .noMACAddress)
        }
        // Every MAC (wired and Wi-Fi): the TV listens only on the interface it last used.
        var sent: [String] = []
        for mac in macs {
            sent += try WakeOnLANSender.wake(
                mac: mac, destinations: destinations.isEmpty ? WakeOnLANSender.defaultDestinations() : destinations,
                ports: ports.isEmpty ? WakeOnLAN.defaultPorts : ports)
        }
        return sent
    }

    /// Retries `connect` once a second until it succeeds, or fails with `timeout` once
    /// `patience` has passed since the wake signal. Only an unreachable or silent TV is
    /// retried; any other error (a refusal, a pin mismatch) ends the wait at once.
    public static func waitUntilUp<T: Sendable>(
        _ device: DeviceRecord, patience: Duration, clock: any RouterClock = SystemClock(),
        connect: @Sendable (_ deadline: ContinuousClock.Instant) async throws -> T
    ) async throws -> T {
        let end = ContinuousClock.now + patience
        while true {
            do {
                return try await connect(min(end, ContinuousClock.now + .seconds(5)))
            } catch let error as PhotonError where error.code == .unreachable || error.code == .timeout {
                guard ContinuousClock.now < end else {
                    throw PhotonError(
                        .timeout, "\(Redaction.sanitize(device.nickname)) did not come up within \(Int(patience.seconds)) s of being woken",
                        hint: "waking needs the TV's network standby (\"power on over the network\"), usually on wired Ethernet")
                }
                try await clock.sleep(for: .seconds(1))
            }
        }
    }
}
