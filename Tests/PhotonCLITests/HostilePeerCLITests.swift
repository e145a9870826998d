import Foundation
import PhotonCore
import PhotonCrypto
import PhotonNet
import PhotonTestSupport
import Testing

/// Whatever answers at a TV's address, `photon` ends with an exit code and a message,
/// never by a signal: HTTP with hostile lengths and chunks, floods and binary on the REST
/// port, random bytes where TLS is expected, TLS peers that send garbage, and WebSocket
/// peers that send garbage, floods and oversize frames.
@Suite(.serialized) struct HostilePeerCLITests {
    /// A loopback server that hands each connection to `answer`.
    final class HostileServer: Sendable {
        let listener: TCPListener
        let tls: TLSListener?
        let task: Task<Void, Never>
        var port: UInt16 { tls?.port ?? listener.port }

        init(tls identity: ClientIdentity? = nil, answer: @escaping @Sendable (any ByteStream) async -> Void) throws {
            if let identity {
                let tlsListener = try TLSListener(
                    configuration: TLSServerConfiguration(certificatePEM: identity.certificatePEM, privateKeyPEM: identity.privateKeyPEM))
                tls = tlsListener
                listener = tlsListener.tcp
            } else {
                tls = nil
                listener = try TCPListener()
            }
            let (plain, secure) = (listener, tls)
            task = Task {
                while true {
                    let stream: any ByteStream
                    do {
                        if let secure { stream = try await secure.accept() } else { stream = try await plain.accept() }
                    } catch let error as PhotonError where error.code == .connectionClosed {
                        return
                    } catch {
                        continue
                    }
                    Task {
                        await answer(stream)
                        await stream.close()
                    }
                }
            }
        }

        func stop() {
            task.cancel()
            listener.close()
        }
    }

    static func readRequest(_ stream: any ByteStream) async -> String {
        var text = ""
        while !text.contains("\r\n\r\n"), let chunk = try? await stream.read(maxLength: 4096, timeout: .seconds(3)), !chunk.isEmpty {
            text += String(decoding: chunk, as: UTF8.self)
        }
        return text
    }

    func run(_ arguments: [String]) async throws -> TestProcess {
        let p = try TestProcess(
            try AndroidTVEndToEndTests.binary("photon-cli"),
            arguments + ["--home", try await TestEnvironment.home("photon-hostile").path, "--timeout", "3"])
        p.closeStandardInput()
        _ = await p.waitForExit(timeout: .seconds(30))
        return p
    }

    func expectCleanExit(_ p: TestProcess, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(p.process.terminationReason == .exit, "\(what) ended by signal \(p.process.terminationStatus)", sourceLocation: sourceLocation)
        #expect(p.process.terminationStatus != 0, "\(what) claimed success", sourceLocation: sourceLocation)
        #expect(p.standardError.contains("photon: error:"), "\(what): \(p.standardError)", sourceLocation: sourceLocation)
    }

    @Test func hostileHTTPAnswersOnTheRESTPort() async throws {
        let flood = "HTTP/1.1 200 OK\r\n" + String(repeating: "X-Flood: \(String(repeating: "a", count: 100))\r\n", count: 400) + "\r\n"
        let answers: [(String, [UInt8])] = [
            ("negative length", Array("HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n{}".utf8)),
            ("huge length", Array("HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999999\r\n\r\n{}".utf8)),
            ("max length", Array("HTTP/1.1 200 OK\r\nContent-Length: 9223372036854775807\r\n\r\n{}".utf8)),
            ("repeated lengths", Array("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 1\r\n\r\n{}".utf8)),
            ("negative chunk", Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n-1\r\n{}\r\n0\r\n\r\n".utf8)),
            ("overflowing chunk", Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nFFFFFFFFFFFFFFFFFFFF\r\n{}\r\n".utf8)),
            ("negative status", Array("HTTP/1.1 -200 OK\r\nContent-Length: 2\r\n\r\n{}".utf8)),
            ("header flood", Array(flood.utf8)),
            ("binary", (0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 7919 &+ 13) }),
        ]
        // Each answer has its own server, home and process, and most end at photon-cli's
        // 3 s timeout, so they run at the same time.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (what, answer) in answers {
                group.addTask {
                    let server = try HostileServer { stream in
                        _ = await Self.readRequest(stream)
                        try? await stream.write(answer, timeout: .seconds(3))
                    }
                    defer { server.stop() }
                    let p = try await run(["probe", "127.0.0.1", "--rest-port", String(server.port), "--port", "1", "--pairing-port", "1"])
                    expectCleanExit(p, "probe (\(what))")
                    #expect(p.process.terminationStatus == 3 || p.process.terminationStatus == 1, "\(what): \(p.standardError)")
                }
            }
            try await group.waitForAll()
        }
    }

    @Test func randomBytesWhereTLSIsExpected() async throws {
        // Plain garbage on the Android TV pairing port, then a real TLS peer that sends garbage.
        let garbage = try HostileServer { stream in
            try? await stream.write((0..<2048).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 5) }, timeout: .seconds(3))
        }
        defer { garbage.stop() }
        let probe = try await run(["probe", "127.0.0.1", "--pairing-port", String(garbage.port), "--port", String(garbage.port), "--rest-port", "1"])
        expectCleanExit(probe, "probe of a garbage TLS port")

        let identity = try IdentityFactory.makeClientIdentity()
        let fingerprint = try identity.certificateInfo().fingerprint
        let tls = try HostileServer(tls: identity) { stream in
            for _ in 0..<64 {
                guard (try? await stream.write((0..<1024).map { _ in UInt8.random(in: 0...255) }, timeout: .seconds(2))) != nil else { return }
            }
        }
        defer { tls.stop() }
        let pair = try await run([
            "pair", "127.0.0.1:\(tls.port)", "--brand", "androidtv", "--pairing-port", String(tls.port), "--trust", fingerprint.description,
        ])
        expectCleanExit(pair, "pairing with a TLS peer sending garbage")
    }

    @Test func hostileWebSocketPeers() async throws {
        let info = #"{"device":{"name":"Hostile","TokenAuthSupport":"false","wifiMac":"02:00:00:00:00:01"},"id":"x"}"#
        let frames: [(String, [UInt8])] = [
            ("garbage", (0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 7) }),
            ("oversize frame", [0x81, 0x7F, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]),
            ("reserved bits", [0xF1, 0x01, 0x41]),
            ("ping flood", Array([[UInt8]](repeating: [0x89, 0x04, 1, 2, 3, 4], count: 50_000).joined())),
            ("forbidden close", [0x88, 0x02, 0x03, 0xED]),
            ("invalid UTF-8 text", [0x81, 0x02, 0xC3, 0x28]),
        ]
        for (what, hostile) in frames {
            let server = try HostileServer { stream in
                let request = await Self.readRequest(stream)
                if request.hasPrefix("GET /api/v2/ ") {
                    try? await stream.write(Array("HTTP/1.1 200 OK\r\nContent-Length: \(info.utf8.count)\r\n\r\n\(info)".utf8), timeout: .seconds(3))
                    return
                }
                let key =
                    request.split(separator: "\r\n").first { $0.lowercased().hasPrefix("sec-websocket-key:") }
                    .map { String($0.dropFirst("sec-websocket-key:".count)).trimmingCharacters(in: .whitespaces) } ?? ""
                let head =
                    "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: \(webSocketAccept(forKey: key))\r\n\r\n"
                try? await stream.write(Array(head.utf8) + hostile, timeout: .seconds(5))
                _ = try? await stream.read(maxLength: 1, timeout: .seconds(5))
            }
            defer { server.stop() }
            let p = try await run(["pair", "127.0.0.1:\(server.port)", "--brand", "samsung", "--rest-port", String(server.port)])
            expectCleanExit(p, "pairing with a WebSocket peer sending \(what)")
        }
    }
}
