import AppleTVEmulator
import Foundation
import PhotonCore
import PhotonCrypto
import PhotonEmulatorSupport
import PhotonTestSupport
import Testing

@testable import AppleTV

/// Photon's Apple TV pairing pieces against pyatv 0.18.0 and srptools 1.0.1 (the versions
/// pyatv pairs with), run live: SRP-6a values byte for byte, OPACK both ways, HKDF and
/// ChaCha20-Poly1305 as pyatv computes them.
@Suite(.serialized) struct AppleTVInteropTests {
    func peer(_ arguments: [String]) throws -> String {
        let (status, output) = try TestEnvironment.run(try TestEnvironment.python, [TestEnvironment.peerScript("hap_peer.py")] + arguments)
        guard status == 0 else { throw TestFailure("hap_peer.py \(arguments.first ?? "") failed: \(output)") }
        return output
    }

    func json(_ text: String) throws -> Any { try JSONSerialization.jsonObject(with: Data(text.utf8)) }

    @Test func srpMatchesSrptoolsByteForByte() throws {
        let plainA = "0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0"
        let plainB = "1122334455667788990011223344556677889900112233445566778899001122"
        // The last two give A and B a leading zero byte, where srptools hashes them minimally.
        let zeroA = "8000000000000000000000000000000000000000000000000000000000000044"
        let zeroB = "8000000000000000000000000000000000000000000000000000000000000084"
        for (pin, salt, aHex, bHex) in [
            ("1234", "00a1b2c3d4e5f60718293a4b5c6d7e8f", plainA, plainB), ("0042", "ffeeddccbbaa99887766554433221100", plainA, plainB),
            ("1234", "00a1b2c3d4e5f60718293a4b5c6d7e8f", zeroA, plainB), ("518-08-582", "00a1b2c3d4e5f60718293a4b5c6d7e8f", plainA, zeroB),
        ] {
            let a = try Hex.decode(aHex)
            let b = try Hex.decode(bHex)
            let expected = try #require(try json(try peer(["srp", pin, salt, Hex.encode(a), Hex.encode(b)])) as? [String: String])
            let client = try SRPClient(username: "Pair-Setup", password: pin, privateValue: a)
            let server = try SRPServer(username: "Pair-Setup", password: pin, salt: try Hex.decode(salt), privateValue: b)
            #expect(Hex.encode(client.publicValue) == expected["A"])
            #expect(Hex.encode(server.publicValue) == expected["B"])
            let (proof, key) = try client.respond(salt: try Hex.decode(salt), serverPublic: server.publicValue)
            #expect(Hex.encode(key) == expected["K"])
            #expect(Hex.encode(proof) == expected["M1"])
            let (_, serverProof) = try server.verify(clientPublic: client.publicValue, clientProof: proof)
            #expect(Hex.encode(serverProof) == expected["M2"])
        }
    }

    @Test func opackMatchesPyatvBothWays() throws {
        let theirs = try #require(try json(try peer(["opack"])) as? [String: String])
        for (name, value, _) in OPACKTests.samples {
            #expect(Hex.encode(value.encoded) == theirs[name], "\(name)")
        }
        // pyatv reads back what Photon writes, to the same values.
        let decoded = try #require(try json(try peer(["unopack"] + OPACKTests.samples.map { Hex.encode($0.1.encoded) })) as? [Any])
        #expect(decoded.count == OPACKTests.samples.count)
        let message = try #require(decoded[OPACKTests.samples.firstIndex { $0.0 == "message" }!] as? [[Any]])
        #expect(message.first?.first as? String == "_i")
        #expect(message.first?.last as? String == "_launchApp")
    }

    @Test func hkdfAndChaChaMatchPyatv() throws {
        let secret = Array(UInt8(0)..<32)
        for (salt, info) in [("Pair-Verify-Encrypt-Salt", "Pair-Verify-Encrypt-Info"), ("", "ServerEncrypt-main")] {
            let theirs = try peer(["hkdf", Hex.encode(secret), salt, info]).trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(Hex.encode(try HKDF.sha512(secret: secret, salt: salt, info: info)) == theirs)
        }
        let key = Array(repeating: UInt8(9), count: 32)
        let nonce = ChaChaPoly.nonce(label: "PV-Msg02")
        let header: [UInt8] = [8, 0, 0, 21]
        let theirs = try peer(["chacha", Hex.encode(key), Hex.encode(nonce), Hex.encode(header), Hex.encode(Array("hello".utf8))])
        #expect(
            Hex.encode(try ChaChaPoly.seal(Array("hello".utf8), key: key, nonce: nonce, authenticating: header))
                == theirs.trimmingCharacters(in: .whitespacesAndNewlines))
    }
}

extension AppleTVInteropTests {
    /// Python's plistlib reads what Photon writes to the same values, and Photon reads what
    /// plistlib writes (UIDs, every integer width, UTF-16 text, long counts).
    @Test func binaryPlistsMatchPlistlibBothWays() throws {
        let theirs = try #require(try json(try peer(["plists"])) as? [String: String])
        #expect(theirs.count == 9)
        for (name, hex) in theirs {
            let value = try BinaryPlist.decode(try Hex.decode(hex))
            let again = try #require(try json(try peer(["unplist", Hex.encode(BinaryPlist.encode(value)), hex])) as? [Any], "\(name)")
            // plistlib reads Photon's bytes and its own to the same thing.
            #expect(
                String(data: try JSONSerialization.data(withJSONObject: again[0], options: .sortedKeys), encoding: .utf8)
                    == String(data: try JSONSerialization.data(withJSONObject: again[1], options: .sortedKeys), encoding: .utf8), "\(name)")
        }
        let ints = try BinaryPlist.decode(try Hex.decode(try #require(theirs["ints"])))
        #expect(ints.arrayValue?.last == .int(Int64.min))
        #expect(ints.arrayValue?[8] == .int(Int64.max))
        let strings = try BinaryPlist.decode(try Hex.decode(try #require(theirs["strings"])))
        #expect(strings.arrayValue?.suffix(3) == [.string("café"), .string("日本語 ✓"), .string("emoji 🙂")])
    }

    /// The text-input archives: Photon reads pyatv's `_tiC` payloads, pyatv's archive
    /// reader finds the session and text in Photon's (and in the emulator's `_tiStart`).
    @Test func textInputArchivesMatchPyatvBothWays() throws {
        let session = Array(UInt8(0xA0)..<0xB0)
        let theirs = try #require(try json(try peer(["rti", Hex.encode(session), "naïve 🙂"])) as? [String: String])
        #expect(try RemoteTextInput.operation(in: try Hex.decode(try #require(theirs["insert"]))) == .insert("naïve 🙂", session: session))
        #expect(try RemoteTextInput.operation(in: try Hex.decode(try #require(theirs["clear"]))) == .clear(session: session))
        let insert = try #require(try json(try peer(["tic", Hex.encode(RemoteTextInput.insert("naïve 🙂", session: session))])) as? [Any])
        #expect(insert[0] as? String == Hex.encode(session) && insert[1] as? String == "naïve 🙂" && insert[2] is NSNull)
        let clear = try #require(try json(try peer(["tic", Hex.encode(RemoteTextInput.clear(session: session))])) as? [Any])
        #expect(clear[0] as? String == Hex.encode(session) && clear[1] is NSNull && clear[2] as? String == "")
        let started = try #require(
            try json(try peer(["tistart", Hex.encode(RemoteTextInput.sessionStarted(session: session, text: "already"))])) as? [Any])
        #expect(started[0] as? String == Hex.encode(session) && started[1] as? String == "already")
    }
}

extension AppleTVInteropTests {
    /// Unicast DNS-SD as pyatv speaks it: Photon reads the types out of pyatv's query, and
    /// pyatv's parser finds the service, its port, address and TXT in Photon's answer.
    @Test func unicastDNSSDMatchesPyatvBothWays() throws {
        let queries = try peer(["dnsquery", "_companion-link._tcp", "_device-info._tcp"]).split(separator: "\n")
        let (_, types) = try DNSSD.questions(in: try Hex.decode(String(try #require(queries.first))))
        #expect(types == ["_companion-link._tcp", "_device-info._tcp", "_sleep-proxy._udp"])
        let answer = try DNSSD.answer(
            id: 0x35FF,
            services: [
                DNSSD.Announcement(
                    instance: "Living Room", type: "_companion-link._tcp", hostname: "Living-Room", port: 49153,
                    txt: [("rpMd", "AppleTV14,1"), ("rpHN", "Living Room")], addresses: [[127, 0, 0, 1]]),
                DNSSD.Announcement(
                    instance: "Living Room", type: "_device-info._tcp", hostname: "Living-Room", port: 0, txt: [("model", "AppleTV14,1")],
                    addresses: []),
            ])
        let services = try #require(try json(try peer(["dnsparse", Hex.encode(answer)])) as? [[Any]])
        let companion = try #require(services.first { $0[0] as? String == "_companion-link._tcp.local" })
        #expect(companion[1] as? String == "Living Room" && companion[2] as? String == "127.0.0.1" && companion[3] as? Int == 49153)
        #expect((companion[4] as? [String: String])?["rpmd"] == "AppleTV14,1")
    }
}

/// pyatv's own unicast scan (`atvremote --scan-hosts`) finds the emulated Apple TV through
/// its DNS-SD answer. pyatv asks port 5353 unless `PYATV_UDNS_PORT` (its testing hook) says
/// otherwise: the emulator answers on a free port instead, since avahi-daemon may hold 5353.
@Suite(.serialized) struct PyatvScansTheEmulatorTests {
    @Test func atvremoteScanFindsTheEmulatorByUnicastDNSSD() async throws {
        let emulator = TestEnvironment.repositoryRoot.appendingPathComponent(".build/debug/photon-emulator").path
        guard FileManager.default.isExecutableFile(atPath: emulator) else { throw TestFailure("no \(emulator): run `make test`") }
        let atvremote = TestEnvironment.repositoryRoot.appendingPathComponent(".venv/bin/atvremote").path
        let script = """
            "$1" appletv --port 0 --mdns-port 0 --name Kitchen > "$3" 2>&1 < /dev/null &
            emulator=$!
            for i in $(seq 50); do grep -q dns_sd_ready "$3" && break; sleep 0.1; done
            port=$(sed -n 's/.*"dns_sd_ready","port":\\([0-9]*\\).*/\\1/p' "$3")
            PYATV_UDNS_PORT=$port "$2" --scan-hosts 127.0.0.1 --scan-timeout 3 scan
            status=$?
            kill $emulator; wait $emulator
            exit $status
            """
        let events = FileManager.default.temporaryDirectory.appendingPathComponent("photon-scan-\(UUID().uuidString).jsonl")
        defer { try? FileManager.default.removeItem(at: events) }
        let (status, output) = try TestEnvironment.run("/bin/sh", ["-c", script, "scan", emulator, atvremote, events.path])
        let seen = (try? String(contentsOf: events, encoding: .utf8)) ?? ""
        #expect(status == 0, "\(output)")
        #expect(output.contains("Name: Kitchen"), "\(output) \(seen)")
        #expect(output.contains("Companion"), "\(output)")
        #expect(output.contains("Apple TV 4K") || output.contains("AppleTV14,1"), "\(output)")
        #expect(seen.contains("dns_sd_query"), "\(seen)")
    }
}

/// pyatv 0.18.0's `atvremote` against the emulated Apple TV: it pairs with the PIN over
/// Companion (our accessory's SRP, signatures and encryption as pyatv computes them), then
/// connects with its credentials and sends keys, launches an app, lists apps, sets text
/// and the volume, and turns the Apple TV off and on.
@Suite(.serialized) struct PyatvDrivesTheEmulatorTests {
    @Test func atvremotePairsThenSendsKeysAndLaunches() async throws {
        let events = Locked<[EmulatorEvent]>([])
        var configuration = EmulatedAppleTV.Configuration()
        configuration.port = 0
        configuration.pin = "4321"
        let tv = try EmulatedAppleTV.start(configuration) { event in events.withLock { $0.append(event) } }
        defer { Task { await tv.stop() } }
        let atvremote = TestEnvironment.repositoryRoot.appendingPathComponent(".venv/bin/atvremote").path
        let base = ["--manual", "--address", "127.0.0.1", "--port", String(tv.port), "--protocol", "companion", "--id", configuration.identifier]
        func run(_ arguments: [String], input: String? = nil) async throws -> TestProcess {
            let process = try TestProcess(atvremote, base + arguments)
            if let input { process.writeToStandardInput(input) }
            process.closeStandardInput()
            _ = await process.waitForExit(timeout: .seconds(60))
            return process
        }
        // atvremote asks for the PIN on its standard input; a wrong one is refused.
        let wrong = try await run(["pair"], input: "1111\n")
        #expect(wrong.process.terminationStatus != 0)
        #expect(!events.withLock { $0.contains { $0.name == "paired" } })
        let pairing = try await run(["pair"], input: "4321\n")
        let output = pairing.standardOutput + pairing.standardError
        #expect(pairing.process.terminationStatus == 0, "\(output)")
        #expect(events.withLock { $0.contains { $0.name == "paired" } }, "\(output)")
        let credentials = try #require(
            output.split(whereSeparator: \.isWhitespace).map(String.init).first { $0.split(separator: ":").count >= 4 && $0.count > 100 },
            "no credentials in \(output)")
        let commands = ["up", "launch_app=com.netflix.Netflix", "app_list", "text_set=the expanse", "set_volume=40", "turn_off", "power_state"]
        for command in commands + ["turn_on", "power_state"] {
            let done = try await run(["--companion-credentials", credentials, command])
            #expect(done.process.terminationStatus == 0, "\(command): \(done.standardOutput) \(done.standardError)")
            if command == "app_list" { #expect(done.standardOutput.contains("Netflix"), "\(done.standardOutput)") }
        }
        // text_set is stop, start, clear, insert; set_volume waits for the _iMC that confirms it.
        #expect(events.withLock { $0.contains { $0.name == "text_cleared" } })
        #expect(events.withLock { $0.last { $0.name == "text" }?["field"]?.string } == "the expanse")
        #expect(events.withLock { $0.last { $0.name == "volume" }?["level"] } == .int(40))
        #expect(events.withLock { $0.filter { $0.name == "power" }.map { $0["state"]?.string ?? "" } } == ["asleep", "awake"])
        let keys = events.withLock { $0.filter { $0.name.hasPrefix("key") }.map { "\($0.name) \($0["key"]?.string ?? "")" } }
        #expect(keys.contains("key_down Up") && keys.contains("key Up"), "\(keys)")
        #expect(events.withLock { $0.contains { $0.name == "launch" && $0["app"]?.string == "com.netflix.Netflix" } })
    }
}
