import PhotonCore
import Testing

@testable import AndroidTV

func hex(_ text: String) -> [UInt8] {
    var out: [UInt8] = []
    var digits = Array(text.filter { !$0.isWhitespace })
    while digits.count >= 2 {
        out.append(UInt8(String(digits[0...1]), radix: 16)!)
        digits.removeFirst(2)
    }
    return out
}

func bytes(_ parts: Any...) -> [UInt8] {
    var out: [UInt8] = []
    for part in parts {
        if let s = part as? String { out += Array(s.utf8) } else if let b = part as? [UInt8] { out += b }
    }
    return out
}

/// Byte layouts from the protocol notes (§5.2, §7, Appendix B), captured and encoded.
@Suite struct PoloCodecTests {
    @Test func decodesCapturedTVFrames() throws {
        let ack = try PoloMessage.decode(hex("08 02 10 c8 01 5a 00"))
        #expect(ack.status == 200 && ack.protocolVersion == 2)
        #expect(ack.body == .pairingRequestAck(serverName: nil))
        let options = try PoloMessage.decode(hex("08 02 10 c8 01 a2 01 08 12 04 08 03 10 06 18 01"))
        #expect(options.body == .options(inputEncodings: [], outputEncodings: [.hexadecimal6], preferredRole: .input))
        #expect(try PoloMessage.decode(hex("08 02 10 c8 01 fa 01 00")).body == .configurationAck)
        let secret = [UInt8](repeating: 0x27, count: 32)
        let secretAck = try PoloMessage.decode(hex("08 02 10 c8 01 ca 02 22 0a 20") + secret)
        #expect(secretAck.body == .secretAck(secret))
        let bad = try PoloMessage.decode(hex("08 02 10 92 03"))
        #expect(bad.status == 402)
    }

    @Test func encodesClientFramesExactly() {
        let request = PoloMessage(.pairingRequest(serviceName: "atvremote", clientName: "Home Assistant"))
        #expect(VarintFraming.frame(request.encoded()) == hex("22 08 02 10 c8 01 52 1b 0a 09") + bytes("atvremote", hex("12 0e"), "Home Assistant"))
        let options = PoloMessage(.options(inputEncodings: [.hexadecimal6], outputEncodings: [], preferredRole: .input))
        #expect(VarintFraming.frame(options.encoded()) == hex("10 08 02 10 c8 01 a2 01 08 0a 04 08 03 10 06 18 01"))
        let configuration = PoloMessage(.configuration(encoding: .hexadecimal6, clientRole: .input))
        #expect(VarintFraming.frame(configuration.encoded()) == hex("10 08 02 10 c8 01 f2 01 08 0a 04 08 03 10 06 10 01"))
        let alpha = [UInt8](repeating: 0xAB, count: 32)
        #expect(VarintFraming.frame(PoloMessage(.secret(alpha)).encoded()) == hex("2a 08 02 10 c8 01 c2 02 22 0a 20") + alpha)
    }

    @Test func roundTripsEveryBody() throws {
        let bodies: [PoloMessage.Body] = [
            .pairingRequest(serviceName: "s", clientName: "c"), .pairingRequestAck(serverName: "tv"),
            .options(inputEncodings: [.hexadecimal6], outputEncodings: [.hexadecimal6], preferredRole: .output),
            .configuration(encoding: .hexadecimal6, clientRole: .input), .configurationAck, .secret([1, 2]),
            .secretAck([3]),
        ]
        for body in bodies { #expect(try PoloMessage.decode(PoloMessage(body).encoded()).body == body) }
    }
}

@Suite struct RemoteCodecTests {
    @Test func decodesCapturedConfigure() throws {
        let frame =
            hex("0a 53 08 fd 04 12 4e 0a 0c")
            + bytes(
                "Smart TV Pro", hex("12 03"), "TCL", hex("18 01 22 02"), "11",
                hex("2a 24"), "com.google.android.tv.remote.service", hex("32 0d"), "5.2.473254133")
        guard case .configure(let features, let device?) = try RemoteMessage.decode(frame) else {
            Issue.record("not a configure")
            return
        }
        #expect(features == 637)
        #expect(!RemoteFeatures(rawValue: features).contains(.key))
        #expect(device.model == "Smart TV Pro" && device.vendor == "TCL" && device.osVersion == "11")
        #expect(device.appVersion == "5.2.473254133")
    }

    @Test func encodesLikeTheReferenceClient() {
        let info = RemoteDeviceInfo(model: "", vendor: "", platform: 1, osVersion: "1", packageName: "atvremote", appVersion: "1.0.0")
        #expect(
            RemoteMessage.configure(features: 615, device: info).encoded()
                == hex("0a 1c 08 e7 04 12 17 18 01 22 01") + bytes("1", hex("2a 09"), "atvremote", hex("32 05"), "1.0.0"))
        #expect(RemoteMessage.setActive(features: 615).encoded() == hex("12 03 08 e7 04"))
        #expect(VarintFraming.frame(RemoteMessage.keyInject(code: 26, direction: .short).encoded()) == hex("06 52 04 08 1a 10 03"))
        #expect(VarintFraming.frame(RemoteMessage.keyInject(code: 23, direction: .startLong).encoded()) == hex("06 52 04 08 17 10 01"))
        #expect(
            VarintFraming.frame(RemoteMessage.appLinkLaunch("https://www.youtube.com").encoded())
                == hex("1c d2 05 19 0a 17") + bytes("https://www.youtube.com"))
        #expect(
            VarintFraming.frame(RemoteMessage.imeBatchEdit(imeCounter: 9, fieldCounter: 4, text: "hi").encoded())
                == hex("15 aa 01 12 08 09 10 04 1a 0c 08 01 12 08 08 01 10 01 1a 02") + bytes("hi"))
        #expect(VarintFraming.frame(RemoteMessage.voiceBegin(sessionID: 42, packageName: nil).encoded()) == hex("05 f2 01 02 08 2a"))
        #expect(VarintFraming.frame(RemoteMessage.voiceEnd(sessionID: 42).encoded()) == hex("05 82 02 02 08 2a"))
        #expect(VarintFraming.frame(RemoteMessage.pingResponse(val1: 5).encoded()) == hex("04 4a 02 08 05"))
        #expect(RemoteMessage.setActive(features: 622).encoded() == hex("12 03 08 ee 04"))
    }

    @Test func decodesCapturedEvents() throws {
        #expect(try RemoteMessage.decode(hex("42 07 08 01 10 e4 f1 8d 01")) == .pingRequest(val1: 1, val2: 0x2378e4))
        #expect(try RemoteMessage.decode(hex("c2 02 02 08 01")) == .start(started: true))
        #expect(try RemoteMessage.decode(hex("c2 02 02 08 00")) == .start(started: false))
        #expect(try RemoteMessage.decode(hex("12 00")) == .setActive(features: 0))
        #expect(
            try RemoteMessage.decode(hex("a2 01 0d 0a 0b 62 09") + bytes("com.vk.tv"))
                == .imeKeyInject(appPackage: "com.vk.tv", label: nil))
        let volume = hex("92 03 18 08 02 10 02 1a 08") + bytes("AiPlus2K", hex("20 02 28 00 30 64 38 4a 40 00"))
        #expect(try RemoteMessage.decode(volume) == .setVolumeLevel(RemoteVolume(playerModel: "AiPlus2K", level: 74, maximum: 100, muted: false)))
        // A negative int32 (ping val2) is a 10-byte varint.
        let negative = RemoteMessage.pingRequest(val1: 3, val2: -5)
        #expect(try RemoteMessage.decode(negative.encoded()) == negative)
        // Unknown sub-messages are recognised as such, not errors.
        #expect(try RemoteMessage.decode(hex("e2 03 00")) == .other(field: 60))
    }

    @Test func malformedMessagesAreClearErrors() {
        let cases: [[UInt8]] = [
            hex("0a"),  // truncated length
            hex("0a 05 08"),  // length past the end
            hex("0b 00"),  // wire type 3 (group)
            hex("00 00"),  // field 0
            hex("42 0b 08 ff ff ff ff ff ff ff ff ff ff 01"),  // varint over 10 bytes
            [],  // empty
        ]
        for bad in cases {
            #expect(throws: PhotonError.self, "\(bad)") { try RemoteMessage.decode(bad) }
        }
        #expect(throws: PhotonError.self) { try PoloMessage.decode(hex("08 02")) }  // no status
    }
}

@Suite struct FramingTests {
    @Test func varintPrefixesFromTheNotes() {
        #expect(Array(VarintFraming.frame([UInt8](repeating: 0, count: 8201)).prefix(2)) == [0x89, 0x40])
        #expect(Array(VarintFraming.frame([UInt8](repeating: 0, count: 20496)).prefix(3)) == [0x90, 0xa0, 0x01])
        #expect(ProtoWriter.varint(20480) == [0x80, 0xa0, 0x01])
        #expect(ProtoWriter.varint(300) == [0xac, 0x02])
    }

    @Test func decoderHandlesAnySplit() throws {
        let messages: [[UInt8]] = [[1], [], Array(repeating: 7, count: 300), [9, 9]]
        let stream = messages.flatMap(VarintFraming.frame)
        for chunk in [1, 2, 3, 7, stream.count] {
            var decoder = VarintFrameDecoder(maxMessageSize: 1000)
            var out: [[UInt8]] = []
            var i = 0
            while i < stream.count {
                decoder.append(Array(stream[i..<min(i + chunk, stream.count)]))
                while let m = try decoder.next() { out.append(m) }
                i += chunk
            }
            #expect(out == messages, "chunk \(chunk)")
            #expect(decoder.bufferedCount == 0)
        }
    }

    @Test func oversizeAndCorruptPrefixesAreRefused() throws {
        var big = VarintFrameDecoder(maxMessageSize: 1000)
        big.append(ProtoWriter.varint(1_000_000))
        #expect(throws: PhotonError.self) { try big.next() }
        var corrupt = VarintFrameDecoder(maxMessageSize: 1000)
        corrupt.append([0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF])
        #expect(throws: PhotonError.self) { try corrupt.next() }
        var truncated = VarintFrameDecoder(maxMessageSize: 1000)
        truncated.append([0x05, 1, 2])
        #expect(try truncated.next() == nil)
    }

    @Test func garbageNeverCrashes() {
        var state: UInt64 = 99
        for _ in 0..<500 {
            var data: [UInt8] = []
            for _ in 0..<40 {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                data.append(UInt8(truncatingIfNeeded: state >> 33))
            }
            _ = try? RemoteMessage.decode(data)
            _ = try? PoloMessage.decode(data)
            var decoder = VarintFrameDecoder(maxMessageSize: 64)
            decoder.append(data)
            while (try? decoder.next()) != nil {}
            #expect(decoder.bufferedCount <= 40)
        }
    }
}

@Suite struct PairingSecretTests {
    // The worked example of protocol notes §5.5, checked again independently below.
    let clientModulus = hex("b1e5a7c3d2f40911")
    let serverModulus = hex("9a3c5e7f11223344")
    let exponent: [UInt8] = [1, 0, 1]

    @Test func knownAnswer() throws {
        let alpha = try PairingSecret.compute(
            code: "5312ab", clientModulus: clientModulus, clientExponent: exponent, serverModulus: serverModulus,
            serverExponent: exponent)
        #expect(alpha == hex("53f22f9b355a08486d11dcd9a68646822fa25f59d8a8412a6e80fde78f02b9b6"))
    }

    @Test func leadingZeroNonceIsKept() throws {
        let alpha = try PairingSecret.compute(
            code: "7800AB", clientModulus: clientModulus, clientExponent: exponent, serverModulus: serverModulus,
            serverExponent: exponent)
        #expect(alpha == hex("787b3abfeb113f97c4c5b676ce0df0767c502874b030ff2b013d6391bfd5e7f9"))
    }

    @Test func leadingZerosOfKeyMaterialAreStripped() throws {
        let alpha = try PairingSecret.compute(
            code: "5312AB", clientModulus: [0, 0] + clientModulus, clientExponent: [0] + exponent,
            serverModulus: serverModulus, serverExponent: exponent)
        #expect(alpha[0] == 0x53)
    }

    @Test func mistypedCodeIsCaughtLocally() {
        do {
            _ = try PairingSecret.compute(
                code: "5412AB", clientModulus: clientModulus, clientExponent: exponent, serverModulus: serverModulus,
                serverExponent: exponent)
            Issue.record("a wrong check byte passed")
        } catch let error as PhotonError {
            #expect(error.code == .pairingRefused)
            #expect(error.exitCode == 4)
        } catch {}
        #expect(throws: PhotonError.self) {
            try PairingSecret.compute(code: "5312A", clientModulus: [], clientExponent: [], serverModulus: [], serverExponent: [])
        }
    }
}

/// Fuzz findings, kept (Fuzz/FailCases/FuzzAndroidTVMessages).
@Suite struct AndroidTVFuzzFindingTests {
    /// An empty label in an IME message decoded as "" and re-encoded as absent (proto3
    /// leaves default values out): now "" reads as absent, so the message survives.
    @Test func anEmptyIMELabelReadsAsAbsent() throws {
        let message: [UInt8] = [8, 2, 16, 200, 1, 162, 1, 8, 10, 4, 8, 3, 82, 0, 24, 1]
        let decoded = try RemoteMessage.decode(message)
        #expect(decoded == .imeKeyInject(appPackage: nil, label: nil))
        #expect(try RemoteMessage.decode(decoded.encoded()) == decoded)
    }
}
