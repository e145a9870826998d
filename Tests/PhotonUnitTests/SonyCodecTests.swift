import PhotonCore
import Testing

@testable import Sony

/// What the Sony adapter writes and reads, byte by byte and with malformed input: the
/// JSON-RPC answer, the readings made of it, the IRCC envelope, the Basic credential and
/// the auth cookie.
@Suite struct SonyCodecTests {
    func result(_ text: String) throws -> [JSONValue] {
        guard case .result(let result) = try SonyAnswer.parse(Array(text.utf8), what: "test") else { throw PhotonError(.internal, "not a result") }
        return result
    }

    @Test func answersAreAResultOrAnErrorAndNothingElse() throws {
        #expect(try result(#"{"result":[{"status":"active"}],"id":1}"#).count == 1)
        guard case .error(40005, "not power-on") = try SonyAnswer.parse(Array(#"{"error":[40005,"not power-on"],"id":1}"#.utf8), what: "t") else {
            Issue.record("the error was not read")
            return
        }
        for garbage in ["", "{", "[]", #"{"id":1}"#, #"{"error":["x"]}"#, #"{"result":{}}"#] {
            #expect(throws: PhotonError.self) { _ = try SonyAnswer.parse(Array(garbage.utf8), what: "t") }
        }
        #expect(SonyAPI.failure(code: 40005, message: "not power-on", what: "x").code == .unreachable)
        #expect(SonyAPI.failure(code: 12, message: "No Such Method", what: "x").code == .unsupported)
        #expect(SonyAPI.failure(code: 41400, message: "app", what: "x").code == .notFound)
    }

    @Test func systemInformationNeedsASerialOrAMAC() throws {
        let info = try SonySystemInformation.parse(
            try result(#"{"result":[{"model":"KD-55X85J","serial":"7000123","macAddr":"02:00:00:53:4F:4E","name":"BRAVIA"}]}"#))
        #expect(info.deviceID == "sony-7000123" && info.name == "Sony BRAVIA" && info.mac?.lowercased() == "02:00:00:53:4f:4e")
        let byMAC = try SonySystemInformation.parse(try result(#"{"result":[{"serial":"","macAddr":"02-00-00-53-4F-4E"}]}"#))
        #expect(byMAC.deviceID == "sony-020000534f4e")
        for bad in [#"{"result":[{}]}"#, #"{"result":[{"serial":"../x"}]}"#, #"{"result":["x"]}"#, #"{"result":[]}"#] {
            #expect(throws: PhotonError.self) { _ = try SonySystemInformation.parse(try result(bad)) }
        }
    }

    @Test func readingsKeepTheirBounds() throws {
        #expect(try SonyReadings.power(try result(#"{"result":[{"status":"standby"}]}"#)) == .standby)
        #expect(throws: PhotonError.self) { _ = try SonyReadings.power(try result(#"{"result":[{"status":"on"}]}"#)) }
        let volume = try SonyReadings.volume(
            try result(#"{"result":[[{"target":"headphone","volume":5},{"target":"speaker","volume":250,"mute":true,"maxVolume":100}]]}"#))
        #expect(volume == VolumeState(level: 100, maximum: 100, muted: true))
        #expect(throws: PhotonError.self) { _ = try SonyReadings.volume(try result(#"{"result":[[{"target":"speaker","volume":-1}]]}"#)) }
        let inputs = try SonyReadings.inputs(
            try result(
                #"{"result":[[{"uri":"extInput:hdmi?port=2","title":"HDMI 2","label":"PlayStation","status":"true"},{"uri":"bad\"uri"},{"uri":"extInput:hdmi?port=9","title":"HDMI 9"}]]}"#
            ))
        #expect(inputs.map(\.label) == ["PlayStation", "HDMI 9"])
        #expect(inputs[0].standard == .hdmi(2) && inputs[0].active == true && inputs[1].standard == nil)
        #expect(SonyReadings.standardInput("extInput:composite?port=1") == .composite)
        let sound = try SonyReadings.soundOutputs(
            try result(#"{"result":[[{"target":"outputTerminal","currentValue":"audioSystem","candidate":[{"value":"speaker"},{"value":"<x>"}]}]]}"#))
        #expect(sound.current == "audioSystem" && sound.candidates == ["speaker"])
        #expect(SonyReadings.standardSoundName("audioSystem") == "arc" && SonyReadings.soundValue(for: "ARC") == "audioSystem")
    }

    @Test func channelsAreNumberedAsTheTVShowsThem() throws {
        let channels = try SonyReadings.channels(
            try result(
                #"{"result":[[{"uri":"tv:dvbt?trip=1.2.3","dispNum":"007","title":"News"},{"uri":"tv:dvbt?x","dispNum":"7.1"},{"uri":"tv:x","dispNum":"abc"},{"dispNum":"9"},{"uri":"tv:y","dispNum":"000"}]]}"#
            ))
        #expect(channels.map(\.number) == ["7", "7.1"])
        #expect(channels[0] == TVChannel(id: "tv:dvbt?trip=1.2.3", number: "7", name: "News"))
        #expect(throws: PhotonError.self) { _ = try SonyReadings.channels(try result(#"{"result":[{}]}"#)) }
    }

    @Test func keyTablesTakeOnlyCodesThatCannotEscapeTheEnvelope() throws {
        let table = try SonyKeys.parseTable(
            try result(#"{"result":[{"bundled":true},[{"name":"Home","value":"AAAAAQAAAAEAAABgAw=="},{"name":"Evil","value":"</IRCCCode><x>"}]]}"#))
        #expect(table == ["Home": "AAAAAQAAAAEAAABgAw=="])
        #expect(throws: PhotonError.self) { _ = try SonyKeys.parseTable(try result(#"{"result":[{"bundled":true}]}"#)) }
        #expect(
            SonyKeys.envelope(code: "AAAAAQAAAAEAAABgAw==").contains(
                "<u:X_SendIRCC xmlns:u=\"urn:schemas-sony-com:service:IRCC:1\"><IRCCCode>AAAAAQAAAAEAAABgAw==</IRCCCode></u:X_SendIRCC>"))
        #expect(try SonyKeys.name(for: .key(.select)) == "Confirm")
        #expect(throws: PhotonError.self) { _ = try SonyKeys.name(for: .key(.playPause)) }
        #expect(throws: PhotonError.self) { _ = try SonyKeys.name(for: .raw("Home<")) }
    }

    @Test func basicCredentialsAndCookiesByteByByte() throws {
        #expect(Base64.encode(Array(":0000".utf8)) == "OjAwMDA=")
        #expect(Base64.encode(Array(":4826".utf8)) == "OjQ4MjY=")
        #expect(Base64.encode([]) == "" && Base64.encode([0xFF]) == "/w==" && Base64.encode([1, 2]) == "AQI=")
        func head(_ cookies: [String]) -> HTTPHead { HTTPHead(startLine: "HTTP/1.1 200 OK", headers: cookies.map { ("Set-Cookie", $0) }) }
        #expect(SonyRegistration.authCookie(head(["other=1", "auth=AbC123/+=; Path=/sony/; Max-Age=1209600; Expires=Sat, 19 Dec"])) == "AbC123/+=")
        #expect(SonyRegistration.authCookie(head(["auth=a b"])) == nil)
        #expect(SonyRegistration.authCookie(head(["auth=x\u{7F}"])) == nil)
        #expect(SonyRegistration.authCookie(head([])) == nil)
    }
}
