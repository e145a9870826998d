import Foundation
import PhotonCore
import PhotonCrypto
import PhotonNet
import PhotonTestSupport
import Testing

@testable import AndroidTV

/// Exit 0 must mean the command reached the TV. A TV server that is slow to write its
/// replies after set_active (as one under CPU load is) must still read what was sent
/// behind them: closing sends close_notify and FIN, then drains the TV's replies, and
/// `close` returns only when that is done — even though the session's reader task is
/// cancelled on the way.
@Suite struct GracefulCloseTests {
    final class SlowServer: Sendable {
        let listener: TLSListener
        let fingerprint: CertificateFingerprint
        let repliesWritten = Locked<Bool?>(nil)
        let received = Locked<[RemoteMessage]>([])
        let done = Promise<Void>()
        let task: Task<Void, Never>

        init(replyDelay: Duration) throws {
            let identity = try IdentityFactory.makeClientIdentity(commonName: "atvremote/slow/slow/Slow/02:00:00:00:00:09")
            fingerprint = try identity.certificateInfo().fingerprint
            listener = try TLSListener(
                configuration: TLSServerConfiguration(certificatePEM: identity.certificatePEM, privateKeyPEM: identity.privateKeyPEM))
            let (listener, repliesWritten, received, done) = (listener, repliesWritten, received, done)
            task = Task {
                defer { done.succeed(()) }
                guard let stream = try? await listener.accept() else { return }
                let framed = FramedStream(stream)
                defer { Task { await framed.close() } }
                do {
                    let info = RemoteDeviceInfo(model: "Slow", vendor: "Test", platform: 1, osVersion: "12", packageName: "p", appVersion: "1")
                    try await framed.send(RemoteMessage.configure(features: RemoteFeatures.photon.rawValue, device: info).encoded())
                    guard let configure = try await framed.receive(timeout: .seconds(5)) else { return }
                    received.withLock { $0.append(try! RemoteMessage.decode(configure)) }
                    try await framed.send(RemoteMessage.setActive(features: 0).encoded())
                    guard let active = try await framed.receive(timeout: .seconds(5)) else { return }
                    received.withLock { $0.append(try! RemoteMessage.decode(active)) }
                    // Busy: the replies go out a little later, then the server reads on.
                    try await Task.sleep(for: replyDelay)
                    do {
                        try await framed.send(RemoteMessage.start(started: true).encoded())
                        try await framed.send(RemoteMessage.imeKeyInject(appPackage: "com.example", label: nil).encoded())
                        repliesWritten.withLock { $0 = true }
                    } catch {
                        repliesWritten.withLock { $0 = false }
                        return
                    }
                    while let bytes = try await framed.receive(timeout: .seconds(5)) {
                        received.withLock { $0.append(try! RemoteMessage.decode(bytes)) }
                    }
                } catch {}
            }
        }

        func stop() {
            task.cancel()
            listener.close()
        }
    }

    @Test func aCommandSentRightBeforeCloseIsReadByASlowTV() async throws {
        for _ in 0..<3 {
            let server = try SlowServer(replyDelay: .milliseconds(300))
            defer { server.stop() }
            let device = DeviceRecord(id: "androidtv-slow", nickname: "slow", brand: "androidtv", host: "127.0.0.1", port: server.listener.port)
            let session = try await AndroidTVAdapter().openSession(
                device: device, secrets: DeviceSecrets(pin: server.fingerprint), context: try context())
            try await session.send(.launch("https://www.youtube.com"))
            await session.close()
            // close returned: the server got everything before we went away.
            try await withTimeout(.seconds(5), "the server finishing") { try await server.done.value() }
            #expect(server.repliesWritten.withLock { $0 } == true)
            #expect(server.received.withLock { $0 }.contains(.appLinkLaunch("https://www.youtube.com")))
        }
    }

    /// The mechanism behind it: the first closer's task is cancelled (the session's reader
    /// is, when the session closes). The drain must run anyway, and every closer waits for
    /// it; otherwise the socket is closed at once and the TV's late replies meet a reset.
    @Test func aCloseFromACancelledTaskStillDrains() async throws {
        let identity = try IdentityFactory.makeClientIdentity()
        let listener = try TLSListener(
            configuration: TLSServerConfiguration(certificatePEM: identity.certificatePEM, privateKeyPEM: identity.privateKeyPEM))
        defer { listener.close() }
        let outcome = Promise<(wrote: Bool, received: String)>()
        Task {
            guard let stream = try? await listener.accept() else { return outcome.succeed((false, "")) }
            try? await Task.sleep(for: .milliseconds(300))
            var wrote = true
            for _ in 0..<3 {
                do { try await stream.write(Array("reply".utf8), timeout: .seconds(2)) } catch { wrote = false }
                try? await Task.sleep(for: .milliseconds(20))
            }
            var received: [UInt8] = []
            while let chunk = try? await stream.read(maxLength: 1024, timeout: .seconds(3)), !chunk.isEmpty { received += chunk }
            await stream.close()
            outcome.succeed((wrote, String(decoding: received, as: UTF8.self)))
        }
        let stream = try await TLSStream.connect(
            host: "127.0.0.1", port: listener.port,
            options: TLSClientOptions(identity: identity, trust: .pinned(try identity.certificateInfo().fingerprint)), timeout: .seconds(5))
        try await stream.write(Array("command".utf8), timeout: .seconds(2))
        await Task {
            withUnsafeCurrentTask { $0?.cancel() }
            await stream.close()
        }.value
        let (wrote, received) = try await withTimeout(.seconds(10), "the server") { try await outcome.value() }
        #expect(wrote, "the server's replies met a closed socket")
        #expect(received == "command")
    }
}
