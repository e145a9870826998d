import Foundation
import PhotonCore
import PhotonEmulatorSupport

/// The promises every brand keeps, checked against its emulated TV. A brand gets the
/// whole suite by registering (Photon's own tests run it over `BuiltInPlugins`; a brand
/// in its own package runs it over its `BrandPlugin`). Each check starts its own TV and
/// throws `ConformanceFailure` with what it saw.
public enum ConformanceCheck: String, CaseIterable, Sendable, CustomStringConvertible {
    case probeIdentifiesTheTV
    case pairingRoundTrips
    case everyKeyReachesTheTVAsItsCode
    case anUnsupportedKeySendsNothing
    case textLaunchAndVolumeWhereTheBrandHasThem
    case aRotatedCertificateIsRefusedAndNothingIsSent
    case aTVThatForgotUsRefusesWithExitFour
    case aDroppedTVEndsTheSessionCleanly
    case malformedAndOversizeMessagesEndTheSessionWithAnError
    case closingIsClean

    public var description: String { rawValue }

    /// Keys whose effect depends on the TV's state (a toggle, or nothing when it is
    /// already so): brand tests check them, not the suite.
    /// Keys whose code depends on the TV's state (power toggles; LG's play/pause is PLAY
    /// or PAUSE by what the player does), left out of the key-table checks.
    public static let stateDependentKeys: Set<RemoteKey> = [.power, .powerOn, .powerOff, .playPause]

    /// What a check found when it did not fail.
    public enum Outcome: Sendable, Equatable, CustomStringConvertible {
        case passed
        /// The brand does not have what the check is about (no TLS, no pairing).
        case notApplicable(String)
        public var description: String {
            switch self {
            case .passed: return "ok"
            case .notApplicable(let why): return "not applicable (\(why))"
            }
        }
    }

    /// Runs this check for `plugin`.
    @discardableResult
    public func run(_ plugin: BrandPlugin) async throws -> Outcome {
        let h = try await ConformanceHarness(plugin, check: rawValue)
        do {
            let outcome = try await run(h)
            await h.stop()
            return outcome
        } catch {
            await h.stop()
            throw error
        }
    }

    private func run(_ h: ConformanceHarness) async throws -> Outcome {
        let adapter = h.adapter
        switch self {
        case .probeIdentifiesTheTV:
            let candidate = try await adapter.probe(host: "127.0.0.1", ports: h.tv.ports, context: h.context)
            try h.require(candidate?.brand == adapter.id, "the probe did not identify the TV (got \(candidate?.brand ?? "nothing"))")

        case .pairingRoundTrips:
            let paired = try await h.pair()
            try h.require(paired.device.brand == adapter.id, "the paired TV has brand \(paired.device.brand)")
            if let fingerprint = h.tv.certificateFingerprint { try h.require(paired.secrets.pin == fingerprint, "the pin is not the TV's certificate") }
            for name in paired.secrets.values.keys { try h.require(adapter.secretNames.contains(name), "secret '\(name)' is not declared") }
            let session = try await h.openSession(paired)
            await session.close()

        case .everyKeyReachesTheTVAsItsCode:
            let session = try await h.openSession(try await h.pair())
            let table = adapter.keyTable.filter { !Self.stateDependentKeys.contains($0.key) }
            try h.require(!table.isEmpty, "the key table is empty")
            for mapping in table { try await session.send(.key(.key(mapping.key), .press)) }
            try await h.waitFor("key", count: table.count, within: .seconds(60))
            let seen = h.events("key").map { $0["key"]?.string ?? "" }
            await session.close()
            try h.require(seen == table.map(\.code), "the TV saw \(seen), not \(table.map(\.code))")

        case .anUnsupportedKeySendsNothing:
            let session = try await h.openSession(try await h.pair())
            let mapped = Set(adapter.keyTable.map(\.key))
            var refused: [KeyInput] = [.raw("NOT A KEY CODE")]
            refused += RemoteKey.allCases.filter { !mapped.contains($0) && !Self.stateDependentKeys.contains($0) }.map { .key($0) }
            for input in refused {
                let error = try await h.requireError("sending \(input)") { try await session.send(.key(input, .press)) }
                try h.require(error.code == .unsupported || error.code == .usage, "\(input) failed with \(error.code.rawValue)")
            }
            try await session.send(.key(.key(.home), .press))
            try await h.waitFor("key")
            await session.close()
            try h.require(h.events("key").count == 1, "refused keys reached the TV")

        case .textLaunchAndVolumeWhereTheBrandHasThem:
            let session = try await h.openSession(try await h.pair())
            if session.capabilities.contains(.text) {
                try await session.send(.text("the expanse"))
                try await h.waitFor("text")
                try h.require(h.events("text").last?["text"]?.string == "the expanse", "the text arrived changed")
            } else {
                _ = try await h.requireError("text without the capability") { try await session.send(.text("x")) }
            }
            if session.capabilities.contains(.appLaunch), !adapter.exampleApp.isEmpty {
                try await session.send(.launch(adapter.exampleApp))
                try await h.waitFor("launch")
                try h.require(h.events("launch").last?["app"]?.string == adapter.exampleApp, "the launch arrived changed")
            }
            if let volumeUp = adapter.keyTable.first(where: { $0.key == .volumeUp }) {
                let before = h.events("key").count
                try await session.send(.volume(.up))
                try await h.waitFor("key", count: before + 1)
                try h.require(h.events("key").last?["key"]?.string == volumeUp.code, "volume up arrived as another key")
            }
            await session.close()

        case .aRotatedCertificateIsRefusedAndNothingIsSent:
            let paired = try await h.pair()
            guard h.tv.certificateFingerprint != nil else { return .notApplicable("the brand has no TLS certificate to pin") }
            try await h.tv.rotateCertificate()
            let before = h.log.withLock { $0.count }
            let error = try await h.requireError("connecting to a TV with another certificate") { _ = try await h.openSession(paired) }
            try h.require(error.code == .pinMismatch && error.exitCode == 5, "got \(error.code.rawValue), not pin_mismatch")
            // Refused right after the TLS handshake: no application message reached the TV.
            let after = h.log.withLock { Array($0.dropFirst(before)) }.map(\.name)
            try h.require(!after.contains { ["session_ready", "prompt", "key", "text", "launch"].contains($0) }, "the TV saw \(after)")

        case .aTVThatForgotUsRefusesWithExitFour:
            guard adapter.pairingStyle != .none else { return .notApplicable("the brand does not pair") }
            let paired = try await h.pair()
            await h.tv.forgetClients()
            let error = try await h.requireError("using a pairing the TV forgot") {
                let session = try await h.openSession(paired)
                try await session.send(.key(.key(.home), .press))
            }
            try h.require(error.exitCode == 4, "got \(error.code.rawValue) (exit \(error.exitCode)), not exit 4")
            try h.require(h.events("key").isEmpty, "a key reached the TV")

        case .aDroppedTVEndsTheSessionCleanly:
            let session = try await h.openSession(try await h.pair())
            await h.tv.dropConnections()
            let ended = await ConformanceHarness.disconnection(of: session)
            try h.require(ended.ended, "the session did not report the drop")
            _ = try await h.requireError("sending after the drop") { try await session.send(.key(.key(.home), .press)) }
            await session.close()

        case .malformedAndOversizeMessagesEndTheSessionWithAnError:
            let paired = try await h.pair()
            for oversize in [false, true] {
                let session = try await h.openSession(paired)
                try await Task.sleep(for: .milliseconds(100))
                if oversize { await h.tv.sendOversizeMessage() } else { await h.tv.sendMalformedMessage() }
                let ended = await ConformanceHarness.disconnection(of: session)
                guard let reason = ended.reason else {
                    throw ConformanceFailure(check: rawValue, message: "no error for a \(oversize ? "oversize" : "malformed") message")
                }
                try h.require(
                    [.protocolViolation, .messageTooLarge, .connectionClosed].contains(reason.code), "ended with \(reason.code.rawValue)")
                _ = try await h.requireError("sending after the error") { try await session.send(.key(.key(.home), .press)) }
                await session.close()
            }

        case .closingIsClean:
            let session = try await h.openSession(try await h.pair())
            try await session.send(.key(.key(.home), .press))
            await session.close()
            try await h.waitFor("client_disconnected")
            _ = try await h.requireError("sending after close") { try await session.send(.key(.key(.home), .press)) }
            try h.require(h.events("key").count == 1, "the TV saw \(h.events("key").count) keys")
        }
        return .passed
    }
}
