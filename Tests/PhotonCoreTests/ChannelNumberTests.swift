import PhotonCore
import Testing

/// Channel numbers as users type them, and how a TV's own list resolves them.
@Suite struct ChannelNumberTests {
    @Test func numbersWithAndWithoutASubChannel() throws {
        #expect(try ChannelNumber(parsing: "7") == ChannelNumber(major: 7))
        #expect(try ChannelNumber(parsing: "7.1") == ChannelNumber(major: 7, minor: 1))
        #expect(try ChannelNumber(parsing: "7-1") == ChannelNumber(major: 7, minor: 1))
        #expect(try ChannelNumber(parsing: "0110").description == "110")
        for bad in ["", "0", "-1", "7.", ".1", "7.1.2", "x", "10000", "7.1000", "٣", "7 ", "+7", "7e2"] {
            let error = #expect(throws: PhotonError.self, "\(bad)") { try ChannelNumber(parsing: bad) }
            #expect(error?.code == .usage)
        }
    }

    @Test func sevenMeansTheFirstSevenPointSomethingAndUnknownNumbersAreNamed() throws {
        let list = [
            TVChannel(id: "a", number: "7-1", name: "News"), TVChannel(id: "b", number: "7-2", name: "Weather"),
            TVChannel(id: "c", number: "9", name: "Sports"), TVChannel(id: "d", number: "garbage", name: "?"),
        ]
        #expect(try list.matching(ChannelNumber(major: 7)).id == "a")
        #expect(try list.matching(ChannelNumber(major: 7, minor: 2)).id == "b")
        #expect(try list.matching(ChannelNumber(major: 9)).id == "c")
        let missing = #expect(throws: PhotonError.self) { try list.matching(ChannelNumber(major: 9, minor: 1)) }
        #expect(missing?.code == .notFound)
        #expect(missing?.hint?.contains("7-1, 7-2, 9") == true, "\(missing?.hint ?? "")")
        let none = #expect(throws: PhotonError.self) { try [TVChannel]().matching(ChannelNumber(major: 7)) }
        #expect(none?.hint?.contains("lists no channels") == true)
    }

    @Test func aChannelNeedsKeysAndItsLogSaysTheNumber() {
        #expect(RemoteCommand.channel(ChannelNumber(major: 7)).requiredCapability == .keys)
        #expect(RemoteCommand.channel(ChannelNumber(major: 7, minor: 1)).logDescription == "channel 7.1")
    }
}
