/// The one wire codec of a command: the JSON object every door carries (`{"key":"home"}`,
/// `{"volume":12}`, `{"voice":{"text":"open netflix"}}`), checked against the catalog's
/// grammar and limits, then read into a typed `RemoteCommand`. The socket API, the HTTP
/// door, MQTT, macros, the CLI and the `photon` front end all go through it.
extension RemoteCommand {
    /// Reads a wire object. Throws `usage` with the catalog's message for anything out of
    /// its grammar or limits, `unsupported` for audio (which no request line carries).
    public init(wire json: JSONValue) throws {
        let entry: CommandEntry
        do {
            entry = try CommandCatalog.check(wire: json)
        } catch let error as CommandGrammarError {
            throw PhotonError(error)
        }
        switch entry.name {
        case "key":
            let input: KeyInput
            if let code = json["raw"]?.stringValue {
                input = .raw(code)
            } else {
                let name = json["key"]?.stringValue ?? ""
                guard let key = RemoteKey(name: name) else {
                    throw PhotonError(.usage, "unknown key '\(Redaction.sanitize(name))'", hint: "see `photon keys`")
                }
                input = .key(key)
            }
            if let ms = json["hold"]?.intValue {
                self = .longPress(input, milliseconds: ms)
                return
            }
            self = .key(input, json["action"]?.stringValue.flatMap(KeyAction.init(rawValue:)) ?? .press)
        case "text": self = .text(json["text"]?.stringValue ?? "")
        case "launch": self = .launch(json["launch"]?.stringValue ?? "")
        case "search": self = .search(json["search"]?.stringValue ?? "")
        case "input": self = .input(try InputName(parsing: json["input"]?.stringValue ?? ""))
        case "channel": self = .channel(try ChannelNumber(parsing: json["channel"]?.stringValue ?? ""))
        case "notify": self = .notify(json["notify"]?.stringValue ?? "")
        case "screen": self = .screen(on: json["screen"]?.stringValue?.lowercased() == "on")
        case "sound": self = .sound(json["sound"]?.stringValue ?? "")
        case "picture": self = .picture(json["picture"]?.stringValue ?? "")
        case "ambilight": self = .ambilight(json["ambilight"]?.stringValue ?? "")
        case "art": self = .art(try ArtCommand(words: json["art"]?.stringValue ?? ""))
        case "volume":
            if let step = json["volume"]?.stringValue.flatMap(VolumeChange.init(rawValue:)) {
                self = .volume(step)
            } else {
                self = .setVolume(Int((json["volume"]?.doubleValue ?? 0).rounded()))
            }
        case "voice":
            // Recognised words (the door recognised them, or a person typed them): audio
            // does not fit a request line.
            guard let words = json["voice"]?["text"]?.stringValue else {
                throw PhotonError.unsupported(
                    "audio is not sent through a request; send the recognised words as {\"voice\":{\"text\":\"…\"}}",
                    hint: "`photon voice TV` records and recognises on this machine")
            }
            self = .spoken(words, to: json["voice"]?["to"]?.stringValue.flatMap(VoiceRequest.Target.init(rawValue:)) ?? .search)
        default:
            throw PhotonError.unsupported("the command '\(entry.name)' has no reading in this version", hint: "update Photon")
        }
    }

    /// Reads `verb ARGUMENT` as a person writes it: on the command line, in a macro step,
    /// or as a bare payload on a Home Assistant topic.
    public init(verb: String, argument: String) throws {
        let json: JSONValue
        do {
            json = try CommandCatalog.wire(verb: verb, argument: argument)
        } catch let error as CommandGrammarError {
            throw PhotonError(error)
        }
        try self.init(wire: json)
    }

    /// The wire object of this command (what `init(wire:)` reads back).
    public func wire() throws -> JSONValue {
        func key(_ input: KeyInput, action: KeyAction? = nil, hold: Int? = nil) -> JSONValue {
            var fields: [(String, JSONValue)]
            switch input {
            case .key(let key): fields = [("key", .string(key.rawValue))]
            case .raw(let code): fields = [("raw", .string(code))]
            }
            if let action { fields.append(("action", .string(action.rawValue))) }
            if let hold { fields.append(("hold", .int(hold))) }
            return .object(fields)
        }
        switch self {
        case .key(let input, .press): return key(input)
        case .key(let input, let action): return key(input, action: action)
        case .longPress(let input, let ms): return key(input, hold: ms)
        case .text(let text): return .object([("text", .string(text))])
        case .launch(let app): return .object([("launch", .string(app))])
        case .volume(let change): return .object([("volume", .string(change.rawValue))])
        case .setVolume(let level): return .object([("volume", .int(level))])
        case .search(let keyword): return .object([("search", .string(keyword))])
        case .input(let name): return .object([("input", .string(name.description))])
        case .notify(let message): return .object([("notify", .string(message))])
        case .screen(let on): return .object([("screen", .string(on ? "on" : "off"))])
        case .channel(let number): return .object([("channel", .string(number.description))])
        case .sound(let output): return .object([("sound", .string(output))])
        case .picture(let mode): return .object([("picture", .string(mode))])
        case .ambilight(let choice): return .object([("ambilight", .string(choice))])
        case .art(let command): return .object([("art", .string(command.description))])
        case .artUpload:
            throw PhotonError.unsupported("an upload is not sent through a request", hint: "`photon art TV upload FILE` connects directly")
        case .spoken(let words, let target):
            return .object([("voice", .object([("text", .string(words)), ("to", .string(target.rawValue))]))])
        case .voice, .liveVoice:
            throw PhotonError.unsupported("audio is not sent through a request", hint: "`photon voice` connects directly")
        case .wake:
            throw PhotonError(.usage, "a wake is its own request (`wake`), not a command", hint: "see `photon help wake`")
        }
    }
}

extension PhotonError {
    /// A command a door could not read: `usage`, with the catalog's message and hint.
    public init(_ error: CommandGrammarError) {
        self.init(.usage, error.message, hint: error.hint)
    }
}
