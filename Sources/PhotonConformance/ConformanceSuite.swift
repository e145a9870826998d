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
    case catalogAppsLaunchByName
    case inputsWhereTheBrandHasThem
    case channelsByTheTVsCallOrByDigits
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

    /// How long one check may take, all of it (its own waits are bounded far below).
    public static let limit: Duration = .seconds(90)

    /// Runs this check for `plugin`, by `route`. A check still running after `limit` fails
    /// naming itself, and is left behind: a stuck adapter fails its check instead of
    /// hanging the suite.
    @discardableResult
    public func run(_ plugin: BrandPlugin, route: ConformanceRoute = .adapter) async throws -> Outcome {
        let check = self
        let started = Locked<ConformanceHarness?>(nil)
        let outcome = try await waitAtMost(Self.limit) {
            let h = try await ConformanceHarness(plugin, check: "\(check.rawValue) (\(route))", route: route)
            started.withLock { $0 = h }
            do {
                let outcome = try await check.run(h)
                await h.stop()
                return outcome
            } catch let failure as ConformanceFailure {
                await h.stop()
                throw failure
            } catch {
                // An error the check did not expect: say where the TV and the client were.
                await h.stop()
                throw ConformanceFailure(check: "\(plugin.adapter.id) \(check.rawValue) (\(route))", message: "\(error) — \(h.trail)")
            }
        }
        guard let outcome else {
            // What the emulated TV saw last says how far the check got.
            throw ConformanceFailure(
                check: "\(plugin.adapter.id) \(rawValue) (\(route))",
                message:
                    "still running after \(Int(Self.limit.seconds)) s: something in it is stuck; \(started.withLock { $0 }?.trail ?? "it did not start")"
            )
        }
        return outcome
    }

    private func run(_ h: ConformanceHarness) async throws -> Outcome {
        let adapter = h.adapter
        switch self {
        case .probeIdentifiesTheTV:
            guard case .adapter = h.route else { return .notApplicable("probing is the adapter's alone") }
            let candidate = try await adapter.probe(host: "127.0.0.1", ports: h.tv.ports, context: h.context)
            try h.require(candidate?.brand == adapter.id, "the probe did not identify the TV (got \(candidate?.brand ?? "nothing"))")

        case .pairingRoundTrips:
            let paired = try await h.pair()
            try h.require(paired.device.brand == adapter.id, "the paired TV has brand \(paired.device.brand)")
            if let fingerprint = h.tv.certificateFingerprint {
                try h.require(paired.secrets.pin == fingerprint, "the pin is not the TV's certificate")
            }
            for name in paired.secrets.values.keys {
                try h.require(adapter.descriptor.pairing.secretNames.contains(name), "secret '\(name)' is not declared")
            }
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
            // Through a door the TV's capabilities are not shown: a command it lacks
            // must then be refused as unsupported, and nothing sent.
            let hasText = session.capabilities?.contains(.text) ?? adapter.capabilities.contains(.text)
            if hasText {
                try await session.send(.text("the expanse"))
                try await h.waitFor("text")
                try h.require(h.events("text").last?["text"]?.string == "the expanse", "the text arrived changed")
            } else {
                let error = try await h.requireError("text without the capability") { try await session.send(.text("x")) }
                try h.require(error.code == .unsupported, "text without the capability failed with \(error.code.rawValue)")
                try h.require(h.events("text").isEmpty, "text reached a TV without the capability")
            }
            let canLaunch = session.capabilities?.contains(.appLaunch) ?? adapter.capabilities.contains(.appLaunch)
            if canLaunch, !adapter.descriptor.help.exampleApp.isEmpty {
                try await session.send(.launch(adapter.descriptor.help.exampleApp))
                try await h.waitFor("launch")
                try h.require(h.events("launch").last?["app"]?.string == adapter.descriptor.help.exampleApp, "the launch arrived changed")
            }
            if let volumeUp = adapter.keyTable.first(where: { $0.key == .volumeUp }) {
                let before = h.events("key").count
                try await session.send(.volume(.up))
                try await h.waitFor("key", count: before + 1)
                try h.require(h.events("key").last?["key"]?.string == volumeUp.code, "volume up arrived as another key")
            }
            await session.close()

        case .catalogAppsLaunchByName:
            try await Self.checkCatalogLaunch(h)

        case .inputsWhereTheBrandHasThem:
            try await Self.checkInputs(h)

        case .channelsByTheTVsCallOrByDigits:
            try await Self.checkChannels(h)

        case .aRotatedCertificateIsRefusedAndNothingIsSent:
            let paired = try await h.pair()
            guard h.tv.certificateFingerprint != nil else { return .notApplicable("the brand has no TLS certificate to pin") }
            try await h.tv.rotateCertificate()
            let before = h.log.withLock { $0.count }
            let error = try await h.requireError("connecting to a TV with another certificate") {
                let session = try await h.openSession(paired)
                defer { Task { await session.close() } }
                try await session.send(.key(.key(.home), .press))
            }
            try h.require(error.code == .pinMismatch && error.exitCode == 5, "got \(error.code.rawValue), not pin_mismatch")
            try h.require(!error.message.contains("not reachable"), "a changed certificate was called an outage: \(error.message)")
            // Refused right after the TLS handshake: no application message reached the TV.
            let after = h.log.withLock { Array($0.dropFirst(before)) }.map(\.name)
            try h.require(!after.contains { ["session_ready", "prompt", "key", "text", "launch"].contains($0) }, "the TV saw \(after)")

        case .aTVThatForgotUsRefusesWithExitFour:
            guard adapter.descriptor.pairing.style != .none else { return .notApplicable("the brand does not pair") }
            let paired = try await h.pair()
            await h.tv.forgetClients()
            let error = try await h.requireError("using a pairing the TV forgot") {
                let session = try await h.openSession(paired)
                defer { Task { await session.close() } }
                try await session.send(.key(.key(.home), .press))
            }
            try h.require(error.exitCode == 4, "got \(error.code.rawValue) (exit \(error.exitCode)), not exit 4")
            try h.require(h.events("key").isEmpty, "a key reached the TV")

        case .aDroppedTVEndsTheSessionCleanly:
            let session = try await h.openSession(try await h.pair())
            await h.tv.dropConnections()
            let ended = await session.disconnection(within: .seconds(10))
            try h.require(ended.ended, "the session did not report the drop")
            try await Self.sendAfterTheEnd(session, h, what: "the drop")
            await session.close()

        case .malformedAndOversizeMessagesEndTheSessionWithAnError:
            let paired = try await h.pair()
            for oversize in [false, true] {
                let session = try await h.openSession(paired)
                try await Task.sleep(for: .milliseconds(100))
                if oversize { await h.tv.sendOversizeMessage() } else { await h.tv.sendMalformedMessage() }
                let ended = await session.disconnection(within: .seconds(10))
                guard let reason = ended.reason else {
                    throw ConformanceFailure(check: rawValue, message: "no error for a \(oversize ? "oversize" : "malformed") message")
                }
                try h.require(
                    [.protocolViolation, .messageTooLarge, .connectionClosed].contains(reason.code), "ended with \(reason.code.rawValue)")
                try await Self.sendAfterTheEnd(session, h, what: "the error")
                await session.close()
            }

        case .closingIsClean:
            let session = try await h.openSession(try await h.pair())
            try await session.send(.key(.key(.home), .press))
            try await h.waitFor("key")
            await session.close()
            if session.closingEndsTheConnection { try await h.waitFor("client_disconnected") }
            _ = try await h.requireError("sending after close") { try await session.send(.key(.key(.home), .press)) }
            try h.require(h.events("key").count == 1, "the TV saw \(h.events("key").count) keys")
        }
        return .passed
    }

    /// The app catalog: "YouTube" launches the brand's id for it (the emulated TVs have
    /// it installed); an app the brand has no id for and the TV does not list is refused,
    /// nothing sent.
    private static func checkCatalogLaunch(_ h: ConformanceHarness) async throws {
        let ids = h.adapter.descriptor.appCatalogIDs
        guard let youtube = ids["youtube"]?.first, h.adapter.capabilities.contains(.appLaunch) else {
            return
        }
        let session = try await h.openSession(try await h.pair())
        defer { Task { await session.close() } }
        try await session.send(.launch("YouTube"))
        try await h.waitFor("launch")
        try h.require(
            h.events("launch").last?["app"]?.string == youtube,
            "YouTube launched \(h.events("launch").last?["app"]?.string ?? "nothing"), not \(youtube)")
        if let missing = AppCatalog.entries.first(where: { ids[$0.key] == nil }) {
            let before = h.events("launch").count
            let error = try await h.requireError("launching \(missing.name), which the brand has no id for") {
                try await session.send(.launch(missing.name))
            }
            try h.require([.unsupported, .notFound].contains(error.code), "\(missing.name) failed with \(error.code.rawValue)")
            try h.require(h.events("launch").count == before, "\(missing.name) reached the TV")
        }
    }

    /// Inputs: a brand that switches them reaches `hdmi2` by its standard name; one that
    /// lists them lists at least one, marks at most one active, and switches by a listed
    /// label (any case); one that cannot list refuses a label and the list with
    /// `unsupported` and sends nothing; a brand without inputs refuses them all.
    private static func checkInputs(_ h: ConformanceHarness) async throws {
        let session = try await h.openSession(try await h.pair())
        defer { Task { await session.close() } }
        let declared = session.capabilities ?? h.adapter.capabilities
        if declared.contains(.inputs) {
            try await session.send(.input(.hdmi(2)))
            try await h.waitFor("input")
            try h.require(
                h.events("input").last?["input"]?.string == "hdmi2", "hdmi2 arrived as \(h.events("input").last?["input"]?.string ?? "nothing")")
        } else {
            let error = try await h.requireError("an input without the capability") { try await session.send(.input(.hdmi(2))) }
            try h.require(error.code == .unsupported, "an input without the capability failed with \(error.code.rawValue)")
        }
        if declared.contains(.inputList) {
            let inputs = try await session.items(.inputs)
            try h.require(!inputs.isEmpty, "the TV listed no inputs")
            try h.require(inputs.filter { $0.active == true }.count <= 1, "more than one input is active")
            guard let labelled = inputs.first(where: { $0.kind == nil || $0.name.lowercased() != $0.kind }) else {
                throw ConformanceFailure(check: "inputsWhereTheBrandHasThem", message: "no input has a label of its own")
            }
            let before = h.events("input").count
            try await session.send(.input(try InputName(parsing: labelled.name.uppercased())))
            try await h.waitFor("input", count: before + 1)
        } else {
            let before = h.log.withLock { $0.count }
            let listing = try await h.requireError("listing inputs without the capability") { _ = try await session.items(.inputs) }
            try h.require(listing.code == .unsupported, "listing inputs failed with \(listing.code.rawValue)")
            let label = try await h.requireError("a label without an input list") { try await session.send(.input(.label("PlayStation"))) }
            try h.require(label.code == .unsupported || label.code == .notFound, "a label failed with \(label.code.rawValue)")
            let after = h.log.withLock { Array($0.dropFirst(before)) }
            try h.require(!after.contains { ["key", "input"].contains($0.name) }, "a refused input reached the TV")
        }
    }

    /// Channels: a brand with a channel list lists them and tunes a listed number with its
    /// own call (the TV reports that channel); any other brand types the digits and Enter,
    /// as its own key codes, and refuses a sub-channel and the list, sending nothing.
    private static func checkChannels(_ h: ConformanceHarness) async throws {
        let session = try await h.openSession(try await h.pair())
        defer { Task { await session.close() } }
        let declared = session.capabilities ?? h.adapter.capabilities
        if declared.contains(.channelList) {
            let channels = try await session.items(.channels)
            guard let last = channels.last, let number = last.number else {
                throw ConformanceFailure(check: "channelsByTheTVsCallOrByDigits", message: "the TV listed no channels")
            }
            try await session.send(.channel(try ChannelNumber(parsing: number)))
            try await h.waitFor("channel")
            try h.require(
                h.events("channel").last?["number"]?.string == number,
                "channel \(number) arrived as \(h.events("channel").last?["number"]?.string ?? "nothing")")
            return
        }
        let table = Dictionary(h.adapter.keyTable.map { ($0.key, $0.code) }, uniquingKeysWith: { first, _ in first })
        guard let seven = table[.digit7], let four = table[.digit4], let enter = table[.select] else {
            let error = try await h.requireError("a channel on a TV without digit keys") {
                try await session.send(.channel(ChannelNumber(major: 74)))
            }
            try h.require(error.code == .unsupported, "a channel without digit keys failed with \(error.code.rawValue)")
            return
        }
        let before = h.log.withLock { $0.count }
        let sub = try await h.requireError("a sub-channel typed as digits") { try await session.send(.channel(ChannelNumber(major: 7, minor: 1))) }
        try h.require(sub.code == .unsupported, "a sub-channel failed with \(sub.code.rawValue)")
        let listing = try await h.requireError("listing channels without the capability") { _ = try await session.items(.channels) }
        try h.require(listing.code == .unsupported, "listing channels failed with \(listing.code.rawValue)")
        try h.require(!h.log.withLock { Array($0.dropFirst(before)) }.contains { $0.name == "key" }, "a refused channel sent keys")
        let keysBefore = h.events("key").count
        try await session.send(.channel(ChannelNumber(major: 74)))
        try await h.waitFor("key", count: keysBefore + 3)
        let typed = h.events("key").dropFirst(keysBefore).map { $0["key"]?.string ?? "" }
        try h.require(typed == [seven, four, enter], "channel 74 arrived as \(typed)")
    }

    /// After a session ended: the adapter's own session refuses a command; through the
    /// core the session service may reconnect, and the command then reaches the TV once
    /// (nothing of the lost session is replayed). Either way nothing is sent twice.
    private static func sendAfterTheEnd(_ session: any ConformanceSession, _ h: ConformanceHarness, what: String) async throws {
        let before = h.events("key").count
        guard session.reconnects else {
            _ = try await h.requireError("sending after \(what)") { try await session.send(.key(.key(.home), .press)) }
            try h.require(h.events("key").count == before, "a key sent after \(what) reached the TV")
            return
        }
        do {
            try await session.send(.key(.key(.home), .press))
            try await h.waitFor("key", count: before + 1)
            try await Task.sleep(for: .milliseconds(50))
            try h.require(h.events("key").count == before + 1, "a key sent after \(what) reached the TV \(h.events("key").count - before) times")
        } catch let failure as ConformanceFailure {
            throw failure
        } catch {
            try h.require(h.events("key").count == before, "a key refused after \(what) (\(PhotonError.wrap(error).code.rawValue)) reached the TV")
        }
    }
}
