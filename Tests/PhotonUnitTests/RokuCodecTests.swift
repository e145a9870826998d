import Foundation
import PhotonCore
import Testing

@testable import Roku

/// The XML reader and Roku's document shapes (from rokuecp's fixtures), malformed and
/// hostile input, and the text and launch encodings.
@Suite struct RokuCodecTests {
    static let deviceInfo = """
        <?xml version="1.0" encoding="UTF-8" ?>
        <device-info>
        \t<udn>015e5108-9000-1046-8035-b0a737964dfb</udn>
        \t<serial-number>1GU48T017973</serial-number>
        \t<vendor-name>TCL</vendor-name>
        \t<model-name>55R635</model-name>
        \t<friendly-device-name>58&quot; Onn Roku TV</friendly-device-name>
        \t<user-device-name></user-device-name>
        \t<is-tv>true</is-tv>
        \t<network-type>wifi</network-type>
        \t<wifi-mac>d8:13:99:f8:b0:c6</wifi-mac>
        \t<ethernet-mac>d4:3a:2e:07:fd:cb</ethernet-mac>
        \t<power-mode>PowerOn</power-mode>
        \t<supports-wake-on-wlan>false</supports-wake-on-wlan>
        \t<ecp-setting-mode>limited</ecp-setting-mode>
        </device-info>
        """

    @Test func deviceInfoFromARecordedShape() throws {
        let info = try RokuDeviceInfo.parse(Array(Self.deviceInfo.utf8))
        #expect(info.serial == "1GU48T017973")
        #expect(info.deviceID == "roku-1gu48t017973")
        #expect(info.name == "58\" Onn Roku TV")
        #expect(info.vendor == "TCL")
        #expect(info.mac == "D8:13:99:F8:B0:C6")
        #expect(info.isOn)
        #expect(info.isTV)
        #expect(info.ecpSettingMode == "limited")
        #expect(RokuAccess.remark(info.ecpSettingMode)?.contains("Network access") == true)
    }

    @Test func appsOneOrManyAndTheHomeScreen() throws {
        #expect(try RokuApp.active(Array("<active-app><app>Roku</app></active-app>".utf8)) == RokuApp(id: nil, name: "Roku"))
        let netflix =
            #"<active-app><app id="12" type="appl" version="4.1.218">Netflix</app><screensaver id="55545" type="ssvr">Default</screensaver></active-app>"#
        #expect(try RokuApp.active(Array(netflix.utf8)) == RokuApp(id: "12", name: "Netflix"))
        let apps =
            #"<apps><app id="tvinput.hdmi1" type="tvin" version="1.0.0">Blu-ray &amp; more</app><app id="12" type="appl" version="4.1.218">Netflix</app></apps>"#
        #expect(try RokuApp.list(Array(apps.utf8)).map(\.name) == ["Blu-ray & more", "Netflix"])
        #expect(try RokuApp.list(Array(#"<apps><app id="1">One</app></apps>"#.utf8)).count == 1)
        #expect(throws: PhotonError.self) { try RokuApp.active(Array("<apps/>".utf8)) }
    }

    @Test func hostileXMLIsAnErrorNeverATrap() {
        let cases = [
            "", "<", "<a>", "<a></b>", "<a><b></a></b>", "<a x=1/>", "<a x=\"1\" x=\"2\"/>", "<a>&unknown;</a>", "<a>&#0;</a>",
            "<a>&#x110000;</a>", "<a>&amp</a>", "<!DOCTYPE a [<!ENTITY e \"x\">]><a>&e;</a>", "<a/><b/>", "<a>\u{0}</a><",
            String(repeating: "<a>", count: 40) + String(repeating: "</a>", count: 40), "<a><![CDATA[x</a>",
        ]
        for text in cases {
            #expect(throws: PhotonError.self, "\(text.prefix(40))") { try XMLTree.parse(Array(text.utf8)) }
        }
        #expect(throws: PhotonError.self) { try XMLTree.parse([0xFF, 0xFE, 0x3C, 0x61, 0x2F, 0x3E]) }
        let huge = [UInt8](repeating: 0x20, count: 300 * 1024) + Array("<a/>".utf8)
        let error = #expect(throws: PhotonError.self) { try XMLTree.parse(huge) }
        #expect(error?.code == .messageTooLarge)
        // What parses, serialises and parses back the same.
        let good = try? XMLTree.parse(Array(#"<a k="&lt;1&gt;"><b>x &amp; y</b><![CDATA[<raw>]]><c/></a>"#.utf8))
        #expect(good?.value("b") == "x & y")
        #expect(good?.attributes["k"] == "<1>")
        #expect(good.map { try? XMLTree.parse(Array($0.serialized.utf8)) } == good)
    }

    @Test func textIsOneLiteralPerCharacterPercentEncoded() {
        #expect(RokuKeys.literals("a b+é") == ["Lit_a", "Lit_%20", "Lit_b", "Lit_%2B", "Lit_%C3%A9"])
        #expect(RokuKeys.literals("@$&=;:,").allSatisfy { $0.dropFirst(4).hasPrefix("%") })
    }

    @Test func launchTargetsAndKeyNames() throws {
        #expect(try RokuSession.launchTarget("12") == "12")
        #expect(try RokuSession.launchTarget("12?contentId=80057281&mediaType=movie") == "12?contentId=80057281&mediaType=movie")
        #expect(try RokuSession.launchTarget("837?contentId=a b/c") == "837?contentId=a%20b%2Fc")
        for bad in ["", "../x", "12/keypress/Home", "a b"] {
            #expect(throws: PhotonError.self, "\(bad)") { try RokuSession.launchTarget(bad) }
        }
        #expect(try RokuKeys.resolve(.key(.select)) == "Select")
        #expect(try RokuKeys.resolve(.raw("InputHDMI1")) == "InputHDMI1")
        #expect(throws: PhotonError.self) { try RokuKeys.resolve(.raw("Home/../x")) }
        #expect(throws: PhotonError.self) { try RokuKeys.resolve(.key(.red)) }
    }

    @Test func ssdpAnswersAreRecognisedBySerial() {
        let service = SSDP.service(
            SSDP.Response(
                location: "http://127.0.0.1:18060/", host: "127.0.0.1", searchTarget: "roku:ecp", usn: "uuid:roku:ecp:YN00PHOTON01", server: nil))
        let candidate = RokuAdapter().recognise(service)
        #expect(candidate?.id == "roku-yn00photon01")
        #expect(candidate?.endpoint == Endpoint(host: "127.0.0.1", port: 18060))
    }
}

extension RokuCodecTests {
    /// Found by FuzzRokuXML (Fuzz/FailCases/FuzzRokuXML/cdata-nul-roundtrip): a parsed tree
    /// must serialise to a document that parses back to the same tree.
    @Test func foundByTheFuzzerTreesRoundTrip() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fuzz/FailCases/FuzzRokuXML/cdata-nul-roundtrip")
        let bytes = [UInt8](try Data(contentsOf: url))
        if let tree = try? XMLTree.parse(bytes) {
            let again: XMLElement?
            do { again = try XMLTree.parse(Array(tree.serialized.utf8)) } catch {
                Issue.record("the serialised tree does not parse: \(error)")
                return
            }
            #expect(again == tree)
        }
    }

    /// Roku TVs list their inputs as `tvinput.*` apps; the standard ones are recognised.
    @Test func inputIdsAndTheirStandardNames() {
        #expect(RokuSession.standardInput("tvinput.hdmi1") == .hdmi(1))
        #expect(RokuSession.standardInput("tvinput.hdmi4") == .hdmi(4))
        #expect(RokuSession.standardInput("tvinput.hdmi5") == nil)
        #expect(RokuSession.standardInput("tvinput.dtv") == .tuner)
        #expect(RokuSession.standardInput("tvinput.cvbs") == .composite)
        #expect(RokuSession.standardInput("tvinput.hdmi") == nil)
        #expect(RokuSession.standardInput("12") == nil)
    }

    /// `/query/tv-channels`: hidden channels and numbers that are not channel numbers are
    /// left out; anything but a <tv-channels> is an error.
    @Test func tvChannelsWithHiddenAndBrokenEntries() throws {
        let body = Array(
            """
            <tv-channels><channel><number>7.1</number><name>News</name><user-hidden>false</user-hidden></channel>
            <channel><number>7.2</number><name>Hidden</name><user-hidden>true</user-hidden></channel>
            <channel><number>../launch/12</number><name>Evil</name></channel><channel><name>No number</name></channel>
            <channel><number>9.1</number></channel></tv-channels>
            """.utf8)
        let channels = try RokuChannelList.parse(body)
        #expect(channels.map(\.number) == ["7.1", "9.1"])
        #expect(channels.map(\.name) == ["News", ""])
        #expect(throws: PhotonError.self) { try RokuChannelList.parse(Array("<apps/>".utf8)) }
        #expect(throws: PhotonError.self) { try RokuChannelList.parse(Array("<tv-channels".utf8)) }
    }

    @Test func powerModesAsPowerStates() throws {
        func state(_ mode: String) throws -> PowerState? {
            try RokuDeviceInfo.parse(Array("<device-info><serial-number>X1</serial-number><power-mode>\(mode)</power-mode></device-info>".utf8))
                .powerState
        }
        #expect(try state("PowerOn") == .on)
        #expect(try state("DisplayOff") == .standby)
        #expect(try state("Ready") == .standby)
        #expect(try state("Headless") == .screenOff)
        #expect(try state("Warp") == nil)
    }
}
