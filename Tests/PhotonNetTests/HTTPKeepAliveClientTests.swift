import Foundation
import PhotonCore
import PhotonCrypto
import PhotonTestSupport
import Testing

@testable import PhotonNet

/// The core's HTTP client for REST TVs, against servers on loopback: request headers on
/// the wire, fixed and chunked bodies over one kept-alive connection, TLS with the pinned
/// certificate (and nothing sent to another one), headers that would split a request
/// refused before connecting, and an answer over the body limit refused.
@Suite(.serialized) struct HTTPKeepAliveClientTests {
    /// Reads one request (head and `Content-Length` body) from `stream`.
    static func readRequest(_ stream: any ByteStream) async throws -> (HTTPHead, [UInt8]) {
        var (head, rest) = try await HTTPHeadReader.read(from: stream, timeout: .seconds(5))
        let length = head["Content-Length"].flatMap(Int.init) ?? 0
        while rest.count < length { rest += try await stream.read(maxLength: length - rest.count, timeout: .seconds(5)) }
        return (head, rest)
    }

    @Test func headersGoOnTheWireAndBothBodyFramingsComeBackOnOneConnection() async throws {
        let listener = try TCPListener(host: "127.0.0.1", port: 0)
        defer { listener.close() }
        let seen = Locked<[HTTPHead]>([])
        let bodies = Locked<[String]>([])
        let accepted = Locked(0)
        let server = Task {
            let stream = try await listener.accept()
            accepted.withLock { $0 += 1 }
            let (first, _) = try await Self.readRequest(stream)
            seen.withLock { $0.append(first) }
            try await stream.write(Array("HTTP/1.1 200 OK\r\nContent-Length: 17\r\n\r\n{\"result\":[true]}".utf8), timeout: .seconds(5))
            let (second, body) = try await Self.readRequest(stream)
            seen.withLock { $0.append(second) }
            bodies.withLock { $0.append(String(decoding: body, as: UTF8.self)) }
            try await stream.write(
                Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n".utf8), timeout: .seconds(5))
            _ = try? await stream.read(maxLength: 16, timeout: .seconds(5))
        }
        defer { server.cancel() }
        let client = HTTPKeepAliveClient(
            endpoint: Endpoint(host: "127.0.0.1", port: listener.port), connector: NetConnector(), timeout: .seconds(5),
            defaultHeaders: [("Accept", "application/json")])
        let first = try await client.request("GET", "/sony/system", headers: [("X-Auth-PSK", "0000")])
        #expect(first.status == 200 && String(decoding: first.body, as: UTF8.self) == #"{"result":[true]}"#)
        let json = Array(#"{"method":"getPowerStatus","params":[],"id":1,"version":"1.0"}"#.utf8)
        let second = try await client.request(
            "POST", "/sony/system", headers: [("Content-Type", "application/json"), ("Cookie", "auth=TOKEN")], body: json)
        #expect(second.status == 200 && String(decoding: second.body, as: UTF8.self) == "hello world")
        await client.drop()
        let heads = seen.withLock { $0 }
        try #require(heads.count == 2)
        #expect(heads[0].requestLine?.method == "GET" && heads[0]["X-Auth-PSK"] == "0000" && heads[0]["Accept"] == "application/json")
        #expect(heads[0]["Host"] == "127.0.0.1:\(listener.port)")
        #expect(heads[1]["Content-Type"] == "application/json" && heads[1]["Cookie"] == "auth=TOKEN")
        #expect(heads[1]["Content-Length"] == String(json.count) && bodies.withLock { $0 } == [String(decoding: json, as: UTF8.self)])
        #expect(accepted.withLock { $0 } == 1, "the second request did not reuse the connection")
    }

    @Test func overTLSThePinnedCertificateIsRequiredAndAnotherGetsNothing() async throws {
        let tv = try IdentityFactory.makeClientIdentity(commonName: "REST TV")
        let pin = try Certificate(pem: tv.certificatePEM).fingerprint
        let listener = try TLSListener(configuration: TLSServerConfiguration(certificatePEM: tv.certificatePEM, privateKeyPEM: tv.privateKeyPEM))
        defer { listener.close() }
        let requests = Locked(0)
        let server = Task {
            // A handshake refused by the client (the wrong pin) fails one accept; at the end of
            // the test (cancelled, then the listener closed) every accept fails, and the loop
            // must end: it once went on spinning through the rest of the shard, starving it.
            while !Task.isCancelled {
                let stream: TLSStream
                do {
                    stream = try await listener.accept()
                } catch {
                    continue
                }
                guard (try? await Self.readRequest(stream)) != nil else {
                    await stream.close()
                    continue
                }
                requests.withLock { $0 += 1 }
                try await stream.write(Array("HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n".utf8), timeout: .seconds(5))
                await stream.close()
            }
        }
        defer { server.cancel() }
        let endpoint = Endpoint(host: "127.0.0.1", port: listener.port)
        let pinned = HTTPKeepAliveClient(
            endpoint: endpoint, connector: NetConnector(), security: .tls(TLSClientOptions(trust: .pinned(pin))), timeout: .seconds(5))
        #expect(try await pinned.request("PUT", "/pairing/cancel", body: Array("{}".utf8)).status == 204)
        let other = try CertificateFingerprint(hex: String(repeating: "ab", count: 32))
        let wrong = HTTPKeepAliveClient(
            endpoint: endpoint, connector: NetConnector(), security: .tls(TLSClientOptions(trust: .pinned(other))), timeout: .seconds(5))
        do {
            _ = try await wrong.request("PUT", "/key_command/", body: Array("{}".utf8))
            Issue.record("a TV with another certificate was sent the request")
        } catch let error as PhotonError {
            #expect(error.code == .pinMismatch || error.code == .untrustedCertificate, "\(error)")
        }
        #expect(requests.withLock { $0 } == 1, "the TV with the wrong certificate read a request")
    }

    @Test func aHeaderThatWouldSplitTheRequestIsRefusedBeforeConnecting() async throws {
        // Port 9 on loopback: a connection attempt would fail as `unreachable`, so a
        // `usage` error shows that nothing was even connected.
        let client = HTTPKeepAliveClient(endpoint: Endpoint(host: "127.0.0.1", port: 9), connector: NetConnector(), timeout: .seconds(2))
        let bad: [(String, [(String, String)], String)] = [
            ("GET", [("X-Auth", "0000\r\nInjected: yes")], "/"), ("GET", [("X Auth", "0000")], "/"), ("GET", [("X-A:uth", "1")], "/"),
            ("GE T", [], "/"), ("GET", [], "/a b"), ("GET", [], "http://elsewhere/"), ("GET", [("Cookie", "a\u{0}b")], "/"),
        ]
        for (method, headers, target) in bad {
            do {
                _ = try await client.request(method, target, headers: headers)
                Issue.record("sent \(method) \(target) \(headers)")
            } catch let error as PhotonError {
                #expect(error.code == .usage, "\(method) \(target) \(headers): \(error)")
            }
        }
    }

    @Test func anAnswerOverTheBodyLimitIsRefused() async throws {
        let listener = try TCPListener(host: "127.0.0.1", port: 0)
        defer { listener.close() }
        let server = Task {
            let stream = try await listener.accept()
            _ = try await Self.readRequest(stream)
            try await stream.write(
                Array("HTTP/1.1 200 OK\r\nContent-Length: 5000\r\n\r\n".utf8) + [UInt8](repeating: 0x41, count: 5000), timeout: .seconds(5))
        }
        defer { server.cancel() }
        let client = HTTPKeepAliveClient(
            endpoint: Endpoint(host: "127.0.0.1", port: listener.port), connector: NetConnector(), timeout: .seconds(3), maxBody: 1024)
        do {
            _ = try await client.request("GET", "/state_extended")
            Issue.record("a 5000-byte answer passed a 1024-byte limit")
        } catch let error as PhotonError {
            #expect(error.code == .messageTooLarge || error.code == .protocolViolation, "\(error)")
        }
    }
}
