import PhotonCore
import Testing

/// MACs come from the TV (certificate subject, REST): only ASCII hex may pass.
@Suite struct MACAddressTests {
    @Test func spellings() {
        for text in ["A8:71:16:A2:31:1D", "a8-71-16-a2-31-1d", "a87116a2311d", "a871.16a2.311d", " a8:71:16:a2:31:1d "] {
            #expect(MACAddress.normalized(text) == "A8:71:16:A2:31:1D", "\(text)")
        }
    }

    @Test func nonASCIIDigitsAndMalformedTextAreRefused() {
        // Character.isHexDigit accepts these; they once trapped Wake-on-LAN.
        for text in [
            "０１:２３:４５:６７:８９:ＡＢ", "０１２３４５６７８９ＡＢ", "01:23:45:67:89:ＡＢ", "01:23:45:67:89:a", "01:23-45:67:89:ab",
            "0123456789abc", "00:00:00:00:00:00", "FF:FF:FF:FF:FF:FF", "GG:00:00:00:00:01", "", "٠١:٢٣:٤٥:٦٧:٨٩:ab",
        ] {
            #expect(MACAddress.normalized(text) == nil, "\(text)")
            #expect(throws: PhotonError.self, "\(text)") { try WakeOnLAN.parseMAC(text) }
        }
        #expect(throws: PhotonError.self) { try WakeOnLAN.magicPacket(mac: [1, 2, 3]) }
    }

    @Test func typosAreRecognisedAsMACs() {
        #expect(MACAddress.looksLikeAttempt("11:22:33:44:55"))
        #expect(MACAddress.looksLikeAttempt("11-22-33-44-55-66-77"))
        #expect(MACAddress.looksLikeAttempt("11:22:33:44:55:6G"))
        #expect(MACAddress.looksLikeAttempt("０１:２３:４５:６７:８９:ＡＢ"))
        #expect(!MACAddress.looksLikeAttempt("living-room"))
        #expect(!MACAddress.looksLikeAttempt("tv-2"))
        #expect(!MACAddress.looksLikeAttempt("::1"))
        #expect(!MACAddress.looksLikeAttempt("192.168.1.20"))
    }
}

/// Times from other processes become durations without trapping.
@Suite struct ClampedDurationTests {
    @Test func hugeNegativeAndNaNSecondsAreClamped() {
        #expect(Duration.clampedSeconds(.nan, maximum: 5) == .zero)
        #expect(Duration.clampedSeconds(-1, maximum: 5) == .zero)
        #expect(Duration.clampedSeconds(.infinity, maximum: 5) == .seconds(5))
        #expect(Duration.clampedSeconds(1e300, maximum: 5) == .seconds(5))
        #expect(Duration.clampedSeconds(1.5, maximum: 5) == .milliseconds(1500))
    }
}
