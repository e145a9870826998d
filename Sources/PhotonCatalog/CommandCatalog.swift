import PhotonJSON

/// The one list of brand-neutral commands (see `CommandEntry`). Standard library only
/// (with PhotonJSON), so the small `photon` front end reads the same grammar and limits
/// as the rest of Photon.
public enum CommandCatalog {
    /// Every command, in the order help and completions list them.
    public static let entries: [CommandEntry] = [
        key, text, launch, search, input, channel, notify, screen, volume, sound, picture, ambilight, art, voice,
    ]

    /// The entry named `name` (or one of its aliases), case-insensitively.
    public static func entry(named name: String) -> CommandEntry? {
        let lower = name.lowercased()
        return entries.first { $0.name == lower || $0.aliases.contains(lower) }
    }

    /// The entry whose Home Assistant entity listens on `topic`.
    public static func entry(homeAssistantTopic topic: String) -> CommandEntry? {
        entries.first { $0.homeAssistant?.topic == topic }
    }

    /// The entry a wire object is a command of: the first whose field it has.
    public static func entry(forWire object: JSONValue) -> CommandEntry? {
        entries.first { entry in entry.wireFields.contains { object[$0] != nil } }
    }

    /// The wire object for `verb ARGUMENT` as a person writes it, checked against the
    /// limits: `volume 12` → `{"volume":12}`, `channel up` → `{"key":"channel-up"}`.
    public static func wire(verb: String, argument: String) throws -> JSONValue {
        guard let entry = entry(named: verb) else {
            throw CommandGrammarError(
                "unknown command '\(printable(verb))'", hint: "commands: \(entries.map(\.name).joined(separator: ", "))")
        }
        return try entry.wire(fromWords: argument)
    }

    /// Checks a wire object (`{"text":"…"}`) against its entry's grammar and limits, and
    /// returns that entry.
    @discardableResult
    public static func check(wire object: JSONValue) throws -> CommandEntry {
        guard object.isObject else { throw CommandGrammarError("a command is an object such as {\"key\":\"home\"}") }
        guard let entry = entry(forWire: object) else {
            throw CommandGrammarError(
                "the command needs one of \(entries.flatMap(\.wireFields).joined(separator: ", "))",
                hint: "e.g. {\"key\":\"home\"}, {\"volume\":12}, {\"text\":\"the expanse\"}")
        }
        try entry.check(object)
        return entry
    }

    /// `text` without control characters and cut to `limit`, for a message.
    static func printable(_ text: String, limit: Int = 32) -> String {
        let cleaned = String(String.UnicodeScalarView(text.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }.prefix(limit)))
        return text.unicodeScalars.count > limit ? cleaned + "…" : cleaned
    }
}

// MARK: the entries

extension CommandCatalog {
    static let key = CommandEntry(
        name: "key", aliases: ["keys"], wireFields: ["key", "raw"], summary: "send keys to a TV, in order", argument: "KEY...",
        details: "TV is a nickname, id or paired address. `photon keys` lists key names.",
        examples: [
            "photon key living-room home", "photon key living-room down down select", "photon key tv select --long",
            "photon key tv --raw KEYCODE_TV_INPUT_HDMI_1", "photon key tv power --wake",
        ],
        capabilities: ["keys", "long-press"], fastPath: false, derivedCommandLine: false,
        homeAssistant: HomeAssistantEntity(topic: "key", platform: "button", capability: "keys", name: "Key", buttonPerKey: true),
        schema: .object([
            ("type", "object"),
            (
                "properties",
                .object([
                    ("key", .object([("type", "string"), ("description", "a key name (`photon keys`)")])),
                    ("raw", .object([("type", "string"), ("maxLength", .int(CommandLimits.rawKeyBytes)), ("description", "a brand key code")])),
                    ("action", .object([("type", "string"), ("enum", .array(["press", "hold-start", "hold-end"]))])),
                    (
                        "hold",
                        .object([
                            ("type", "integer"), ("minimum", .int(CommandLimits.holdMilliseconds.lowerBound)),
                            ("maximum", .int(CommandLimits.holdMilliseconds.upperBound)),
                        ])
                    ),
                ])
            ),
        ]),
        readWords: { name in .object([("key", .string(name))]) },
        checkWire: { object in
            if let raw = object["raw"] {
                guard let code = raw.stringValue, !code.isEmpty, code.utf8.count <= CommandLimits.rawKeyBytes else {
                    throw CommandGrammarError("\"raw\" takes a brand key code of 1 to \(CommandLimits.rawKeyBytes) bytes")
                }
            } else {
                guard let name = object["key"]?.stringValue, !name.isEmpty, name.utf8.count <= CommandLimits.rawKeyBytes else {
                    throw CommandGrammarError("a key is named by a word such as home or volume-up", hint: "see `photon keys`")
                }
            }
            if let hold = object["hold"] {
                guard let ms = hold.intValue, CommandLimits.holdMilliseconds.contains(ms) else {
                    throw CommandGrammarError(
                        "\"hold\" takes milliseconds from \(CommandLimits.holdMilliseconds.lowerBound) to \(CommandLimits.holdMilliseconds.upperBound)"
                    )
                }
            }
            if let action = object["action"] {
                guard let name = action.stringValue, ["press", "hold-start", "hold-end"].contains(name) else {
                    throw CommandGrammarError(
                        "\"action\" takes press, hold-start or hold-end, not '\(printable(action.stringValue ?? action.encoded))'")
                }
            }
        })

    static let text = CommandEntry(
        name: "text", summary: "type text into the focused field", argument: "STRING",
        details: "The whole string is sent at once (more reliable than typing letter by letter); 1 to \(CommandLimits.textBytes) bytes.",
        examples: ["photon text living-room \"the expanse\""], capabilities: ["text"], takesFreeText: true,
        homeAssistant: HomeAssistantEntity(topic: "text", platform: "text", capability: "text", name: "Send text", settings: [("max", 255)]),
        schema: stringSchema("text", minimum: 1, maximum: CommandLimits.textBytes, description: "text to type (UTF-8 bytes)"),
        readWords: { .object([("text", .string($0))]) },
        checkWire: { try checkBytes($0["text"], field: "text", range: 1...CommandLimits.textBytes, what: "text") })

    static let launch = CommandEntry(
        name: "launch", summary: "open an app or deep link", argument: "APP",
        details: "APP is a name from Photon's app catalog on every brand (netflix, youtube, prime video, disney+, max, hulu, plex, "
            + "spotify, apple tv, twitch, kodi: `photon apps --catalog`), or an id or link as the brand takes it.",
        examples: ["photon launch living-room netflix", "photon launch living-room https://www.netflix.com/title/80057281"],
        capabilities: ["app-launch"], takesFreeText: true,
        schema: stringSchema("launch", minimum: 1, maximum: CommandLimits.launchBytes, description: "an app name, id or link"),
        readWords: { .object([("launch", .string($0))]) },
        checkWire: { try checkBytes($0["launch"], field: "launch", range: 1...CommandLimits.launchBytes, what: "an app id or link") })

    static let search = CommandEntry(
        name: "search", summary: "search on the TV (its own search screen)", argument: "KEYWORDS",
        details: "Where the TV's brand has a search over its protocol; others exit 6.", examples: ["photon search den \"the expanse\""],
        capabilities: ["search"], takesFreeText: true,
        schema: stringSchema("search", minimum: 1, maximum: CommandLimits.searchBytes, description: "keywords"),
        readWords: { .object([("search", .string($0))]) },
        checkWire: { try checkBytes($0["search"], field: "search", range: 1...CommandLimits.searchBytes, what: "keywords") })

    static let input = CommandEntry(
        name: "input", summary: "switch the TV's input, or list its inputs", argument: "hdmi1|hdmi2|…|tv|av|component|LABEL",
        details: "A standard name (hdmi1…hdmi4, tv, av, component) works on every brand with inputs; the TV's own label for an input "
            + "(\"PlayStation\") where the TV lists them. Without a name, lists the inputs.",
        examples: ["photon input living-room hdmi2", "photon input living-room PlayStation", "photon input living-room"],
        capabilities: ["inputs", "input-list"], completions: ["hdmi1", "hdmi2", "hdmi3", "hdmi4", "tv", "av", "component"],
        derivedCommandLine: false,
        homeAssistant: HomeAssistantEntity(
            topic: "input", platform: "select", capability: "inputs", name: "Input", icon: "mdi:video-input-hdmi", options: .inputs),
        schema: stringSchema("input", minimum: 1, maximum: CommandLimits.nameBytes, description: "hdmi1…hdmi4, tv, av, component or the TV's label"),
        readWords: { .object([("input", .string($0))]) },
        checkWire: { try checkName($0["input"], field: "input", what: "an input") })

    static let channel = CommandEntry(
        name: "channel", summary: "change the channel: up, down, or a number", argument: "up|down|NUMBER",
        details: "NUMBER is 7 or 7.1 (7-1), tuned with the TV's own call where its brand lists channels, else typed as digits and Enter "
            + "(a sub-channel cannot be typed: exit 6). up and down are the channel keys.",
        examples: ["photon channel living-room 7", "photon channel den 7.1", "photon channel den up"], capabilities: ["keys", "channel-list"],
        completions: ["up", "down"], fastPath: false, derivedCommandLine: false,
        schema: stringSchema("channel", minimum: 1, maximum: 16, description: "a channel number such as 7 or 7.1"),
        readWords: { words in
            switch words.lowercased() {
            case "up": return .object([("key", "channel-up")])
            case "down": return .object([("key", "channel-down")])
            default: return .object([("channel", .string(words))])
            }
        },
        checkWire: { object in
            guard let number = object["channel"]?.stringValue, !number.isEmpty, number.utf8.count <= 16,
                number.unicodeScalars.allSatisfy({ ("0"..."9").contains($0) || $0 == "." || $0 == "-" })
            else {
                throw CommandGrammarError(
                    "a channel is up, down or a number such as 7 or 7.1, not '\(printable(object["channel"]?.stringValue ?? ""))'")
            }
        })

    static let notify = CommandEntry(
        name: "notify", summary: "show a short message on the TV's screen", argument: "MESSAGE",
        details: "1 to \(CommandLimits.notificationCharacters) characters, shown as a toast where the brand has them; others exit 6.",
        examples: ["photon notify living-room \"Dinner is ready\""], capabilities: ["notifications"], takesFreeText: true,
        homeAssistant: HomeAssistantEntity(topic: "notify", platform: "notify", capability: "notifications", name: "Message"),
        schema: stringSchema("notify", minimum: 1, maximum: CommandLimits.notificationCharacters, description: "the message (characters)"),
        readWords: { .object([("notify", .string($0))]) },
        checkWire: { object in
            guard let message = object["notify"]?.stringValue, !message.unicodeScalars.allSatisfy(\.properties.isWhitespace),
                message.count <= CommandLimits.notificationCharacters,
                !message.unicodeScalars.contains(where: { ($0.value < 0x20 && $0 != "\n") || $0.value == 0x7F })
            else {
                throw CommandGrammarError(
                    "a notification is 1 to \(CommandLimits.notificationCharacters) characters, without control characters")
            }
        })

    static let screen = CommandEntry(
        name: "screen", summary: "switch the picture off or on (the TV stays on)", argument: "off|on",
        details: "Where the brand can; others exit 6. Sound and apps go on while the picture is off.",
        examples: ["photon screen office off", "photon screen office on"], capabilities: ["screen-power"], completions: ["off", "on"],
        homeAssistant: HomeAssistantEntity(
            topic: "screen", platform: "switch", capability: "screen-power", name: "Screen", icon: "mdi:monitor-off",
            settings: [("pl_on", "ON"), ("pl_off", "OFF")]),
        schema: .object([
            ("type", "object"), ("required", .array(["screen"])),
            ("properties", .object([("screen", .object([("type", "string"), ("enum", .array(["on", "off"]))]))])),
        ]),
        readWords: { .object([("screen", .string($0.lowercased()))]) },
        checkWire: { object in
            guard let value = object["screen"]?.stringValue, ["on", "off"].contains(value.lowercased()) else {
                throw CommandGrammarError("screen takes on or off, not '\(printable(object["screen"]?.stringValue ?? ""))'")
            }
        })

    static let volume = CommandEntry(
        name: "volume", summary: "change the volume", argument: "up|down|mute|LEVEL",
        details: "A LEVEL (\(CommandLimits.volumeLevels.lowerBound)–\(CommandLimits.volumeLevels.upperBound)) sets the volume where "
            + "the brand has absolute volume; others take steps only and exit 6.",
        examples: ["photon volume living-room up", "photon volume living-room mute", "photon volume living-room 15"],
        capabilities: ["keys", "volume-set"], completions: ["up", "down", "mute"],
        homeAssistant: HomeAssistantEntity(
            topic: "volume", platform: "number", capability: "volume-set", name: "Volume",
            settings: [
                ("min", .int(CommandLimits.volumeLevels.lowerBound)), ("max", .int(CommandLimits.volumeLevels.upperBound)), ("step", 1),
                ("mode", "slider"),
            ], hasState: true),
        schema: .object([
            ("type", "object"), ("required", .array(["volume"])),
            (
                "properties",
                .object([
                    (
                        "volume",
                        .object([
                            (
                                "oneOf",
                                .array([
                                    .object([("type", "string"), ("enum", .array(["up", "down", "mute"]))]),
                                    .object([
                                        ("type", "integer"), ("minimum", .int(CommandLimits.volumeLevels.lowerBound)),
                                        ("maximum", .int(CommandLimits.volumeLevels.upperBound)),
                                    ]),
                                ])
                            )
                        ])
                    )
                ])
            ),
        ]),
        readWords: { words in
            let lower = words.lowercased()
            if ["up", "down", "mute"].contains(lower) { return .object([("volume", .string(lower))]) }
            // A level in digits; Home Assistant's number entity sends `12.0`.
            guard let level = volumeLevel(lower) else {
                throw CommandGrammarError(
                    "volume takes up, down, mute or a level from \(CommandLimits.volumeLevels.lowerBound) to "
                        + "\(CommandLimits.volumeLevels.upperBound), not '\(printable(words))'")
            }
            return .object([("volume", .int(level))])
        },
        checkWire: { object in
            let value = object["volume"]
            if let step = value?.stringValue, ["up", "down", "mute"].contains(step) { return }
            guard let number = value?.doubleValue, number.isFinite, Double(CommandLimits.volumeLevels.lowerBound) <= number,
                number <= Double(CommandLimits.volumeLevels.upperBound)
            else {
                throw CommandGrammarError(
                    "volume takes up, down, mute or a level from \(CommandLimits.volumeLevels.lowerBound) to \(CommandLimits.volumeLevels.upperBound)"
                )
            }
        })

    static let voice = CommandEntry(
        name: "voice", summary: "words a person said, for the TV", argument: "WORDS",
        details: "Recognised words: \"open netflix\" launches, \"search for …\" searches where the TV can (else types), "
            + "\"channel one two\" tunes, anything else is searched for or typed. `photon voice TV` records and recognises them here.",
        examples: ["{\"voice\":{\"text\":\"open netflix\"}}"], capabilities: ["app-launch", "text", "keys"], takesFreeText: true,
        fastPath: false, derivedCommandLine: false,
        schema: .object([
            ("type", "object"), ("required", .array(["voice"])),
            (
                "properties",
                .object([
                    (
                        "voice",
                        .object([
                            ("type", "object"), ("required", .array(["text"])),
                            (
                                "properties",
                                .object([
                                    ("text", .object([("type", "string"), ("minLength", 1), ("maxLength", .int(CommandLimits.spokenBytes))])),
                                    ("to", .object([("type", "string"), ("enum", .array(["search", "text"]))])),
                                ])
                            ),
                        ])
                    )
                ])
            ),
        ]),
        readWords: { .object([("voice", .object([("text", .string($0))]))]) },
        checkWire: { object in
            // Anything but an object with words would be audio, which does not fit a
            // request: the core says so as `unsupported`.
            guard let voice = object["voice"], voice.isObject, voice["text"] != nil else { return }
            try checkBytes(voice["text"], field: "voice\".\"text", range: 1...CommandLimits.spokenBytes, what: "words")
            if let target = voice["to"] {
                guard let name = target.stringValue, ["search", "text"].contains(name) else {
                    throw CommandGrammarError("\"voice\".\"to\" is \"search\" or \"text\"")
                }
            }
        })
}

// MARK: helpers

extension CommandCatalog {
    /// A level in digits (`12`, or `12.0` as Home Assistant's number entity sends it),
    /// rounded, within the volume range.
    static func volumeLevel(_ text: String) -> Int? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), parts[0].count <= 3,
            parts.allSatisfy({ !$0.isEmpty && $0.count <= 6 && $0.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } }),
            let value = Double(text), value.isFinite
        else { return nil }
        let level = Int(value.rounded())
        return CommandLimits.volumeLevels.contains(level) ? level : nil
    }

    static func checkBytes(_ value: JSONValue?, field: String, range: ClosedRange<Int>, what: String) throws {
        guard let text = value?.stringValue, range.contains(text.utf8.count) else {
            throw CommandGrammarError("\"\(field)\" takes \(what) of \(range.lowerBound) to \(range.upperBound) bytes")
        }
    }

    static func checkName(_ value: JSONValue?, field: String, what: String) throws {
        guard let text = value?.stringValue, (1...CommandLimits.nameBytes).contains(text.utf8.count),
            !text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F })
        else {
            throw CommandGrammarError("\"\(field)\" takes \(what) of 1 to \(CommandLimits.nameBytes) bytes, without control characters")
        }
    }

    static func stringSchema(_ field: String, minimum: Int, maximum: Int, description: String) -> JSONValue {
        .object([
            ("type", "object"), ("required", .array([.string(field)])),
            (
                "properties",
                .object([
                    (
                        field,
                        .object([
                            ("type", "string"), ("minLength", .int(minimum)), ("maxLength", .int(maximum)), ("description", .string(description)),
                        ])
                    )
                ])
            ),
        ])
    }
}
