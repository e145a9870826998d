import Foundation
import PhotonCore
import PhotonCrypto
import PhotonNet
import PhotonTestSupport
import Testing

@Suite struct StreamTests {
    /// A loopback TCP connection: the listener (to close), our end and the server's end.
    func connectedPair() async throws -> (TCPListener, SocketStream, SocketStream) {
        let listener = try TCPListener()
        async let accepted = listener.accept()
        let client = try await SocketStream.connect(host: "127.0.0.1", port: listener.port, timeout: .seconds(5))
        return (listener, client, try await accepted)
    }

    /// The server end of a loopback connection finds the connecting user in /proc/net/tcp.
    @Test func aLoopbackPeerIsKnownByItsUser() async throws {
        let (listener, client, server) = try await connectedPair()
        defer { listener.close() }
        let peer = try #require(server.peerAddress)
        #expect(LoopbackSocketOwner.uid(clientPort: peer.port, serverPort: listener.port) == getuid())
        await client.close()
        await server.close()
    }

    @Test func connectingToAClosedPortFailsFastAsUnreachable() async throws {
        let port = try freePort()
        let start = ContinuousClock.now
        do {
            _ = try await SocketStream.connect(host: "127.0.0.1", port: port, timeout: .seconds(5))
            Issue.record("connected to a closed port")
        } catch let error as PhotonError {
            #expect(error.code == .unreachable)
            #expect(error.exitCode == 3)
            #expect(error.hint?.contains("nothing listens") == true)
        }
        #expect(ContinuousClock.now - start < .seconds(5))
    }

    @Test func readTimesOutWhenNothingArrives() async throws {
        let (listener, client, server) = try await connectedPair()
        defer { listener.close() }
        do {
            _ = try await client.read(maxLength: 10, timeout: .milliseconds(150))
            Issue.record("a read with nothing to read returned")
        } catch let error as PhotonError {
            #expect(error.code == .timeout)
        }
        // The stream still works after a timeout.
        try await server.write([1, 2, 3])
        #expect(try await readExactly(client, 3) == [1, 2, 3])
        // A graceful close waits (up to its linger) for the peer's close: both at once.
        async let serverClosed: Void = server.close()
        #expect(try await client.read(maxLength: 10, timeout: .seconds(5)) == [])
        await client.close()
        await serverClosed
    }

    @Test func tlsHandshakeWithASilentServerTimesOut() async throws {
        // Accepts TCP but never speaks TLS.
        let listener = try TCPListener()
        defer { listener.close() }
        let hold = Task { try await listener.accept() }
        let start = ContinuousClock.now
        do {
            _ = try await TLSStream.connect(
                host: "127.0.0.1", port: listener.port, options: TLSClientOptions(trust: .captureForFirstUse),
                timeout: .milliseconds(300))
            Issue.record("a handshake with a silent server completed")
        } catch let error as PhotonError {
            #expect(error.code == .timeout)
        }
        #expect(ContinuousClock.now - start < .seconds(3))
        hold.cancel()
    }

    @Test func cancellationEndsAPendingRead() async throws {
        let (listener, client, server) = try await connectedPair()
        // The server end stays open: only our side ends the read.
        defer { withExtendedLifetime(server) { listener.close() } }
        let reader = Task { try await client.read(maxLength: 10, timeout: nil) }
        try await Task.sleep(for: .milliseconds(50))
        reader.cancel()
        let result = await reader.result
        #expect(throws: CancellationError.self) { try result.get() }
    }

    @Test func closeEndsAPendingRead() async throws {
        let (listener, client, server) = try await connectedPair()
        // The server end stays open: only our side ends the read.
        defer { withExtendedLifetime(server) { listener.close() } }
        let reader = Task { try await client.read(maxLength: 10, timeout: nil) }
        try await Task.sleep(for: .milliseconds(50))
        await client.close()
        let result = await reader.result
        if case .success(let bytes) = result { #expect(bytes.isEmpty) }
    }

    @Test func tlsConcurrentWritersAndAReader() async throws {
        let identity = try IdentityFactory.makeClientIdentity(commonName: "TV")
        let listener = try TLSListener(
            configuration: TLSServerConfiguration(certificatePEM: identity.certificatePEM, privateKeyPEM: identity.privateKeyPEM))
        defer { listener.close() }
        // Echo server.
        let echo = Task {
            let stream = try await listener.accept()
            while true {
                let bytes = try await stream.read(maxLength: 65536, timeout: .seconds(10))
                if bytes.isEmpty { break }
                try await stream.write(bytes)
            }
        }
        let client = try await TLSStream.connect(
            host: "127.0.0.1", port: listener.port,
            options: TLSClientOptions(identity: identity, trust: .captureForFirstUse), timeout: .seconds(5))
        let writers = 8
        let chunk = 1000
        let perWriter = 50
        let total = writers * chunk * perWriter
        async let received = readExactly(client, total, timeout: .seconds(20))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for w in 0..<writers {
                group.addTask {
                    for _ in 0..<perWriter { try await client.write([UInt8](repeating: UInt8(w), count: chunk)) }
                }
            }
            try await group.waitForAll()
        }
        let bytes = try await received
        #expect(bytes.count == total)
        // Writes never interleave: every 1000-byte run is one writer's byte.
        for run in stride(from: 0, to: total, by: chunk) {
            #expect(Set(bytes[run..<(run + chunk)]).count == 1)
        }
        await client.close()
        _ = await echo.result
    }

    @Test func endpointParsing() throws {
        #expect(try Endpoint(parsing: "192.0.2.1", defaultPort: 6466) == Endpoint(host: "192.0.2.1", port: 6466))
        #expect(try Endpoint(parsing: "tv.local:8002", defaultPort: 6466) == Endpoint(host: "tv.local", port: 8002))
        #expect(try Endpoint(parsing: "[::1]:7000", defaultPort: 6466) == Endpoint(host: "::1", port: 7000))
        #expect(try Endpoint(parsing: "[fe80::1]", defaultPort: 6466) == Endpoint(host: "fe80::1", port: 6466))
        #expect(try Endpoint(parsing: "fe80::1", defaultPort: 6466) == Endpoint(host: "fe80::1", port: 6466))
        #expect(Endpoint(host: "::1", port: 1).description == "[::1]:1")
        for bad in ["", "host:0", "host:99999", "host:abc", "[::1", "[::1]x", ":80"] {
            #expect(throws: PhotonError.self, "\(bad)") { try Endpoint(parsing: bad, defaultPort: 1) }
        }
    }

    @Test func ipv6Loopback() async throws {
        let listener = try TCPListener(host: "::1", port: 0)
        defer { listener.close() }
        async let accepted = listener.accept()
        let client = try await SocketStream.connect(host: "::1", port: listener.port, timeout: .seconds(5))
        let server = try await accepted
        try await client.write([9, 8, 7])
        #expect(try await readExactly(server, 3) == [9, 8, 7])
        async let clientClosed: Void = client.close()
        await server.close()
        await clientClosed
    }

    @Test func udpDatagramArrives() async throws {
        let receiver = try UDPReceiver(host: "127.0.0.1", port: 0)
        defer { receiver.close() }
        try UDPSender.send([0xFF, 1, 2], to: "127.0.0.1", port: receiver.port, broadcast: true)
        let (bytes, _) = try await receiver.receive(timeout: .seconds(5))
        #expect(bytes == [0xFF, 1, 2])
        #expect(throws: PhotonError.self) { try UDPSender.send([1], to: "not-an-ip", port: 9) }
    }
}

/// Sockets in the event loop's batched set: nothing is lost or stuck, whether the set is
/// small (handled at once), large and busy (collected once per window), or large and quiet.
@Suite struct BatchedReadinessTests {
    @Test func pingPongOverManyBatchedConnectionsLosesNothing() async throws {
        let listener = try TCPListener()
        defer { listener.close() }
        var pairs: [(SocketStream, SocketStream)] = []
        // More than the threshold, so the set really batches.
        for _ in 0..<(EventLoop.batchThreshold + 16) {
            async let accepted = listener.accept()
            let client = try await SocketStream.connect(host: "127.0.0.1", port: listener.port, timeout: .seconds(5))
            let server = try await accepted
            server.allowBatchedReadiness()
            pairs.append((client, server))
        }
        // Each server echoes 50 one-byte messages, reading in a task that prefers the loop.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (client, server) in pairs {
                group.addTask(executorPreference: server.preferredExecutor) {
                    var echoed = 0
                    while echoed < 50 {
                        let bytes = try await server.read(maxLength: 64, timeout: .seconds(10))
                        #expect(!bytes.isEmpty)
                        try await server.write(bytes, timeout: .seconds(5))
                        echoed += bytes.count
                    }
                }
                group.addTask {
                    for round in 0..<50 {
                        try await client.write([UInt8(round % 256)], timeout: .seconds(5))
                        let back = try await client.read(maxLength: 64, timeout: .seconds(10))
                        #expect(back == [UInt8(round % 256)])
                    }
                }
            }
            try await group.waitForAll()
        }
        // After a quiet spell, one message on one connection of the large set.
        try await Task.sleep(for: EventLoop.batchWindow * 3)
        let (lastClient, lastServer) = pairs[pairs.count - 1]
        async let received = lastServer.read(maxLength: 16, timeout: .seconds(5))
        try await lastClient.write([7], timeout: .seconds(5))
        #expect(try await received == [7])
        for (client, server) in pairs {
            async let serverClosed: Void = server.close()
            await client.close()
            await serverClosed
        }
    }

    @Test func aLoneMessageAfterQuietArrivesWithoutWaitingForAWindow() async throws {
        let listener = try TCPListener()
        defer { listener.close() }
        async let accepted = listener.accept()
        let client = try await SocketStream.connect(host: "127.0.0.1", port: listener.port, timeout: .seconds(5))
        let server = try await accepted
        server.allowBatchedReadiness()
        try await Task.sleep(for: EventLoop.batchWindow * 3)
        async let received = server.read(maxLength: 16, timeout: .seconds(5))
        try await Task.sleep(for: .milliseconds(5))
        try await client.write([42], timeout: .seconds(5))
        #expect(try await received == [42])
        // A close is seen by a batched reader too.
        async let clientClosed: Void = client.close()
        #expect(try await server.read(maxLength: 16, timeout: .seconds(5)).isEmpty)
        await server.close()
        await clientClosed
    }
}
