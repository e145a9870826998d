import Foundation
import PhotonCore
import PhotonCrypto
import PhotonNet
import PhotonTestSupport
import Testing

/// Our WebSocket client and server against Python's `websockets` package.
@Suite(.serialized) struct WebSocketInteropTests {
    func startPythonServer(maxSize: Int = 1 << 24) async throws -> (TestProcess, UInt16) {
        let port = try freePort()
        let server = try TestProcess(
            try TestEnvironment.python, [TestEnvironment.peerScript("ws_echo_server.py"), String(port), String(maxSize)])
        try await server.waitFor("READY")
        return (server, port)
    }

    func connect(_ port: UInt16, maxMessageSize: Int = 1 << 20, fragment: Int? = nil) async throws -> WebSocketConnection {
        let stream = try await SocketStream.connect(host: "127.0.0.1", port: port, timeout: .seconds(5))
        let ws = try await WebSocketClient.connect(
            over: stream, host: "127.0.0.1:\(port)", target: "/echo?token=secret", maxMessageSize: maxMessageSize,
            timeout: .seconds(5))
        guard let fragment else { return ws }
        return WebSocketConnection(stream: ws.stream, role: .client, maxMessageSize: maxMessageSize, outgoingFragmentSize: fragment)
    }

    @Test func echoTextAndBinary() async throws {
        let (server, port) = try await startPythonServer()
        defer { server.terminate() }
        let ws = try await connect(port)
        try await ws.send(.text("héllo, TV ✓"))
        #expect(try await ws.receive(timeout: .seconds(5)) == .text("héllo, TV ✓"))
        try await ws.send(.binary([0, 1, 2, 254, 255]))
        #expect(try await ws.receive(timeout: .seconds(5)) == .binary([0, 1, 2, 254, 255]))
        try await ws.send(.text(""))
        #expect(try await ws.receive(timeout: .seconds(5)) == .text(""))
        await ws.close(code: 1000, reason: "bye")
    }

    @Test func largeFragmentedMessagesBothWays() async throws {
        let (server, port) = try await startPythonServer()
        defer { server.terminate() }
        let ws = try await connect(port, fragment: 4096)
        // The server sends 300 kB in 1000-byte fragments.
        try await ws.send(.text("fragment:300000"))
        let expected = (0..<300_000).map { UInt8($0 % 251) }
        #expect(try await ws.receive(timeout: .seconds(10)) == .binary(expected))
        // We send 250 kB in 4096-byte fragments; the echo comes back whole.
        let big = (0..<250_000).map { UInt8(truncatingIfNeeded: $0 * 13) }
        try await ws.send(.binary(big))
        #expect(try await ws.receive(timeout: .seconds(10)) == .binary(big))
        await ws.close(code: 1000, reason: "")
    }

    @Test func pingFromServerIsAnsweredAndOurPingIsAnswered() async throws {
        let (server, port) = try await startPythonServer()
        defer { server.terminate() }
        let ws = try await connect(port)
        try await ws.send(.text("ping"))
        // The server only sends this after it received our automatic pong.
        #expect(try await ws.receive(timeout: .seconds(5)) == .text("pong-received"))
        try await ws.ping(Array("hi".utf8))
        try await ws.send(.text("after ping"))
        #expect(try await ws.receive(timeout: .seconds(5)) == .text("after ping"))
        await ws.close(code: 1000, reason: "")
    }

    @Test func closeCodesAreReported() async throws {
        let (server, port) = try await startPythonServer()
        defer { server.terminate() }
        let ws = try await connect(port)
        try await ws.send(.text("close:4001"))
        #expect(try await ws.receive(timeout: .seconds(5)) == nil)
        #expect(await ws.closeCode == 4001)

        let dropped = try await connect(port)
        try await dropped.send(.text("drop"))
        #expect(try await dropped.receive(timeout: .seconds(5)) == nil)
        #expect(await dropped.closeCode == 1006)
        do {
            try await dropped.send(.text("after close"))
            Issue.record("sending after the peer dropped succeeded")
        } catch let error as PhotonError {
            #expect(error.code == .connectionClosed)
        }
    }

    @Test func overLimitMessageIsRefused() async throws {
        let (server, port) = try await startPythonServer()
        defer { server.terminate() }
        let ws = try await connect(port, maxMessageSize: 10_000)
        try await ws.send(.text("fragment:50000"))
        do {
            _ = try await ws.receive(timeout: .seconds(5))
            Issue.record("an over-limit message was accepted")
        } catch let error as PhotonError {
            #expect(error.code == .messageTooLarge)
        }
    }

    @Test func pythonServerRefusesOurOverLimitMessage() async throws {
        let (server, port) = try await startPythonServer(maxSize: 1000)
        defer { server.terminate() }
        let ws = try await connect(port)
        try await ws.send(.binary([UInt8](repeating: 1, count: 5000)))
        #expect(try await ws.receive(timeout: .seconds(5)) == nil)
        #expect(await ws.closeCode == 1009)
    }

    @Test func pythonClientAgainstOurServer() async throws {
        let listener = try TCPListener(host: "127.0.0.1", port: 0)
        defer { listener.close() }
        let client = try TestProcess(
            try TestEnvironment.python, [TestEnvironment.peerScript("ws_client.py"), "ws://127.0.0.1:\(listener.port)/x"])
        defer { client.terminate() }
        let stream = try await listener.accept()
        let request = try await HTTPServerRequest.read(from: stream, timeout: .seconds(5))
        #expect(request.isWebSocketUpgrade)
        #expect(request.path == "/x")
        let ws = try await request.upgrade(maxMessageSize: 1 << 20)
        var received: [WebSocketMessage] = []
        while let message = try await ws.receive(timeout: .seconds(10)) {
            received.append(message)
            try await ws.send(message)
        }
        #expect(await ws.closeCode == 4000)
        #expect(received.count == 3)
        try await client.waitFor("DONE")
        #expect(client.standardOutput.contains("text: hello photon"))
        #expect(client.standardOutput.contains("binary: 000102ff"))
        #expect(client.standardOutput.contains("fragmented: 200000 True"))
        #expect(client.standardOutput.contains("pong: ok"))
        #expect(client.standardOutput.contains("closed: 4000"))
        #expect(await client.waitForExit() == 0)
    }

    @Test func websocketOverOurTLS() async throws {
        let tv = try IdentityFactory.makeClientIdentity(commonName: "WSS TV")
        let tvCert = try tv.certificateInfo()
        let listener = try TLSListener(
            configuration: TLSServerConfiguration(certificatePEM: tv.certificatePEM, privateKeyPEM: tv.privateKeyPEM))
        defer { listener.close() }
        let serverTask = Task {
            let stream = try await listener.accept()
            let ws = try await HTTPServerRequest.read(from: stream, timeout: .seconds(5)).upgrade()
            while let message = try await ws.receive(timeout: .seconds(5)) { try await ws.send(message) }
        }
        let connector = NetConnector()
        let request = MessageStreamRequest(
            endpoint: Endpoint(host: "127.0.0.1", port: listener.port), target: "/api/v2/channels/test",
            security: .tls(TLSClientOptions(trust: .pinned(tvCert.fingerprint))))
        let ws = try await connector.openMessageStream(request, timeout: .seconds(5))
        #expect(ws.peerCertificate?.fingerprint == tvCert.fingerprint)
        try await ws.send(.text("{\"method\":\"ms.remote.control\"}"))
        #expect(try await ws.receive(timeout: .seconds(5)) == .text("{\"method\":\"ms.remote.control\"}"))
        await ws.close(code: 1000, reason: "")
        try await serverTask.value
    }
}
