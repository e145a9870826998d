import PhotonCore
import Testing

/// The command catalog: every entry is whole (names, wire fields, topics unique; its own
/// examples read by its own grammar), its word grammar and its wire check agree, and the
/// wire codec reads back what it writes.
@Suite struct CommandCatalogTests {
    @Test func namesWireFieldsAndTopicsAreUnique() {
        let names = CommandCatalog.entries.flatMap { [$0.name] + $0.aliases }
        #expect(Set(names).count == names.count)
        let fields = CommandCatalog.entries.flatMap(\.wireFields)
        #expect(Set(fields).count == fields.count)
        let topics = CommandCatalog.entries.compactMap(\.homeAssistant?.topic)
        #expect(Set(topics).count == topics.count)
        for entry in CommandCatalog.entries {
            #expect(!entry.summary.isEmpty && !entry.argument.isEmpty && !entry.examples.isEmpty, "\(entry.name)")
            #expect(!entry.capabilities.isEmpty && entry.capabilities.allSatisfy { Capability(rawValue: $0) != nil }, "\(entry.name)")
            if let entity = entry.homeAssistant { #expect(Capability(rawValue: entity.capability) != nil, "\(entry.name)") }
            #expect(entry.schema["properties"] != nil, "\(entry.name) has no schema")
        }
    }

    @Test func everyCommandLineExampleIsReadByItsOwnGrammar() throws {
        for entry in CommandCatalog.entries where entry.derivedCommandLine || entry.name == "channel" || entry.name == "input" {
            for example in entry.examples {
                // `photon NAME TV ARGUMENT`, the argument quoted or not.
                let words = example.split(separator: " ", maxSplits: 3).map(String.init)
                guard words.count == 4 else { continue }
                let argument = words[3].hasPrefix("\"") ? String(words[3].dropFirst().dropLast()) : words[3]
                let command = try RemoteCommand(verb: entry.name, argument: argument)
                // What the words mean is what the wire carries.
                #expect(try RemoteCommand(wire: command.wire()) == command, "\(example)")
            }
        }
    }

    @Test func theWordGrammarAndTheWireAgree() throws {
        #expect(try RemoteCommand(verb: "volume", argument: "12") == .setVolume(12))
        #expect(try RemoteCommand(verb: "volume", argument: "12.4") == .setVolume(12))
        #expect(try RemoteCommand(verb: "VOLUME", argument: "Mute") == .volume(.mute))
        #expect(try RemoteCommand(wire: .object([("volume", .double(99.6))])) == .setVolume(100))
        #expect(try RemoteCommand(verb: "screen", argument: "OFF") == .screen(on: false))
        #expect(try RemoteCommand(wire: .object([("screen", "On")])) == .screen(on: true))
        #expect(try RemoteCommand(verb: "channel", argument: "up") == .key(.key(.channelUp), .press))
        #expect(try RemoteCommand(verb: "channel", argument: "7.1") == .channel(ChannelNumber(major: 7, minor: 1)))
        #expect(try RemoteCommand(verb: "keys", argument: "home") == .key(.key(.home), .press))
        #expect(try RemoteCommand(verb: "input", argument: "HDMI 2") == .input(.hdmi(2)))
        #expect(try RemoteCommand(verb: "voice", argument: "open netflix") == .spoken("open netflix", to: .search))
    }

    @Test func everyLimitIsTheSameInWordsAndOnTheWire() throws {
        let refused: [(String, String)] = [
            ("volume", "101"), ("volume", "-1"), ("volume", "1e2"), ("volume", "12."), ("volume", "louder"), ("volume", ""),
            ("text", ""), ("text", String(repeating: "é", count: CommandLimits.textBytes / 2 + 1)),
            ("launch", ""), ("launch", String(repeating: "a", count: CommandLimits.launchBytes + 1)),
            ("search", String(repeating: "a", count: CommandLimits.searchBytes + 1)), ("notify", " "),
            ("notify", String(repeating: "a", count: CommandLimits.notificationCharacters + 1)), ("notify", "bell\u{7}"),
            ("screen", "dim"), ("channel", "seven"), ("input", ""), ("input", String(repeating: "a", count: 65)), ("key", ""),
            ("voice", ""),
        ]
        for (verb, argument) in refused {
            #expect(throws: PhotonError.self, "\(verb) \(argument.prefix(20))") { try RemoteCommand(verb: verb, argument: argument) }
            do {
                _ = try RemoteCommand(verb: verb, argument: argument)
            } catch let error as PhotonError {
                #expect(error.code == .usage, "\(verb): \(error)")
            } catch {
                Issue.record("\(verb): \(error)")
            }
        }
        #expect(throws: PhotonError.self) { try RemoteCommand(verb: "warp", argument: "9") }
        #expect(
            try RemoteCommand(verb: "text", argument: String(repeating: "x", count: CommandLimits.textBytes))
                == .text(String(repeating: "x", count: CommandLimits.textBytes)))
        #expect(try RemoteCommand(verb: "volume", argument: "100") == .setVolume(100))
        #expect(try RemoteCommand(verb: "volume", argument: "0") == .setVolume(0))
    }

    @Test func theWireCodecReadsBackWhatItWrites() throws {
        let commands: [RemoteCommand] = [
            .key(.key(.home), .press), .key(.key(.select), .holdEnd), .key(.raw("178"), .press), .longPress(.key(.back), milliseconds: 60_000),
            .text("x"), .launch("netflix"), .search("the expanse"), .input(.label("PlayStation")), .channel(ChannelNumber(major: 12, minor: nil)),
            .notify("hello\nthere"), .screen(on: false), .volume(.down), .setVolume(0), .spoken("channel one two", to: .text),
        ]
        for command in commands {
            let wire = try command.wire()
            #expect(try RemoteCommand(wire: JSONValue.parse(wire.encoded)) == command, "\(wire.encoded)")
            #expect(CommandCatalog.entry(forWire: wire) != nil)
        }
        #expect(throws: PhotonError.self) { try RemoteCommand.wake(WakeRequest()).wire() }
    }

    @Test func macroStepsUseTheCatalog() throws {
        let macro = try Macro(steps: ["key home down", "volume 12.0", "channel up", "voice open netflix", "screen OFF"])
        #expect(
            macro.steps.map(\.step) == [
                .commands([.key(.key(.home), .press), .key(.key(.down), .press)]), .commands([.setVolume(12)]),
                .commands([.key(.key(.channelUp), .press)]), .commands([.spoken("open netflix", to: .search)]), .commands([.screen(on: false)]),
            ])
        let long = "text " + String(repeating: "x", count: CommandLimits.textBytes)
        #expect(try Macro(steps: [long]).steps.count == 1)
        #expect(throws: PhotonError.self) { try Macro(steps: [long + "x"]) }
    }
}

/// "Did you mean …?" for a mistyped TV name (the report's `photon key livng-room home`).
@Suite struct TVNameSuggestionTests {
    @Test func aCloseNicknameIsSuggestedAndTheListIsKept() {
        let hint = DeviceFile.didYouMean("livng-room", among: ["living-room", "den"])
        #expect(hint == "did you mean 'living-room'? paired TVs: den, living-room")
        #expect(DeviceFile.didYouMean("garage", among: ["living-room", "den"]) == "paired TVs: den, living-room")
        #expect(DeviceFile.didYouMean("liv", among: ["living-room", "den"]).hasPrefix("did you mean 'living-room'?"))
    }
}
