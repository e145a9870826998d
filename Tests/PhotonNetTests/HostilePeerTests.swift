import Foundation
import PhotonCore
import PhotonNet
import PhotonTestSupport
import Testing

/// Peers that misbehave on purpose: ping floods, forbidden close codes, and a closed
/// stream whose descriptor number was reused.
extension StreamTests {
    /// A server that floods pings and never reads our pongs cannot hold a receive past
    /// its deadline (each pong once had a 30 s write timeout of its own).
    @Test func aPingFloodCannotStallAReceive() async throws {
        let (listener, client, server) = try await connectedPair()
        defer { listener.close() }
        let ws = WebSocketConnection(stream: client, role: .client)
        let ping = WebSocketFrame(opcode: .ping, payload: [UInt8](repeating: 0x50, count: 125)).encoded(maskingKey: nil)
        let burst = Array([[UInt8]](repeating: ping, count: 2000).joined())
        let flood = Task {
            for _ in 0..<200 { try await server.write(burst, timeout: .seconds(20)) }
        }
        defer {
            flood.cancel()
            Task { await server.close() }
        }
        let started = ContinuousClock.now
        let outcome: Result<WebSocketMessage?, any Error> = await Result {
            try await withTimeout(.seconds(20), "the flooded receive") { try await ws.receive(timeout: .milliseconds(500)) }
        }
        let error = try #require(outcome.error as? PhotonError)
        // Bounded by the receive's deadline plus one pong write, not by the flood.
        #expect(error.code == .timeout)
        #expect(!error.message.contains("the flooded receive"), "\(error.message)")
        #expect(ContinuousClock.now - started < .seconds(15))
    }

    /// An oversize message closes the connection with 1009, and the connection says it is
    /// closing before the peer can have read that close (a server counting open streams per
    /// client relies on it).
    @Test func anOversizeMessageMarksTheConnectionClosingBeforeThePeerSeesTheClose() async throws {
        let (listener, client, server) = try await connectedPair()
        defer { listener.close() }
        let ws = WebSocketConnection(stream: server, role: .server, maxMessageSize: 16)
        #expect(!ws.isClosing)
        try await client.write(
            WebSocketFrame(opcode: .binary, payload: [UInt8](repeating: 1, count: 17)).encoded(maskingKey: [1, 2, 3, 4]), timeout: .seconds(5))
        let receiving = Task { try await ws.receive(timeout: .seconds(5)) }
        let close = try await client.read(maxLength: 64, timeout: .seconds(5))
        #expect(ws.isClosing, "the peer read the close while the connection still counted as open")
        #expect(close.first == 0x88 && Array(close.dropFirst(2).prefix(2)) == [0x03, 0xF1], "\(close)")  // close, 1009
        #expect((await receiving.result.error as? PhotonError)?.code == .messageTooLarge)
        await client.close()
    }

    @Test func forbiddenCloseCodesAndReasonsAreProtocolErrors() async throws {
        func closeWith(_ payload: [UInt8]) async throws -> (Result<WebSocketMessage?, any Error>, UInt16?) {
            let (listener, client, server) = try await connectedPair()
            defer { listener.close() }
            let ws = WebSocketConnection(stream: client, role: .client)
            try await server.write(WebSocketFrame(opcode: .close, payload: payload).encoded(maskingKey: nil), timeout: .seconds(5))
            async let closed: Void = server.close()
            let result = await Result { try await ws.receive(timeout: .seconds(5)) }
            await closed
            return (result, await ws.closeCode)
        }
        for code: UInt16 in [0, 999, 1004, 1005, 1006, 1015, 1016, 2999, 5000, 65535] {
            let (result, _) = try await closeWith([UInt8(code >> 8), UInt8(code & 0xFF)])
            #expect((result.error as? PhotonError)?.code == .protocolViolation, "close code \(code)")
        }
        let (badReason, _) = try await closeWith([0x03, 0xE8, 0xC3, 0x28])
        #expect((badReason.error as? PhotonError)?.code == .protocolViolation)
        for code: UInt16 in [1000, 1001, 1011, 3000, 4999] {
            let (result, seen) = try await closeWith([UInt8(code >> 8), UInt8(code & 0xFF)] + Array("bye".utf8))
            #expect(try result.get() == nil, "close code \(code)")
            #expect(seen == code)
        }
        #expect(!WebSocketFrame.isValidCloseCode(1005))
        #expect(WebSocketFrame.isValidCloseCode(1000))
    }

    /// After `close`, a stream must not read or write its old descriptor number, which
    /// the kernel hands to the next socket or file opened.
    @Test func aClosedStreamNeverTouchesAReusedDescriptor() async throws {
        let (first, a, aServer) = try await connectedPair()
        defer { first.close() }
        let second = try TCPListener()
        defer { second.close() }
        async let serverClosed: Void = aServer.close()
        await a.close()
        await serverClosed
        // The next socket most likely gets a's old number.
        async let accepted = second.accept()
        let b = try await SocketStream.connect(host: "127.0.0.1", port: second.port, timeout: .seconds(5))
        let bServer = try await accepted
        defer {
            Task {
                await b.close()
                await bServer.close()
            }
        }
        await #expect(throws: PhotonError.self) { try await a.write(Array("LEAK".utf8), timeout: .seconds(1)) }
        await #expect(throws: PhotonError.self) { _ = try await a.read(maxLength: 16, timeout: .milliseconds(100)) }
        try await b.write(Array("ok".utf8), timeout: .seconds(1))
        #expect(try await readExactly(bServer, 2, timeout: .seconds(2)) == Array("ok".utf8))
        await #expect(throws: PhotonError.self) { _ = try await bServer.read(maxLength: 16, timeout: .milliseconds(300)) }
    }
}

extension Result {
    var error: Failure? {
        if case .failure(let e) = self { return e }
        return nil
    }
}

extension Result where Failure == any Error {
    init(_ body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}
