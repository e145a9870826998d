import Foundation
import PhotonCore
import Testing

@testable import SamsungTV

/// Event and REST shapes recorded in the protocol notes (§2, §4).
@Suite struct SamsungCodecTests {
    @Test func connectEventReadsOnlyDataToken() throws {
        let connect =
            #"{"event": "ms.channel.connect", "data": {"id": "8281ee4c-adc5aa442274", "clients": [{"id": "8281ee4c-adc5aa442274", "connectTime": 1646846647436, "attributes": {"name": "U2Ftc3VuZ1R2UmVtb3Rl", "token": "87654321"}, "deviceName": "U2Ftc3VuZ1R2UmVtb3Rl", "isHost": false}], "token": "12345678"}}"#
        #expect(try SamsungEvent.parse(connect) == .connect(clientID: "8281ee4c-adc5aa442274", token: "12345678"))
        // The echoed attributes.token is never taken for a token.
        let echoOnly = #"{"event": "ms.channel.connect", "data": {"id": "x", "clients": [{"attributes": {"token": "87654321"}}]}}"#
        #expect(try SamsungEvent.parse(echoOnly) == .connect(clientID: "x", token: nil))
        // Some fixtures send the token as a number.
        #expect(try SamsungEvent.parse(#"{"event":"ms.channel.connect","data":{"token":14238018}}"#) == .connect(clientID: nil, token: "14238018"))
        // A token with odd characters is refused rather than stored.
        #expect(try SamsungEvent.parse(#"{"event":"ms.channel.connect","data":{"token":"12\n34"}}"#) == .connect(clientID: nil, token: nil))
    }

    @Test func lifecycleAndStatusEvents() throws {
        #expect(try SamsungEvent.parse(#"{"event": "ms.channel.unauthorized"}"#) == .unauthorized)
        #expect(try SamsungEvent.parse(#"{"event": "ms.channel.timeOut"}"#) == .timeout)
        #expect(try SamsungEvent.parse(#"{"event": "ms.channel.ready", "data": {}}"#) == .ready)
        #expect(
            try SamsungEvent.parse(#"{"event": "ms.error", "data": {"message": "unrecognized method value : ms.remote.control"}}"#)
                == .error(message: "unrecognized method value : ms.remote.control"))
        #expect(try SamsungEvent.parse(#"{"event": "ms.remote.imeStart", "data": "default"}"#) == .imeStart)
        #expect(try SamsungEvent.parse(#"{"event": "ms.remote.imeUpdate", "data": "aGVsbG8="}"#) == .imeUpdate(text: "hello"))
        #expect(try SamsungEvent.parse(#"{"event": "ed.apps.launch", "data": 200, "from": "host"}"#) == .appLaunched(status: 200))
        let apps =
            #"{"event": "ed.installedApp.get", "from": "host", "data": {"data": [{"appId": "111299001912", "app_type": 2, "icon": "/x.png", "is_lock": 0, "name": "YouTube"}]}}"#
        #expect(try SamsungEvent.parse(apps) == .installedApps([SamsungApp(id: "111299001912", name: "YouTube")]))
        // Unknown and noise events are named, not interpreted.
        #expect(
            try SamsungEvent.parse(#"{"event": "ed.edenTV.update", "data": {"update_type": "ed.edenApp.update"}}"#)
                == .ignored(name: "ed.edenTV.update"))
        #expect(try SamsungEvent.parse(#"{"event": "ms.remote.touchEnable"}"#) == .ignored(name: "ms.remote.touchEnable"))
        // Control characters from the TV are neutralised.
        #expect(try SamsungEvent.parse(#"{"event": "evil\u001b[2J"}"#) == .ignored(name: "evil?[2J"))
    }

    @Test func garbageAndOversizeAreErrors() {
        for bad in ["", "{not json", "[]", #"{"data": 1}"#, #"{"event": 5}"#, "null"] {
            #expect(throws: PhotonError.self, "\(bad)") { try SamsungEvent.parse(bad) }
        }
        let huge = #"{"event":"x","data":""# + String(repeating: "a", count: SamsungEvent.maximumSize) + "\"}"
        do {
            _ = try SamsungEvent.parse(huge)
            Issue.record("an oversize message was parsed")
        } catch let error as PhotonError {
            #expect(error.code == .messageTooLarge)
        } catch {}
    }

    @Test func outgoingMessagesMatchTheProtocol() throws {
        let key = try JSONSerialization.jsonObject(with: Data(SamsungCommand.key("KEY_VOLUP", .click).utf8)) as! [String: Any]
        #expect(key["method"] as? String == "ms.remote.control")
        let params = key["params"] as! [String: String]
        #expect(params == ["Cmd": "Click", "DataOfCmd": "KEY_VOLUP", "Option": "false", "TypeOfRemote": "SendRemoteKey"])
        // Byte for byte what a sorted-keys JSON encoder writes (checked against Foundation's).
        func sorted(_ object: [String: Any]) throws -> String {
            String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]), as: UTF8.self)
        }
        #expect(
            SamsungCommand.key("KEY_HOME", .press)
                == (try sorted([
                    "method": "ms.remote.control",
                    "params": ["Cmd": "Press", "DataOfCmd": "KEY_HOME", "Option": "false", "TypeOfRemote": "SendRemoteKey"],
                ])))
        #expect(
            SamsungCommand.text("the expanse")
                == (try sorted([
                    "method": "ms.remote.control",
                    "params": ["Cmd": "dGhlIGV4cGFuc2U=", "DataOfCmd": "base64", "TypeOfRemote": "SendInputString"],
                ])))
        #expect(
            SamsungCommand.launch("111299001912")
                == (try sorted([
                    "method": "ms.channel.emit",
                    "params": [
                        "event": "ed.apps.launch", "to": "host", "data": ["action_type": "DEEP_LINK", "appId": "111299001912", "metaTag": ""],
                    ],
                ])))
        #expect(
            SamsungCommand.installedApps == (try sorted(["method": "ms.channel.emit", "params": ["event": "ed.installedApp.get", "to": "host"]])))
        #expect(SamsungCommand.text("hi").contains(#""Cmd":"aGk=""#))
        #expect(SamsungCommand.textEnd == #"{"method":"ms.remote.control","params":{"TypeOfRemote":"SendInputEnd"}}"#)
        #expect(SamsungCommand.launch("3201907018807").contains(#""action_type":"DEEP_LINK""#))
        #expect(
            SamsungCommand.channelTarget(clientName: "HomeAssistant", token: nil)
                == "/api/v2/channels/samsung.remote.control?name=SG9tZUFzc2lzdGFudA%3D%3D")
        #expect(
            SamsungCommand.channelTarget(clientName: "SamsungTvRemote", token: "12345678")
                == "/api/v2/channels/samsung.remote.control?name=U2Ftc3VuZ1R2UmVtb3Rl&token=12345678")
    }

    @Test func deviceInfoFromRecordedShape() throws {
        let body =
            #"{"device": {"FrameTVSupport": "false", "OS": "Tizen", "PowerState": "on", "TokenAuthSupport": "true", "duid": "uuid:29b76356-aaaa", "modelName": "QN75Q900T", "name": "[TV] Samsung Q900 Series (75) &apos;Den&apos;", "networkType": "wireless", "wifiMac": "84:C0:EF:12:34:56"}, "isSupport": "{\"TokenAuthSupport\":\"true\",\"remote_available\":\"true\"}\n", "name": "x"}"#
        let info = try SamsungDeviceInfo.parse(Array(body.utf8))
        #expect(info.tokenAuthSupport)
        #expect(info.isOn == true)
        #expect(info.wifiMac == "84:C0:EF:12:34:56")
        #expect(info.name == "[TV] Samsung Q900 Series (75) 'Den'")
        #expect(info.id == "uuid:29b76356-aaaa")
        // Waking: MAC "none", PowerState empty → off; absent → unknown.
        let waking = try SamsungDeviceInfo.parse(Array(#"{"device": {"PowerState": "", "wifiMac": "none", "TokenAuthSupport": "false"}}"#.utf8))
        #expect(waking.wifiMac == nil && waking.isOn == false && !waking.tokenAuthSupport)
        let old = try SamsungDeviceInfo.parse(Array(#"{"device": {"name": "TV"}, "isSupport": "{\"TokenAuthSupport\":\"true\"}"}"#.utf8))
        #expect(old.powerState == nil && old.isOn == nil && old.tokenAuthSupport)
        #expect(throws: PhotonError.self) { try SamsungDeviceInfo.parse(Array("<html>".utf8)) }
    }

    @Test func keys() throws {
        #expect(try SamsungKeys.resolve(.key(.select)) == "KEY_ENTER")
        #expect(try SamsungKeys.resolve(.key(.back)) == "KEY_RETURN")
        #expect(try SamsungKeys.resolve(.raw("hdmi1")) == "KEY_HDMI1")
        #expect(try SamsungKeys.resolve(.raw("KEY_SOURCE")) == "KEY_SOURCE")
        #expect(throws: PhotonError.self) { try SamsungKeys.resolve(.raw("KEY_FACTORY")) }
        #expect(throws: PhotonError.self) { try SamsungKeys.resolve(.raw("KEY_AUTO_ARC_RESET")) }
        #expect(throws: PhotonError.self) { try SamsungKeys.resolve(.raw("KEY_\"}")) }
        #expect(throws: PhotonError.self) { try SamsungKeys.resolve(.raw("KEY_É")) }
        #expect(throws: PhotonError.self) { try SamsungKeys.resolve(.key(.powerOn)) }
    }
}
