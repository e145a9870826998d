import Foundation
import PhotonCore
import PhotonNet
import PhotonTestSupport
import Testing

@testable import SamsungTV

/// Hostile or unlucky cases for the Samsung adapter: expiry behind pacing, tokens that
/// must never travel in clear, TV-controlled strings that look like MACs or tokens.
@Suite struct SamsungHardeningTests {
    @Test func aCommandThatExpiresBehindPacingIsNotSent() async throws {
        let (tv, events) = try await startSamsung()
        defer { Task { await tv.stop() } }
        let ctx = try samsungContext()
        let paced = SamsungTVAdapter(keyPacing: .milliseconds(600), acceptTimeout: .seconds(3))
        let paired = try await paced.pairing(
            with: Endpoint(host: "127.0.0.1", port: tv.port), options: AdapterOptionValues(ports: ["rest": tv.restPort]), context: ctx
        ).run(responder: Trusting())
        let session = try await paced.openSession(device: paired.device, secrets: paired.secrets, context: ctx)
        defer { Task { await session.close() } }
        try await session.send(.key(.key(.home), .press))
        try await events.wait(for: "key")
        // The second key waits ~600 ms behind pacing; its command lives 150 ms.
        let error = await #expect(throws: PhotonError.self) {
            try await CommandDeadline.$expiresAt.withValue(Date().addingTimeInterval(0.15)) {
                try await session.send(.key(.key(.back), .press))
            }
        }
        #expect(error?.code == .timeout)
        #expect(error?.message.contains("expired") == true)
        // A long press's release is sent even when its command expired during the hold.
        try await CommandDeadline.$expiresAt.withValue(Date().addingTimeInterval(0.7)) {
            try await session.send(.longPress(.key(.volumeUp), milliseconds: 300))
        }
        // A marker after them: the TV takes one connection's keys in order.
        try await session.send(.key(.key(.menu), .press))
        try await events.wait(for: "key", count: 4)
        let keys = events.named("key").map { "\($0["key"]?.string ?? "")/\($0["cmd"]?.string ?? "")" }
        #expect(keys == ["KEY_HOME/Click", "KEY_VOLUP/Press", "KEY_VOLUP/Release", "KEY_MENU/Click"])
    }

    @Test func aStoredTokenNeverGoesOverAPlainPort() async throws {
        let (tv, events) = try await startSamsung()
        defer { Task { await tv.stop() } }
        let ctx = try samsungContext()
        let adapter = SamsungTVAdapter(keyPacing: .zero, acceptTimeout: .seconds(3))
        let paired = try await adapter.pairing(
            with: Endpoint(host: "127.0.0.1", port: tv.port), options: AdapterOptionValues(ports: ["rest": tv.restPort]), context: ctx
        ).run(responder: Trusting())
        #expect(paired.secrets["token"] != nil)
        // The same TV stored on its plain port (8001 style): the token must not be sent.
        var plain = paired.device
        plain.port = tv.restPort
        func channels() -> Int { events.named("client_connected").count + events.named("client_rejected").count }
        // The pairing's own channel is recorded by the TV as it comes, maybe after pairing returned.
        try await events.wait(for: "client_connected")
        let connectsBefore = channels()
        let error = await #expect(throws: PhotonError.self) {
            _ = try await adapter.openSession(device: plain, secrets: paired.secrets, context: ctx)
        }
        #expect(error?.code == .authenticationRefused)
        #expect(error?.message.contains("clear text") == true)
        #expect(error?.hint?.contains(":8002") == true)
        // A marker after it: a session on the TLS port. Its channel is the only one the TV saw
        // since (a plain-port attempt would have connected before it).
        let marker = try await adapter.openSession(device: paired.device, secrets: paired.secrets, context: ctx)
        await marker.close()
        try await events.wait(for: "client_connected", count: connectsBefore + 1)
        #expect(channels() == connectsBefore + 1)
    }

    @Test func tokensAreASCIIAndEscapedInTheURL() {
        #expect(SamsungEvent.tokenValue("12345678") == "12345678")
        #expect(SamsungEvent.tokenValue("ab-CD-09") == "ab-CD-09")
        #expect(SamsungEvent.tokenValue(12345) == "12345")
        // A number that is not an integer, or anything that is not a string or number, is no token.
        #expect(SamsungEvent.tokenValue(.double(1.5)) == nil)
        #expect(SamsungEvent.tokenValue(.object([("token", "1")])) == nil)
        #expect(SamsungEvent.tokenValue(nil) == nil)
        for bad in ["１２３４", "tökén", "a b", "a&b", "", String(repeating: "a", count: 129)] {
            #expect(SamsungEvent.tokenValue(.string(bad)) == nil, "\(bad)")
        }
        let target = SamsungCommand.channelTarget(clientName: "Photon", token: "a&b=c d")
        #expect(target.hasSuffix("&token=a%26b%3Dc%20d"))
    }

    @Test func aFullwidthMACFromTheTVIsNotStored() throws {
        let body = #"{"device":{"name":"TV","wifiMac":"０１:２３:４５:６７:８９:ＡＢ","TokenAuthSupport":"true"}}"#
        let info = try SamsungDeviceInfo.parse(Array(body.utf8))
        #expect(info.wifiMac == nil)
        let ascii = #"{"device":{"name":"TV","wifiMac":"01:23:45:67:89:ab"}}"#
        #expect(try SamsungDeviceInfo.parse(Array(ascii.utf8)).wifiMac == "01:23:45:67:89:AB")
    }

    /// The emulator once trapped on a query part with an empty name (`?=`).
    @Test func theEmulatorSurvivesOddQueries() async throws {
        let (tv, events) = try await startSamsung()
        defer { Task { await tv.stop() } }
        for target in [
            "/api/v2/channels/samsung.remote.control?=", "/api/v2/channels/samsung.remote.control?=&=&name=&&%ZZ=1",
            "/api/v2/channels/samsung.remote.control?token=&token=x",
        ] {
            let request = MessageStreamRequest(endpoint: Endpoint(host: "127.0.0.1", port: tv.restPort), target: target, security: .plain)
            if let channel = try? await NetConnector().openMessageStream(request, timeout: .seconds(3)) {
                _ = try? await channel.receive(timeout: .seconds(1))
                await channel.close(code: 1000, reason: "")
            }
        }
        #expect(HTTPServerRequest.queryParameters(of: "/x?=") == [:])
        #expect(HTTPServerRequest.queryParameters(of: "/x?a=1&a=2&b&=c&%ZZ=%41") == ["a": "1", "b": "", "%ZZ": "A"])
        // Still serving.
        let ctx = try samsungContext()
        _ = try await SamsungTVAdapter(keyPacing: .zero, acceptTimeout: .seconds(3)).pairing(
            with: Endpoint(host: "127.0.0.1", port: tv.port), options: AdapterOptionValues(ports: ["rest": tv.restPort]), context: ctx
        ).run(responder: Trusting())
        #expect(!events.named("paired").isEmpty)
    }
}
