import PhotonCore
import Testing

@Suite struct ErrorModelTests {
    @Test func exitCodesFollowTheContract() {
        let expected: [PhotonError.Code: Int32] = [
            .usage: 2, .unreachable: 3, .timeout: 3, .connectionClosed: 3, .pairingRefused: 4,
            .authenticationRefused: 4, .notPaired: 4, .pinMismatch: 5, .untrustedCertificate: 5, .unsupported: 6,
            .protocolViolation: 1, .messageTooLarge: 1, .notFound: 1, .storeCorrupt: 1, .storePermissions: 1,
            .storeIO: 1, .crypto: 1, .tls: 1, .cancelled: 1, .internal: 1,
        ]
        for code in PhotonError.Code.allCases {
            #expect(PhotonError(code, "x").exitCode == expected[code], "\(code)")
        }
    }

    @Test func codesAreStableStrings() {
        #expect(PhotonError.Code.pinMismatch.rawValue == "pin_mismatch")
        #expect(PhotonError.Code.unsupported.rawValue == "unsupported")
        #expect(Set(PhotonError.Code.allCases.map(\.rawValue)).count == PhotonError.Code.allCases.count)
    }

    @Test func wrapKeepsPhotonErrorsAndNamesOthers() {
        let original = PhotonError(.timeout, "slow", hint: "wait")
        #expect(PhotonError.wrap(original) == original)
        #expect(PhotonError.wrap(CancellationError()).code == .cancelled)
        struct Odd: Error {}
        #expect(PhotonError.wrap(Odd()).code == .internal)
        #expect(PhotonError.timedOut("pairing", after: 2.5).message == "pairing timed out after 2.5 s")
    }
}

@Suite struct KeyTests {
    @Test func contractNamesParse() {
        let names =
            "up down left right select back home menu volume-up volume-down mute power play-pause play pause stop next previous rewind fast-forward channel-up channel-down 0 1 2 3 4 5 6 7 8 9 input settings guide info red green yellow blue search"
        for name in names.split(separator: " ") {
            #expect(RemoteKey(name: String(name)) != nil, "\(name)")
            #expect(RemoteKey(name: String(name))?.rawValue == String(name))
        }
    }

    @Test func spellingVariantsParse() {
        #expect(RemoteKey(name: "volume_up") == .volumeUp)
        #expect(RemoteKey(name: "volumeUp") == .volumeUp)
        #expect(RemoteKey(name: "VOLUME-UP") == .volumeUp)
        #expect(RemoteKey(name: "PlayPause") == .playPause)
        #expect(RemoteKey(name: "") == nil)
        #expect(RemoteKey(name: "volume--up") == nil)
        #expect(RemoteKey(name: "KEYCODE_HOME") == nil)
    }

    @Test func gestureForbiddenKeys() {
        #expect(RemoteKey.power.isPowerOrSettings)
        #expect(RemoteKey.settings.isPowerOrSettings)
        #expect(!RemoteKey.up.isPowerOrSettings)
    }

    @Test func commandsNameTheirCapability() {
        #expect(RemoteCommand.text("x").requiredCapability == .text)
        #expect(RemoteCommand.launch("netflix").requiredCapability == .appLaunch)
        #expect(RemoteCommand.longPress(.key(.home), milliseconds: 800).requiredCapability == .longPress)
        #expect(Capabilities(.keys, .text).contains(.text))
        #expect(!Capabilities.none.contains(.keys))
        #expect(Capabilities(.text, .keys).sortedNames == ["keys", "text"])
    }

    @Test func pairingCodesAreValidated() throws {
        #expect(try CodeAlphabet.hexadecimal.validate(" 3fa9c1\n", length: 6) == "3FA9C1")
        #expect(throws: PhotonError.self) { try CodeAlphabet.hexadecimal.validate("3FA9C", length: 6) }
        #expect(throws: PhotonError.self) { try CodeAlphabet.hexadecimal.validate("3FA9CG", length: 6) }
        #expect(throws: PhotonError.self) { try CodeAlphabet.decimal.validate("12A4", length: 4) }
        #expect(try CodeAlphabet.decimal.validate("1234", length: 4) == "1234")
    }
}

@Suite struct FingerprintTests {
    let hex = "ab:cd:ef:01:23:45:67:89:AB:CD:EF:01:23:45:67:89:ab:cd:ef:01:23:45:67:89:ab:cd:ef:01:23:45:67:89"

    @Test func parsesWithAndWithoutColons() throws {
        let a = try CertificateFingerprint(hex: hex)
        let b = try CertificateFingerprint(hex: hex.replacingOccurrences(of: ":", with: ""))
        #expect(a == b)
        #expect(a.description.hasPrefix("AB:CD:EF:01"))
        #expect(a.compactHex.count == 64)
        #expect(a.redacted == "abcdef01[REDACTED]")
    }

    @Test func refusesWrongLengthsAndLetters() {
        #expect(throws: PhotonError.self) { try CertificateFingerprint(hex: "abcd") }
        #expect(throws: PhotonError.self) { try CertificateFingerprint(hex: String(repeating: "g", count: 64)) }
        #expect(throws: PhotonError.self) { try CertificateFingerprint(bytes: [1, 2, 3]) }
    }
}

@Suite struct RedactionTests {
    @Test func tokensInURLsAndJSONAreRedacted() {
        let line =
            #"wss://10.0.0.2:8002/api/v2/channels/samsung.remote.control?name=UGhvdG9u&token=98765432 {"token": "98765432", "data":{"key":"abc"}}"#
        let redacted = Redaction.redact(line)
        #expect(!redacted.contains("98765432"))
        #expect(!redacted.contains("\"abc\""))
        #expect(redacted.contains("name=UGhvdG9u"))
        #expect(redacted.contains("token=[REDACTED]"))
        #expect(Redaction.redact("no secrets here") == "no secrets here")
        // Round 4, L8: the web door's cookie, Bearer headers, numeric PINs, pairing codes,
        // and a token after a parenthesis; error codes stay readable.
        let more = #"Cookie: a=1; photon_token=SECRET1 Authorization: Bearer SECRET2 {"pin":4826,"code":"C2AC4F"} (token=SECRET3) code=483920"#
        let masked = Redaction.redact(more)
        for secret in ["SECRET1", "SECRET2", "4826", "C2AC4F", "SECRET3", "483920"] { #expect(!masked.contains(secret), "\(secret) in \(masked)") }
        #expect(Redaction.redact(#"{"code":"usage","message":"bad"}"#) == #"{"code":"usage","message":"bad"}"#)
        // "monkey=1" is not the "key" parameter.
        #expect(Redaction.redact("?monkey=1").contains("monkey=1"))
    }

    @Test func networkTextIsSanitized() {
        #expect(Redaction.sanitize("Living\u{1B}[31mRoom\u{07}") == "Living?[31mRoom?")
        #expect(Redaction.sanitize("TV\u{202E}evil") == "TV?evil")
        #expect(Redaction.sanitize("Wohnzimmer Fernseher ✓") == "Wohnzimmer Fernseher ✓")
        #expect(Redaction.sanitize(String(repeating: "x", count: 1000), limit: 10).count == 11)
    }

    @Test func diagnosticMasking() {
        let masked = Redaction.maskAddresses("tv at 192.168.1.44 mac AA:BB:CC:DD:EE:FF")
        #expect(masked == "tv at 192.168.1.*** mac AA:BB:CC:**:**:**")
    }
}

/// The adapter descriptor states each fact once: voice from the format, waking from the
/// capability, every port from the main one and the others; option values are checked
/// against their declared types.
@Suite struct AdapterDescriptorTests {
    func descriptor(voice: VoiceFormat?, capabilities: Capabilities) -> AdapterDescriptor {
        AdapterDescriptor(
            id: "acme", displayName: "Acme", ports: .init(main: "remote", 6466, others: ["pairing": 6467]),
            pairing: .init(style: .codeOnTV, options: [AdapterOption("pairing-port", .port(named: "pairing"), help: "")]),
            capabilities: capabilities, keyTable: [])
    }

    @Test func voiceFollowsTheFormatAndWakingTheCapability() {
        let withVoice = AdapterDescriptor(
            id: "acme", displayName: "Acme", ports: .init(main: "remote", 1), pairing: .init(style: .none),
            capabilities: Capabilities(.keys, .wakeOnLAN), keyTable: [], voiceFormat: VoiceFormat(sampleRate: 8000))
        #expect(withVoice.capabilities.contains(.voice))
        #expect(withVoice.wakeMethod == .wakeOnLAN)
        // Declaring voice without a format cannot promise it.
        let without = descriptor(voice: nil, capabilities: Capabilities(.keys, .voice))
        #expect(!without.capabilities.contains(.voice))
        #expect(without.wakeMethod == WakeMethod.none)
    }

    @Test func portsNameTheMainOneAndTheOthers() {
        let ports = descriptor(voice: nil, capabilities: .none).ports
        #expect(ports.mainName == "remote" && ports.main == 6466)
        #expect(ports.all == ["remote": 6466, "pairing": 6467])
    }

    @Test func optionValuesAreTypedBeforeAnAdapterSeesThem() throws {
        let options = descriptor(voice: nil, capabilities: .none).pairing.options
        let values = try AdapterOptionValues(parsing: ["pairing-port": "7467", "unrelated": "x"], for: options)
        #expect(values.ports == ["pairing": 7467])
        #expect(values.texts.isEmpty)
        for bad in ["0", "65536", "port", "-1", ""] {
            #expect(throws: PhotonError.self) { try AdapterOptionValues(parsing: ["pairing-port": bad], for: options) }
        }
    }
}
