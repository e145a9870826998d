import PhotonCore
import Testing

@testable import LGWebOS

/// The SSAP codec byte by byte, and with what a hostile or broken TV can send.
@Suite struct LGMessageTests {
    /// Round 4, M4: a TV paired by its UUID must report that UUID before the client key
    /// leaves; a hello without one (or with one that gives no id) fails closed.
    @Test func aHelloWithoutThePairedUUIDGetsNoClientKey() throws {
        let byUUID = DeviceRecord(
            id: "lg-1f2e3d4c5b6a", nickname: "den", brand: "lg", host: "127.0.0.1", port: 3001, mac: "02:00:00:4C:47:01")
        func hello(_ json: String) throws -> LGHello { LGHello(payload: try JSONValue.parse(json)) }
        #expect(throws: Never.self) {
            try LGWebOSAdapter.requireIdentity(of: try hello(#"{"deviceUUID":"6c3f2a1e-9b7d-4e15-a0c4-1f2e3d4c5b6a"}"#), is: byUUID)
        }
        for bad in [#"{}"#, #"{"deviceUUID":"zz"}"#, #"{"deviceUUID":""}"#, #"{"deviceUUID":"6c3f2a1e-9b7d-4e15-a0c4-aaaaaaaaaaaa"}"#] {
            do {
                try LGWebOSAdapter.requireIdentity(of: try hello(bad), is: byUUID)
                Issue.record("\(bad) would get the client key")
            } catch let error as PhotonError {
                #expect(error.code == .pinMismatch, "\(bad): \(error)")
            }
        }
        // Paired by its MAC (its hello had no UUID then): nothing to compare.
        let byMAC = DeviceRecord(id: "lg-0200004c4701", nickname: "old", brand: "lg", host: "127.0.0.1", port: 3000, mac: "02:00:00:4C:47:01")
        #expect(throws: Never.self) { try LGWebOSAdapter.requireIdentity(of: try hello("{}"), is: byMAC) }
        #expect(!LGWebOSAdapter.pairedByUUID(byMAC) && LGWebOSAdapter.pairedByUUID(byUUID))
        let byAddress = DeviceRecord(id: "lg-192-168-1-20", nickname: "x", brand: "lg", host: "192.168.1.20", port: 3000)
        #expect(!LGWebOSAdapter.pairedByUUID(byAddress))
    }

    @Test func soundOutputsMapBothWaysAndHostileOnesAreDropped() throws {
        #expect(LGSoundOutputs.id(for: "arc") == "external_arc")
        #expect(LGSoundOutputs.id(for: "Speaker") == "tv_speaker")
        #expect(LGSoundOutputs.id(for: "tv_external_speaker") == "tv_external_speaker")
        #expect(LGSoundOutputs.standardName(ofID: "bt_soundbar") == "bluetooth")
        #expect(LGSoundOutputs.standardName(ofID: "some_new_output") == "some_new_output")
        #expect(LGSoundOutputs.current(try JSONValue.parse(#"{"returnValue":true,"soundOutput":"external_optical"}"#)) == "external_optical")
        #expect(LGSoundOutputs.current(try JSONValue.parse(#"{"volumeStatus":{"soundOutput":"headphone"}}"#)) == "headphone")
        // Old firmware answers an empty output; a hostile one sends control characters or a
        // number: nothing is reported.
        for bad in [#"{"soundOutput":""}"#, #"{"soundOutput":"a\u001b[2J"}"#, #"{"soundOutput":7}"#, "{}"] {
            #expect(LGSoundOutputs.current(try JSONValue.parse(bad)) == nil, "\(bad)")
        }
        // Every standard name of the catalog has an LG id.
        for name in SoundOutputName.standardNames { #expect(LGSoundOutputs.known.contains { $0.standard == name }, "\(name)") }
    }

    @Test func helloIsExactlyWhatFirmwareExpects() {
        // The empty payload is required: firmware 33.20+ ignores a hello without it.
        #expect(SSAPRequest.hello == #"{"id":"hello","type":"hello","payload":{}}"#)
    }

    @Test func requestsCarryIdTypeUriAndPayload() {
        #expect(
            SSAPRequest.message(id: 7, uri: "audio/setVolume", payload: .object([("volume", 12)]))
                == #"{"id":7,"type":"request","uri":"ssap://audio/setVolume","payload":{"volume":12}}"#)
        #expect(
            SSAPRequest.message(id: 8, type: "subscribe", uri: "audio/getVolume")
                == #"{"id":8,"type":"subscribe","uri":"ssap://audio/getVolume","payload":{}}"#)
    }

    @Test func registerIsUnsignedWithTheKeyOnlyWhenStored() throws {
        let fresh = try JSONValue.parse(SSAPRequest.register(id: "register_0", clientKey: nil))
        #expect(fresh["type"]?.stringValue == "register")
        #expect(fresh["payload"]?["pairingType"]?.stringValue == "PROMPT")
        #expect(fresh["payload"]?["client-key"] == .null)
        let manifest = try #require(fresh["payload"]?["manifest"])
        // Nothing for 2026 firmware to blacklist.
        #expect(manifest["signed"] == nil && manifest["signatures"] == nil)
        let permissions = Set((manifest["permissions"]?.arrayValue ?? []).compactMap(\.stringValue))
        // The pointer socket is refused without these two in the unsigned list.
        #expect(permissions.isSuperset(of: ["CONTROL_INPUT_TEXT", "CONTROL_MOUSE_AND_KEYBOARD", "CONTROL_POWER", "LAUNCH"]))
        let stored = try JSONValue.parse(SSAPRequest.register(id: "register_0", clientKey: "0123abcd"))
        #expect(stored["payload"]?["client-key"]?.stringValue == "0123abcd")
    }

    @Test func repliesParseWithNumericOrTextIds() throws {
        let reply = try #require(try SSAPMessage.parse(#"{"type":"response","id":7,"payload":{"returnValue":true,"volume":12}}"#))
        #expect(reply.kind == .response && reply.id == "7" && reply.failure == nil)
        let text = try #require(try SSAPMessage.parse(#"{"type":"registered","id":"register_0","payload":{"client-key":"k"}}"#))
        #expect(text.id == "register_0" && text.kind == .registered)
        let hello = try #require(try SSAPMessage.parse(#"{"type":"hello","payload":{"deviceUUID":"u"}}"#))
        #expect(hello.id == nil && hello.kind == .hello)
    }

    @Test func failuresAreErrorFramesOrAFalseReturnValue() throws {
        let error = try #require(try SSAPMessage.parse(#"{"type":"error","id":9,"error":"404 no such service or method","payload":{}}"#))
        #expect(error.failure == "404 no such service or method")
        let refused = try #require(try SSAPMessage.parse(#"{"type":"response","id":1,"payload":{"returnValue":false,"errorText":"no such app"}}"#))
        #expect(refused.failure == "no such app")
        #expect(LGErrors.request("x", failed: "401 insufficient permissions").code == .unsupported)
        #expect(LGErrors.request("x", failed: "404 no such service or method").code == .unsupported)
        #expect(LGErrors.request("x", failed: "500 Application error").code == .protocolViolation)
    }

    @Test func typesOffTheAllowlistAreDroppedAndMalformedFramesRefused() throws {
        #expect(try SSAPMessage.parse(#"{"type":"p2p","payload":{}}"#) == nil)
        for bad in ["{not json", "[1,2]", #"{"id":1}"#, #"{"type":"response","id":[1]}"#, #"{"type":"response","id":1,"payload":[]}"#, ""] {
            #expect(throws: PhotonError.self, "\(bad)") { _ = try SSAPMessage.parse(bad) }
        }
        // Deep nesting is refused, not recursed into.
        let deep = String(repeating: "[", count: 200) + String(repeating: "]", count: 200)
        #expect(throws: PhotonError.self) { _ = try SSAPMessage.parse(#"{"type":"response","payload":{"a":"# + deep + "}}") }
    }

    @Test func registrationErrorsMeanWhatTheyShould() {
        #expect(LGHandshake.refusal("403 cancelled", stored: false).exitCode == 4)
        #expect(LGHandshake.refusal("403 cancelled", stored: true).code == .authenticationRefused)
        let blacklisted = LGHandshake.refusal("403 Pairing rejected: blacklisted certificate detected", stored: false)
        #expect(blacklisted.code == .pairingRefused && blacklisted.message.contains("blacklisted"))
        #expect(LGHandshake.isPlausibleKey("0123456789abcdef0123456789abcdef"))
        #expect(
            !LGHandshake.isPlausibleKey("") && !LGHandshake.isPlausibleKey("a\"b") && !LGHandshake.isPlausibleKey(String(repeating: "a", count: 200)))
    }

    @Test func volumeInBothShapes() {
        let current = JSONValue.object([("volumeStatus", .object([("volume", 12), ("muteStatus", true), ("maxVolume", 100)]))])
        #expect(LGState.volume(current) == VolumeState(level: 12, maximum: 100, muted: true))
        let legacy = JSONValue.object([("volume", 7), ("muted", false)])
        #expect(LGState.volume(legacy) == VolumeState(level: 7, maximum: 100, muted: false))
        // An external audio device reports -1: no level.
        #expect(LGState.volume(.object([("volumeStatus", .object([("volume", -1)]))])) == nil)
        #expect(LGState.volume(.object([("volume", "loud")])) == nil)
    }

    @Test func powerStatesFollowTheTable() {
        for (state, on) in [
            ("Active", true), ("Screen Off", true), ("Screen Saver", true), ("Active Standby", false), ("Suspend", false), ("Power Off", false),
        ] {
            #expect(LGState.isOn(.object([("state", .string(state))])) == on, "\(state)")
        }
        #expect(LGState.isOn(.object([])) == nil)
    }

    @Test func launchPointsAsAListOrAChange() {
        let list = JSONValue.object([("launchPoints", .array([.object([("id", "netflix"), ("title", "Netflix")]), .object([("title", "no id")])]))])
        #expect(LGState.launchPoints(list) == .list([TVApp(id: "netflix", name: "Netflix")]))
        #expect(LGState.launchPoints(.object([("change", "removed"), ("id", "netflix")])) == .removed("netflix"))
        #expect(LGState.launchPoints(.object([("change", "added"), ("id", "a"), ("title", "A")])) == .added(TVApp(id: "a", name: "A")))
    }

    @Test func macsAreCheckedAndPlaceholdersDropped() {
        let info = JSONValue.object([
            ("wiredInfo", .object([("macAddress", "a8:23:fe:01:02:03")])), ("wifiInfo", .object([("macAddress", "00:00:00:00:00:00")])),
        ])
        #expect(LGState.macs(info) == ["A8:23:FE:01:02:03"])
        #expect(LGState.macs(.object([("wiredInfo", .object([("macAddress", "not a mac")]))])).isEmpty)
    }

    @Test func thePointerSocketKeepsOnlyItsSchemePortAndPath() throws {
        let socket = try LGState.pointerSocket(.object([("socketPath", "wss://192.168.1.9:3001/resources/abc123/netinput.pointer.sock")]))
        #expect(socket.secure && socket.port == 3001 && socket.path == "/resources/abc123/netinput.pointer.sock")
        let old = try LGState.pointerSocket(.object([("socketPath", "ws://tv/resources/x/netinput.pointer.sock")]))
        #expect(!old.secure && old.port == nil)
        for bad in ["http://tv/x", "wss://tv", "wss://tv:0/x", "wss://tv:99999/x", "wss://tv/a b", "wss://tv/a\r\nHost: evil"] {
            #expect(throws: PhotonError.self, "\(bad)") { _ = try LGState.pointerSocket(.object([("socketPath", .string(bad))])) }
        }
        #expect(throws: PhotonError.self) { _ = try LGState.pointerSocket(.object([])) }
    }

    @Test func pointerFramesCannotBeInjected() throws {
        #expect(try LGPointer.button("HOME") == "type:button\nname:HOME\n\n")
        #expect(try LGPointer.button("3D_MODE") == "type:button\nname:3D_MODE\n\n")
        for bad in ["HOME\ntype:move", "home", "", "A B", String(repeating: "A", count: 40)] {
            #expect(throws: PhotonError.self, "\(bad)") { _ = try LGPointer.button(bad) }
        }
        #expect(LGPointer.parse("type:button\nname:UP\n\n") == ["type": "button", "name": "UP"])
        #expect(LGPointer.parse("type:button\nname:UP\n") == nil)
        #expect(LGPointer.parse("garbage\n\n") == nil)
    }

    @Test func keysMapToButtonsAndServiceMenusAreRefused() throws {
        #expect(try LGKeys.button(for: .key(.select)) == "ENTER")
        #expect(try LGKeys.button(for: .key(.settings)) == "QMENU")
        #expect(try LGKeys.button(for: .raw("netflix")) == "NETFLIX")
        #expect(throws: PhotonError.self) { _ = try LGKeys.button(for: .raw("IN_START")) }
        #expect(throws: PhotonError.self) { _ = try LGKeys.button(for: .raw("HOME\n")) }
        #expect((try? LGKeys.button(for: .key(.next))) == nil)
    }

    @Test func helloFieldsAreSanitised() {
        let hello = LGHello(
            payload: .object([
                ("deviceUUID", "abc\u{1B}[31m"), ("deviceOSReleaseVersion", "23.20.56"), ("pairingTypes", .array(["PIN", "PROMPT"])),
            ]))
        #expect(hello.deviceUUID?.contains("\u{1B}") == false)
        #expect(hello.osRelease == "23.20.56" && hello.pairingTypes == ["PIN", "PROMPT"])
        #expect(LGWebOSAdapter.deviceID(uuid: "6c3f2a1e-9b7d-4e15-a0c4-1f2e3d4c5b6a") == "lg-1f2e3d4c5b6a")
        #expect(LGWebOSAdapter.deviceID(uuid: "zz") == nil)
    }

    /// `tv/getExternalInputList` as firmware sends it, and what a broken TV may send.
    @Test func inputListWithLabelsAndTheActiveOne() throws {
        let payload = try JSONValue.parse(
            #"""
            {"returnValue":true,"devices":[
             {"id":"HDMI_1","label":"HDMI 1","port":1,"appId":"com.webos.app.hdmi1","connected":false,"favorite":false},
             {"id":"HDMI_2","label":"PlayStation","port":2,"appId":"com.webos.app.hdmi2","connected":true},
             {"id":"AV_1","label":"","appId":"com.webos.app.externalinput.av1"},
             {"id":"COMP_1","label":"Comp"},{"label":"no id"},{"id":"","label":"empty"},{"id":7}]}
            """#)
        let inputs = try LGInputList.parse(payload, foregroundApp: "com.webos.app.hdmi2")
        #expect(inputs.map(\.id) == ["HDMI_1", "HDMI_2", "AV_1", "COMP_1"])
        #expect(inputs.map(\.standard) == [.hdmi(1), .hdmi(2), .composite, .component])
        #expect(inputs.map(\.active) == [false, true, false, false])
        #expect(inputs[2].label == "AV_1", "an empty label shows the id")
        #expect(try LGInputList.parse(payload, foregroundApp: nil).allSatisfy { $0.active == nil })
        #expect(LGInputList.standardInput("HDMI_5") == nil && LGInputList.standardInput("hdmi_3") == .hdmi(3))
        for bad in [#"{}"#, #"{"devices":{}}"#, #"{"devices":"HDMI_1"}"#] {
            #expect(throws: PhotonError.self) { try LGInputList.parse(try JSONValue.parse(bad), foregroundApp: nil) }
        }
        let hostile = try JSONValue.parse(#"{"devices":[{"id":"HDMI_1","label":"evil\u202e\u001b[2J"}]}"#)
        let label = try LGInputList.parse(hostile, foregroundApp: nil).first?.label ?? ""
        #expect(!label.contains("\u{202E}") && !label.contains("\u{1B}"))
    }

    /// `tv/getChannelList` as aiowebostv sees it, and broken entries left out.
    @Test func channelListWithBrokenEntries() throws {
        let payload = try JSONValue.parse(
            #"""
            {"returnValue":true,"channelListCount":5,"channelList":[
             {"channelId":"1_7_1_0_1","channelNumber":"7-1","channelName":"News"},
             {"channelId":"1_9_0_0_2","channelNumber":"9","channelName":"Sports\u001b[2J"},
             {"channelNumber":"10"},{"channelId":"x"},{"channelId":"","channelNumber":"3"}]}
            """#)
        let channels = try LGChannelList.parse(payload)
        #expect(channels.map(\.id) == ["1_7_1_0_1", "1_9_0_0_2"])
        #expect(channels.map(\.number) == ["7-1", "9"])
        #expect(!channels[1].name.contains("\u{1B}"))
        for bad in [#"{}"#, #"{"channelList":{}}"#] {
            #expect(throws: PhotonError.self) { try LGChannelList.parse(try JSONValue.parse(bad)) }
        }
    }

    /// Power states as firmware reports them (HA #70079's shape), a switch-off in progress
    /// included: a TV still Active but processing "Request Active Standby" is not on.
    @Test func powerStatesAndASwitchOffInProgress() throws {
        func state(_ json: String) throws -> (PowerState, String?)? {
            LGState.powerState(try JSONValue.parse(json)).map { ($0.state, $0.reason) }
        }
        #expect(try state(#"{"state":"Active"}"#)! == (.on, nil))
        #expect(try state(#"{"state":"Screen Saver"}"#)! == (.on, "Screen Saver"))
        #expect(try state(#"{"state":"Screen Off"}"#)! == (.screenOff, "Screen Off"))
        #expect(try state(#"{"state":"Active Standby"}"#)! == (.standby, "Active Standby"))
        #expect(try state(#"{"state":"Suspend"}"#)! == (.off, "Suspend"))
        #expect(try state(#"{"state":"Power Off"}"#)! == (.off, "Power Off"))
        let going = #"{"returnValue":true,"state":"Active","processing":"Request Active Standby","onOff":"off","reason":"remoteKey"}"#
        #expect(try state(going)! == (.standby, "Request Active Standby"))
        #expect(LGState.isOn(try JSONValue.parse(going)) == false)
        #expect(try state(#"{"state":"Active","processing":"Request Power Off"}"#)! == (.off, "Request Power Off"))
        #expect(LGState.isOn(try JSONValue.parse(#"{"state":"Screen Off"}"#)) == true)
        #expect(try state(#"{"returnValue":true}"#) == nil)
    }
}
