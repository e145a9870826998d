import Foundation
import PhotonCore
import PhotonNet
import PhotonTestSupport
import Testing

@testable import SamsungTV

/// Forwards TCP both ways until told to drop everything silently — a network that went
/// away sends no FIN and no reset, so only a keep-alive can notice.
final class BlackholeProxy: Sendable {
    let listener: TCPListener
    let dropping = Locked(false)

    init(to port: UInt16) throws {
        listener = try TCPListener()
        let listener = self.listener
        let dropping = self.dropping
        Task {
            while let client = try? await listener.accept() {
                guard let upstream = try? await SocketStream.connect(host: "127.0.0.1", port: port, timeout: .seconds(5)) else {
                    await client.close()
                    continue
                }
                Task { await Self.pump(client, to: upstream, dropping) }
                Task { await Self.pump(upstream, to: client, dropping) }
            }
        }
    }

    static func pump(_ from: SocketStream, to: SocketStream, _ dropping: Locked<Bool>) async {
        while let bytes = try? await from.read(maxLength: 65536, timeout: nil), !bytes.isEmpty {
            if dropping.withLock({ $0 }) { continue }
            do { try await to.write(bytes, timeout: .seconds(5)) } catch { break }
        }
        if !dropping.withLock({ $0 }) { await to.close() }
    }

    var port: UInt16 { listener.port }
    func close() { listener.close() }
}

@Suite struct SamsungKeepAliveTests {
    @Test func aTVThatGoesSilentEndsTheSessionWithATimeout() async throws {
        // The emulator's own pings are far apart: only our keep-alive makes traffic.
        let (tv, _) = try await startSamsung { $0.pingInterval = .seconds(600) }
        defer { Task { await tv.stop() } }
        let ctx = try samsungContext()
        let adapter = SamsungTVAdapter(keyPacing: .zero, acceptTimeout: .seconds(3), keepAlive: .milliseconds(400))
        let paired = try await adapter.pairing(
            with: Endpoint(host: "127.0.0.1", port: tv.port), options: AdapterOptionValues(ports: ["rest": tv.restPort]), context: ctx
        ).run(responder: Trusting())
        let proxy = try BlackholeProxy(to: tv.port)
        defer { proxy.close() }
        var device = paired.device
        device.port = proxy.port
        device.ports["rest"] = tv.restPort
        let session = try await adapter.openSession(device: device, secrets: paired.secrets, context: ctx)
        let ended = Locked<TVEvent?>(nil)
        let watcher = Task {
            for await event in session.events {
                if case .disconnected = event { ended.withLock { $0 = event } }
            }
        }
        defer { watcher.cancel() }

        // While the TV answers, pings keep the idle session open (three keep-alives).
        try await Task.sleep(for: .milliseconds(1200))
        #expect(ended.withLock { $0 } == nil)
        try await session.send(.key(.key(.home), .press))

        // The network goes away: the session ends on its own, with a timeout.
        proxy.dropping.withLock { $0 = true }
        let start = ContinuousClock.now
        while ended.withLock({ $0 }) == nil, ContinuousClock.now - start < .seconds(10) {
            try await Task.sleep(for: .milliseconds(20))
        }
        guard case .disconnected(let reason) = ended.withLock({ $0 }) else {
            Issue.record("the session did not notice the silent TV")
            return
        }
        #expect(reason?.code == .timeout)
        #expect(reason?.message.contains("no reply to a ping") == true)
        // At most a keep-alive of silence, then a keep-alive waiting for the pong.
        #expect(ContinuousClock.now - start < .seconds(3))
        await #expect(throws: PhotonError.self) { try await session.send(.key(.key(.home), .press)) }
        await session.close()
    }
}
