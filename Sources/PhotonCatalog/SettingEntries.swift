import PhotonJSON

// The entries that choose one of a TV's settings by name: where its audio goes, its
// picture mode, its ambient light. Each takes a standard name every brand with the
// capability maps, or the TV's own name as given, and lists the choices without one.
extension CommandCatalog {
    /// The standard sound outputs every brand with the capability maps to its own ids.
    static let soundOutputNames = ["speaker", "arc", "optical", "bluetooth", "headphone", "lineout"]

    static let sound = CommandEntry(
        name: "sound", summary: "list where the TV's audio goes, or switch it", argument: "speaker|arc|optical|bluetooth|headphone|lineout|OUTPUT",
        details: "A standard name works on every brand with sound outputs; the TV's own id for an output (as the list shows it) is sent as "
            + "given. Without an output, lists the outputs and the one in use.",
        examples: ["photon sound living-room arc", "photon sound living-room speaker", "photon sound living-room"],
        capabilities: ["sound-output"], completions: soundOutputNames,
        listKind: "sound-outputs", reportsState: true,
        homeAssistant: HomeAssistantEntity(
            topic: "sound", platform: "select", capability: "sound-output", name: "Sound output", icon: "mdi:speaker", hasState: true,
            options: .completions),
        schema: stringSchema("sound", minimum: 1, maximum: CommandLimits.nameBytes, description: "a standard output name or the TV's id"),
        readWords: { words in
            let lower = words.lowercased()
            return .object([("sound", .string(soundOutputNames.contains(lower) ? lower : words))])
        },
        checkWire: { try checkName($0["sound"], field: "sound", what: "a sound output") })

    /// The standard picture modes every brand with the capability maps to its own ids.
    static let pictureModeNames = ["vivid", "standard", "cinema", "game", "sports", "custom"]

    static let picture = CommandEntry(
        name: "picture", summary: "list the TV's picture modes, or switch to one", argument: "vivid|standard|cinema|game|sports|custom|MODE",
        details: "A standard name works on every brand with picture modes; the TV's own name for a mode (as the list shows it) is sent as "
            + "given. Without a mode, lists the modes and the one in use.",
        examples: ["photon picture living-room cinema", "photon picture living-room game", "photon picture living-room"],
        capabilities: ["picture-mode"], completions: pictureModeNames,
        listKind: "picture-modes", reportsState: true,
        homeAssistant: HomeAssistantEntity(
            topic: "picture", platform: "select", capability: "picture-mode", name: "Picture mode", icon: "mdi:television-shimmer",
            hasState: true, options: .completions),
        schema: stringSchema(
            "picture", minimum: 1, maximum: CommandLimits.nameBytes, description: "a standard picture mode or the TV's name for one"),
        readWords: { words in
            let lower = words.lowercased()
            return .object([("picture", .string(pictureModeNames.contains(lower) ? lower : words))])
        },
        checkWire: { try checkName($0["picture"], field: "picture", what: "a picture mode") })

    /// Ambilight's standard choices: its power, and the styles every Philips TV has.
    static let ambilightNames = ["on", "off", "follow-video", "follow-audio", "lounge"]

    static let ambilight = CommandEntry(
        name: "ambilight", summary: "list the TV's ambient light styles, switch the light on or off, or choose a style",
        argument: "on|off|follow-video|follow-audio|lounge|STYLE",
        details: "on and off switch the light; a standard style (follow-video, follow-audio, lounge) takes the TV's first setting of it; "
            + "the TV's own STYLE or STYLE/SETTING (as the list shows them) is sent as given. Without an argument, lists the styles and "
            + "the one in use.",
        examples: ["photon ambilight living-room off", "photon ambilight living-room follow-audio", "photon ambilight living-room"],
        capabilities: ["ambilight"], completions: ambilightNames,
        listKind: "ambilight-styles", reportsState: true,
        homeAssistant: HomeAssistantEntity(
            topic: "ambilight", platform: "select", capability: "ambilight", name: "Ambilight", icon: "mdi:television-ambient-light",
            hasState: true, options: .completions),
        schema: stringSchema(
            "ambilight", minimum: 1, maximum: CommandLimits.nameBytes, description: "on, off, a standard style or the TV's own style"),
        readWords: { words in
            let lower = words.lowercased()
            return .object([("ambilight", .string(ambilightNames.contains(lower) ? lower : words))])
        },
        checkWire: { try checkName($0["ambilight"], field: "ambilight", what: "an Ambilight choice") })
}
