import Foundation
import PhotonCore
import PhotonKit

/// `photon discover`: browses mDNS for every adapter's service types through
/// avahi-daemon and prints each TV as it resolves, merged per TV.
enum DiscoverCommand {
    static let spec = CommandSpec(
        ["discover"], summary: "browse the network for TVs",
        options: [
            OptionSpec("brand", value: "BRAND", help: "only this brand's service types"),
            OptionSpec("ssdp", value: "HOST[:PORT]", help: "send the SSDP search to this host instead of multicast"),
            OptionSpec("no-ssdp", help: "mDNS only"),
        ],
        details: """
            Lists each TV as soon as it resolves (name, brand, address, port, id, MAC), for
            --timeout seconds (default 3). Brands that answer SSDP get a search too (multicast,
            or to one host with --ssdp). A TV seen on several interfaces or services is listed
            once; one whose protocol version Photon cannot drive is listed as unsupported.
            Needs avahi-daemon; where multicast does not pass, use `photon probe ADDRESS`.
            """,
        examples: ["photon discover", "photon discover --timeout 10 --json", "photon discover --brand BRAND --no-ssdp"], run: run)

    static func run(_ parsed: ParsedCommand, _ context: CLIContext) async throws -> Int32 {
        let seconds = parsed.value("timeout") == nil ? Duration.seconds(3) : context.timeout
        let deadline = ContinuousClock.now + seconds
        let ssdpHost = try parsed.value("ssdp").map { try Endpoint(parsing: $0, defaultPort: SSDP.port) }
        let found = try context.photon.discover(
            timeout: seconds, brands: parsed.value("brand").map { [$0] }, ssdp: !parsed.flag("no-ssdp"), ssdpHost: ssdpHost)
        // Paired TVs are marked (by id, else brand and address), so a user sees what is new.
        let paired = (try? await context.store.devices().devices) ?? []
        var count = 0
        for await (candidate, service) in found {
            count += 1
            let known = paired.first { device in
                (candidate.id != nil && device.id == candidate.id)
                    || (device.brand == candidate.brand && device.host == candidate.endpoint.host && device.port == candidate.endpoint.port)
            }
            let json = JSONValue.object([
                ("name", .string(candidate.name)), ("brand", .string(candidate.brand)), ("host", .string(candidate.endpoint.host)),
                ("port", .int(Int(candidate.endpoint.port))), ("id", .optional(candidate.id)), ("mac", .optional(candidate.mac)),
                ("service", .string(service.type)),
                ("txt", .object(service.txt.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) })),
                ("unsupported", .optional(candidate.unsupportedReason)), ("paired", .optional(known?.nickname)),
            ])
            var text = "\(candidate.brand)  \(candidate.name)  \(candidate.endpoint)"
            if let id = candidate.id { text += "  id \(id)" }
            if let mac = candidate.mac { text += "  mac \(mac)" }
            if let reason = candidate.unsupportedReason { text += "  (unsupported: \(reason))" }
            if let known { text += "  (paired as \(known.nickname))" }
            context.emit(json, text: text)
        }
        if ContinuousClock.now < deadline - .milliseconds(200) {
            // The browse ended before its time: the daemon went away (restarted or stopped).
            context.note("warning: avahi-daemon went away during the browse; results may be incomplete. Run `photon discover` again once it is back.")
        }
        if count == 0 && !context.json {
            context.note(
                "No TVs found in \(Int(seconds.seconds)) s. If your TV is on, try `photon probe ADDRESS` (multicast may be blocked), or a longer --timeout."
            )
        }
        return 0
    }
}
