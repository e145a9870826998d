import PhotonJSON

/// Why a door could not read a command as written, in words any door can show: the
/// message says what is wrong, the hint what to write instead (never which door to read
/// the documentation of). PhotonCore turns it into a `usage` error.
public struct CommandGrammarError: Error, Sendable, Equatable, CustomStringConvertible {
    public let message: String
    public let hint: String?

    public init(_ message: String, hint: String? = nil) {
        self.message = message
        self.hint = hint
    }

    public var description: String { hint.map { "\(message) (\($0))" } ?? message }
}

/// How a command shows up in Home Assistant through the MQTT bridge: the entity's
/// platform, name and fixed settings, and the topic (`photon/<site>/<tv>/<topic>/set`)
/// whose bare payload the command's word grammar reads.
public struct HomeAssistantEntity: Sendable {
    /// Where a select's options come from, when the TV decides them.
    public enum Options: Sendable, Equatable {
        /// The TV's inputs by label where it lists them, else the standard names.
        case inputs
        /// The command's completion values (its standard names).
        case completions
    }

    /// The command topic's name, and the entity's key in the discovery payload.
    public let topic: String
    /// Home Assistant's platform: `number`, `switch`, `text`, `notify`, `select`, `button`.
    public let platform: String
    /// The capability (by its name in `photon status`) a TV needs to get this entity.
    public let capability: String
    public let name: String
    public let icon: String?
    /// Settings of the entity as Home Assistant's discovery schema names them (`min`,
    /// `max`, `step`, `mode`, `pl_on`, `pl_off`).
    public let settings: [(String, JSONValue)]
    /// Whether the bridge publishes a state on `…/<topic>` that the entity shows.
    public let hasState: Bool
    public let options: Options?
    /// One button per key the TV has (the `key` command), instead of one entity.
    public let buttonPerKey: Bool

    public init(
        topic: String, platform: String, capability: String, name: String, icon: String? = nil, settings: [(String, JSONValue)] = [],
        hasState: Bool = false,
        options: Options? = nil, buttonPerKey: Bool = false
    ) {
        self.topic = topic
        self.platform = platform
        self.capability = capability
        self.name = name
        self.icon = icon
        self.settings = settings
        self.hasState = hasState
        self.options = options
        self.buttonPerKey = buttonPerKey
    }
}

/// One brand-neutral command, written once: its name, its grammar and limits, the
/// capabilities it needs, its form on the wire, its Home Assistant entity, its completion
/// values and its help. The CLI, the `photon` front end, macros, the daemon's codec, the
/// HTTP door (and its OpenAPI schema), MQTT and the completion scripts are all derived
/// from these entries, so adding a command is one entry here plus the adapters that can
/// do it.
public struct CommandEntry: Sendable {
    /// The command's name on the command line, in a macro step and on the wire.
    public let name: String
    /// Other words for it in a macro step (`keys` for `key`).
    public let aliases: [String]
    /// The wire object's fields that name this command (`key` or `raw` for a key).
    public let wireFields: [String]
    /// One line for `photon help`.
    public let summary: String
    /// The argument after the TV, as the usage line shows it (`up|down|mute|LEVEL`).
    public let argument: String
    /// What more `photon help NAME` says.
    public let details: String
    public let examples: [String]
    /// The capabilities (by the names `photon status` shows) a TV needs for this command;
    /// where there are several, each form of the command needs one of them.
    public let capabilities: [String]
    /// Fixed values the completion scripts offer for the argument.
    public let completions: [String]
    /// Whether the argument is free text, kept exactly as written (spaces and line ends
    /// included: a payload on a Home Assistant topic is not trimmed), rather than a word
    /// or name read without the spaces around it.
    public let takesFreeText: Bool
    /// Whether the small `photon` front end sends it through a running daemon itself.
    public let fastPath: Bool
    /// Whether `photon NAME TV ARGUMENT` is derived from this entry alone; false where the
    /// CLI adds more (several keys and holds, listing inputs or channels, recording voice).
    public let derivedCommandLine: Bool
    /// The list (by `TVListKind`'s name) that shows the argument's choices on a TV:
    /// without an argument, the derived command lists them.
    public let listKind: String?
    /// Whether the TV reports this setting's value (a `setting` event named like the
    /// command, a field of that name in status, the state of its Home Assistant entity).
    public let reportsState: Bool
    public let homeAssistant: HomeAssistantEntity?
    /// The JSON Schema of the command object on the wire, for the OpenAPI description.
    public let schema: JSONValue
    let readWords: @Sendable (String) throws -> JSONValue
    let checkWire: @Sendable (JSONValue) throws -> Void

    init(
        name: String, aliases: [String] = [], wireFields: [String]? = nil, summary: String, argument: String, details: String,
        examples: [String], capabilities: [String], completions: [String] = [], takesFreeText: Bool = false, fastPath: Bool = true,
        derivedCommandLine: Bool = true, listKind: String? = nil, reportsState: Bool = false,
        homeAssistant: HomeAssistantEntity? = nil, schema: JSONValue, readWords: @escaping @Sendable (String) throws -> JSONValue,
        checkWire: @escaping @Sendable (JSONValue) throws -> Void
    ) {
        self.name = name
        self.aliases = aliases
        self.wireFields = wireFields ?? [name]
        self.summary = summary
        self.argument = argument
        self.details = details
        self.examples = examples
        self.capabilities = capabilities
        self.completions = completions
        self.takesFreeText = takesFreeText
        self.fastPath = fastPath
        self.derivedCommandLine = derivedCommandLine
        self.listKind = listKind
        self.reportsState = reportsState
        self.homeAssistant = homeAssistant
        self.schema = schema
        self.readWords = readWords
        self.checkWire = checkWire
    }

    /// The wire object for the argument as a person writes it (after the TV on the command
    /// line, after the verb in a macro step, a bare payload on an MQTT entity topic).
    public func wire(fromWords argument: String) throws -> JSONValue {
        let object = try readWords(argument)
        try CommandCatalog.check(wire: object)
        return object
    }

    /// Checks a wire object of this command against the one set of limits.
    public func check(_ object: JSONValue) throws {
        try checkWire(object)
    }
}
