import PhotonCore
import Testing

@testable import Vizio

/// What the Vizio adapter reads and writes, byte by byte and with malformed input: answers
/// in either case with stray keys, statuses, items and their HASHVALs, inputs, the app in
/// front, app ids and key codes.
@Suite struct VizioCodecTests {
    func read(_ text: String) throws -> (JSONValue, VizioStatus) { try VizioStatus.read(Array(text.utf8), what: "test") }

    @Test func statusesAreReadInAnyCaseAndEachFailureMeansWhatItSays() throws {
        #expect(try read(#"{"STATUS":{"RESULT":"SUCCESS","DETAIL":"Success"}}"#).1.isSuccess)
        #expect(try read(#"{"status":{"result":"success"},"_url":"/x","item_name":"y"}"#).1.isSuccess)
        for garbage in ["", "{", "[]", #"{"STATUS":{}}"#, #"{"STATUS":{"RESULT":""}}"#, #"{"ITEMS":[]}"#] {
            #expect(throws: PhotonError.self) { _ = try read(garbage) }
        }
        func code(_ result: String) -> PhotonError.Code { VizioStatus(result: result, detail: nil).failure(what: "x").code }
        #expect(code("CHALLENGE_INCORRECT") == .pairingRefused && code("BLOCKED") == .pairingRefused)
        #expect(code("URI_NOT_FOUND") == .unsupported && code("INVALID_PARAMETER") == .usage)
        #expect(code("REQUIRES_PAIRING") == .authenticationRefused && code("ODD") == .protocolViolation)
        #expect(VizioStatus(result: "BLOCKED", detail: nil).failure(what: "x").hint?.contains("restart the TV") == true)
    }

    @Test func itemsKeepTheirHashvalAndNamesStayPrintable() throws {
        let (answer, _) = try read(
            #"{"STATUS":{"RESULT":"SUCCESS"},"ITEMS":[{"CNAME":"volume","VALUE":"33","HASHVAL":"1001"},{"cname":"picture_mode","value":"Game","hashval":7,"elements":["Game","Bad\"One"]},{"NAME":"no cname"}]}"#
        )
        let items = VizioItem.items(answer)
        #expect(items.map(\.cname) == ["volume", "picture_mode"])
        #expect(items[0].hashval == 1001 && VizioJSON.integer(items[0].value) == 33)
        #expect(items[1].elements == ["Game"])
        #expect(try VizioReadings.volume(answer, muted: true) == VolumeState(level: 33, maximum: 100, muted: true))
        #expect(throws: PhotonError.self) {
            _ = try VizioReadings.volume(try read(#"{"STATUS":{"RESULT":"SUCCESS"},"ITEMS":[{"CNAME":"volume","VALUE":300}]}"#).0, muted: false)
        }
        #expect(try VizioReadings.power(try read(#"{"STATUS":{"RESULT":"SUCCESS"},"ITEMS":[{"CNAME":"power_mode","VALUE":0}]}"#).0) == .standby)
    }

    @Test func inputsTheAppInFrontAndTheSerial() throws {
        let (inputs, _) = try read(
            #"{"STATUS":{"RESULT":"SUCCESS"},"ITEMS":[{"CNAME":"hdmi2","NAME":"HDMI-2","VALUE":{"NAME":"PlayStation"}},{"CNAME":"tv","NAME":"TV","VALUE":{"NAME":""}},{"CNAME":"current_input","NAME":"Current Input","VALUE":"HDMI-2"},{"CNAME":"x","NAME":"Bad\"Name"}]}"#
        )
        let list = VizioReadings.inputs(inputs, current: "hdmi-2")
        #expect(list.map(\.label) == ["PlayStation", "TV"])
        #expect(list[0].standard == .hdmi(2) && list[0].active == true && list[1].standard == .tuner && list[1].active == false)
        let (app, _) = try read(#"{"STATUS":{"RESULT":"SUCCESS"},"ITEM":{"VALUE":{"APP_ID":"1","NAME_SPACE":3,"MESSAGE":null}}}"#)
        #expect(VizioReadings.currentApp(app) == "3:1")
        #expect(VizioReadings.currentApp(try read(#"{"STATUS":{"RESULT":"SUCCESS"},"ITEM":{"VALUE":null}}"#).0) == nil)
        // Name spaces 2 and 4 are one: Disney+ (2:75 in the catalog) running as 4:75 is named.
        let disney = VizioSession.appName("4:75")
        #expect(disney.hasSuffix(" (4:75)") && disney != "4:75", "\(disney)")
        #expect(VizioSession.appName("9:99") == "9:99")
        func serial(_ value: String) throws -> String? {
            VizioReadings.serial(try read(#"{"STATUS":{"RESULT":"SUCCESS"},"ITEMS":[{"CNAME":"serial_number","VALUE":"\#(value)"}]}"#).0)
        }
        #expect(try serial("LWZ123") == "LWZ123")
        #expect(try serial("../x") == nil)
    }

    @Test func appsAndKeysAreWrittenAsVizioTakesThem() throws {
        let netflix = try VizioApp(parsing: "3:1")
        #expect(netflix.json.encoded == #"{"NAME_SPACE":3,"APP_ID":"1","MESSAGE":null}"#)
        let message = try VizioApp(parsing: "2:27:https://html5.example/?a=b:c")
        #expect(message.message == "https://html5.example/?a=b:c")
        for bad in ["netflix", "3", "x:1", "3:", "3:a/b", "300:1"] {
            #expect(throws: PhotonError.self) { _ = try VizioApp(parsing: bad) }
        }
        #expect(try VizioKeys.code(for: .key(.up)) == (3, 8))
        #expect(try VizioKeys.code(for: .key(.digit7)) == (0, 55))
        #expect(try VizioKeys.code(for: .raw("4:3")) == (4, 3))
        #expect(throws: PhotonError.self) { _ = try VizioKeys.code(for: .raw("4-3")) }
        #expect(throws: PhotonError.self) { _ = try VizioKeys.code(for: .key(.red)) }
    }
}
