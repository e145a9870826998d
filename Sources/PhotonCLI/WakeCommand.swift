import Foundation
import PhotonCore
import PhotonKit
import PhotonNet

/// `photon wake TV|MAC`: the Wake-on-LAN magic packet.
enum WakeCommand {
    static let spec = CommandSpec(
        ["wake"], summary: "send a Wake-on-LAN packet", arguments: "TV|MAC", minimumArguments: 1, maximumArguments: 1,
        options: [
            OptionSpec("broadcast", value: "ADDR", help: "send here instead of every broadcast address (repeatable)", repeatable: true),
            OptionSpec("port", type: .port, help: "UDP port (default: 9 and 7)", repeatable: true),
        ],
        details: """
            TV is a paired TV whose MAC was learned at pairing, or a MAC address. By default the
            packet goes to 255.255.255.255 and to each interface's directed broadcast, on ports 9
            and 7. TVs usually wake only on wired Ethernet, with the TV's "power on over the
            network" (networked standby) setting enabled.
            """,
        examples: ["photon wake living-room", "photon wake AA:BB:CC:DD:EE:FF --broadcast 192.168.1.255"],
        run: run)

    /// For a power key to a TV that does not answer, without `--wake`: whether the user
    /// agrees at the terminal to wake it (the brand must be able to, with a known MAC).
    static func mayWake(_ name: String, context: CLIContext) async throws -> Bool {
        let device = try await SessionSupport.device(name, context: context)
        guard (try? context.registry.adapter(id: device.brand).descriptor.wakeMethod) == .wakeOnLAN, device.mac != nil else { return false }
        guard context.terminal.isInteractive else {
            context.note("\(device.nickname) does not answer. To wake it: photon key \(device.nickname) power --wake")
            return false
        }
        context.terminal.writeError("\(device.nickname) does not answer. Wake it? [y/N] ")
        let reply = context.terminal.readLine()?.trimmingCharacters(in: .whitespaces).lowercased()
        return reply == "y" || reply == "yes"
    }

    static func run(_ parsed: ParsedCommand, _ context: CLIContext) async throws -> Int32 {
        let target = parsed.arguments[0]
        let macs: [[UInt8]]
        if let parsedMAC = try? WakeOnLAN.parseMAC(target) {
            macs = [parsedMAC]
        } else {
            let device: DeviceRecord
            do {
                device = try await SessionSupport.device(target, context: context)
            } catch let error as PhotonError where MACAddress.looksLikeAttempt(target) {
                // Not a paired TV, and written like a MAC: the MAC is what is wrong.
                _ = error
                _ = try WakeOnLAN.parseMAC(target)
                throw error
            }
            guard !device.wakeMACs.isEmpty else {
                throw PhotonError(
                    .unsupported, "no MAC address is stored for \(device.nickname)",
                    hint: "give the MAC: photon wake AA:BB:CC:DD:EE:FF")
            }
            // Every MAC the TV reported (wired and Wi-Fi): it wakes only on the one it last used.
            macs = try device.wakeMACs.map { try WakeOnLAN.parseMAC($0) }
        }
        let ports = try parsed.allValues("port").map { text -> UInt16 in
            guard let port = UInt16(text) else { throw PhotonError(.usage, "--port takes a port number, not '\(text)'") }
            return port
        }
        let destinations = parsed.allValues("broadcast").isEmpty ? WakeOnLANSender.defaultDestinations() : parsed.allValues("broadcast")
        var sent: [String] = []
        for mac in macs {
            sent += try WakeOnLANSender.wake(mac: mac, destinations: destinations, ports: ports.isEmpty ? WakeOnLAN.defaultPorts : ports)
        }
        let formatted = macs.map { WakeOnLAN.format($0) }
        let unique = Array(Set(sent)).sorted()
        context.emit(
            .object([("mac", .string(formatted[0])), ("macs", .array(formatted.map { .string($0) })), ("sent", .array(unique.map { .string($0) }))]),
            text: "Sent the magic packet for \(formatted.joined(separator: " and ")) to \(unique.joined(separator: ", ")).")
        return 0
    }
}
