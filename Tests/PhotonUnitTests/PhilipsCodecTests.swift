import PhotonCore
import Testing

@testable import Philips

/// What the Philips adapter reads and writes, byte by byte and with malformed input: the
/// encrypted `system` fields (ha-philipsjs's published test values), the pairing signature,
/// HTTP Digest (RFC 2617's example) and its challenge, broken JSON as TVs send it, answers
/// and key names.
@Suite struct PhilipsCodecTests {
    @Test func encryptedSystemFieldsDecryptWithTheSharedKey() throws {
        #expect(try PhilipsSharedKey.decrypt("bf1BcncGiQyBVS47ZXFWjNXoynlKUNlqDhxQz5ikPEU=\n") == "ABCDEFGHIJKLF")
        #expect(try PhilipsSharedKey.decrypt("3Cdh9HfKdQZb0UJPzeXau15tgTFcLdYcPGb0NqOreDg=\n") == "65OLED855/12")
        #expect(try PhilipsSharedKey.decrypt(try PhilipsSharedKey.encrypt("a serial")) == "a serial")
        for bad in ["", "not base64 !", "AAAA", String(repeating: "A", count: 44), String(repeating: "QUFB", count: 400)] {
            #expect(throws: PhotonError.self) { _ = try PhilipsSharedKey.decrypt(bad) }
        }
    }

    @Test func thePINIsSignedAsHaPhilipsjsSignsIt() {
        // haphilipsjs.hmac_signature(AUTH_SHARED_KEY, "1128", "4826")
        #expect(PhilipsSharedKey.signature(timestamp: "1128", pin: "4826") == "/w6bIBCqc/CT8IytY3vanCEZjhU=")
    }

    @Test func digestAnswersRFC2617sExample() throws {
        let challenge = try DigestChallenge.parse(
            #"Digest realm="testrealm@host.com", qop="auth,auth-int", nonce="dcd98b7102dd2f0e8b11d0f600bfb0c093", opaque="5ccc069c403ebaf9f0171e9517f40e41""#
        )
        #expect(challenge.realm == "testrealm@host.com" && challenge.offersAuthQOP && challenge.algorithm == "MD5")
        let header = challenge.authorization(
            user: "Mufasa", password: "Circle Of Life", method: "GET", uri: "/dir/index.html", count: 1, clientNonce: "0a4f113b")
        #expect(header.contains(#"response="6629fae49393a05397450978507c4ef1""#), "\(header)")
        #expect(header.contains("nc=00000001") && header.contains(#"opaque="5ccc069c403ebaf9f0171e9517f40e41""#))
        // Without qop, the RFC 2069 form.
        let old = DigestChallenge(realm: "r", nonce: "n", offersAuthQOP: false)
        #expect(!old.authorization(user: "u", password: "p", method: "GET", uri: "/", count: 1, clientNonce: "c").contains("qop"))
        #expect(try DigestChallenge.parse(#"Digest realm="XTV", nonce="abc", algorithm=SHA-256, qop="auth""#).algorithm == "SHA-256")
    }

    @Test func aBadChallengeIsRefused() {
        for bad in [
            "Basic realm=\"x\"", "Digest realm=\"x\"", "Digest nonce=\"abc", "Digest realm=\"x\", nonce=\"n\", algorithm=SHA-999",
            "Digest realm=\"x\", nonce=\"n\", qop=\"auth-int\"", "Digest realm=\"x\" nonce", "Digest realm=\"a\\\"b\", nonce=\"n\"",
            "Digest " + String(repeating: "a=b,", count: 20), "Digest realm=\"\u{7}\", nonce=\"n\"", String(repeating: "x", count: 3000),
        ] {
            #expect(throws: PhotonError.self, "\(bad)") { _ = try DigestChallenge.parse(bad) }
        }
    }

    @Test func brokenJSONIsRepairedAsTVsSendItAndGarbageRefused() throws {
        #expect(try PhilipsJSON.parse(Array(#"{"a": 1,}"#.utf8), what: "x")["a"]?.intValue == 1)
        #expect(try PhilipsJSON.parse(Array(#"{, "a": [1,,2]}"#.utf8), what: "x")["a"]?.arrayValue?.count == 2)
        #expect(try PhilipsJSON.parse(Array("Ok".utf8), what: "x") == .object([]))
        #expect(try PhilipsJSON.parse([], what: "x") == .object([]))
        #expect(throws: PhotonError.self) { _ = try PhilipsJSON.parse(Array("{\"a\": [".utf8), what: "x") }
    }

    @Test func systemAnswersSayWhoTheTVIsAndWhetherItPairs() throws {
        let android = try JSONValue.parse(
            #"{"name":"65OLED855/12","api_version":{"Major":6},"notifyChange":"http","serialnumber_encrypted":"bf1BcncGiQyBVS47ZXFWjNXoynlKUNlqDhxQz5ikPEU=\n","featuring":{"jsonfeatures":{"activities":["intent"]},"systemfeatures":{"pairing_type":"digest_auth_pairing","secured_transport":"true"}},"os_type":"MSAF_2019_P"}"#
        )
        let system = try PhilipsSystem.parse(android)
        #expect(system.serial == "ABCDEFGHIJKLF" && system.apiMajor == 6 && system.securedTransport && system.notifyChange)
        #expect(system.supports("activities", "intent") && system.osType == "MSAF_2019_P")
        try system.checkPairable()
        let saphi = try PhilipsSystem.parse(try JSONValue.parse(#"{"featuring":{"systemfeatures":{"pairing_type":"none","os_type":"Linux"}}}"#))
        let refused = #expect(throws: PhotonError.self) { try saphi.checkPairable() }
        #expect(refused?.code == .unsupported && refused?.message.contains("Android") == true)
        #expect(throws: PhotonError.self) { _ = try PhilipsSystem.parse(.array([])) }
        // A serial that is not an identifier is dropped, not trusted.
        #expect(try PhilipsSystem.parse(try JSONValue.parse(#"{"serialnumber":"a/b\n"}"#)).serial == nil)
    }

    @Test func answersAreReadAndCheckedBeforeUse() throws {
        #expect(try PhilipsReadings.power(try JSONValue.parse(#"{"powerstate":"On"}"#)) == .on)
        #expect(try PhilipsReadings.power(try JSONValue.parse(#"{"powerstate":"StandbyKeep"}"#)) == .standby)
        #expect(throws: PhotonError.self) { _ = try PhilipsReadings.power(.object([])) }
        let volume = try PhilipsReadings.volume(try JSONValue.parse(#"{"muted":true,"current":18,"min":0,"max":60}"#))
        #expect(volume == VolumeState(level: 18, maximum: 60, muted: true))
        for bad in [#"{"current":99,"max":60}"#, #"{"current":-1,"max":60}"#, #"{"current":1,"max":0}"#, #"{}"#] {
            #expect(throws: PhotonError.self) { _ = try PhilipsReadings.volume(try JSONValue.parse(bad)) }
        }
        let apps = PhilipsReadings.applications(
            try JSONValue.parse(
                #"{"applications":[{"id":"A-com.x","label":"X","intent":{"component":{"packageName":"com.x","className":"A"}}},{"id":"B","intent":{}},{"label":"no id"}]}"#
            ))
        #expect(apps.map(\.package) == ["com.x"] && apps.first?.label == "X")
        let channels = PhilipsReadings.channels(
            try JSONValue.parse(#"{"Channel":[{"ccid":1648,"preset":"1","name":"One"},{"ccid":"x"},{"ccid":2,"preset":3}]}"#))
        #expect(channels.map(\.number) == ["1", "3"] && channels.first?.id == "1648")
        #expect(PhilipsReadings.currentPackage(try JSONValue.parse(#"{"component":{"packageName":"com.netflix.ninja"}}"#)) == "com.netflix.ninja")
        #expect(PhilipsReadings.currentPackage(try JSONValue.parse(#"{"component":{"packageName":"bad\"name"}}"#)) == nil)
    }

    @Test func keysAreJointSpaceNamesAndRawNamesAreChecked() throws {
        #expect(try PhilipsKeys.name(for: .key(.up)) == "CursorUp")
        #expect(try PhilipsKeys.name(for: .key(.digit7)) == "Digit7")
        #expect(try PhilipsKeys.name(for: .raw("Online")) == "Online")
        for bad in ["", "Cursor Up", "a\"b", String(repeating: "a", count: 40)] {
            #expect(throws: PhotonError.self) { _ = try PhilipsKeys.name(for: .raw(bad)) }
        }
        #expect(PhilipsSources.inputs.map(\.standard) == [.tuner, .hdmi(1), .hdmi(2), .hdmi(3), .hdmi(4)])
        #expect(PhilipsSources.inputs[2].id.hasSuffix("HDMIInputService%2FHW6"))
    }
}
