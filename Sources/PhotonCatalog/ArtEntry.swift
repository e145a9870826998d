import PhotonJSON

// The art entry (Samsung's The Frame): one argument of a few words, a verb and its values;
// `ArtCommand` in PhotonCore reads the values, this entry checks the shape every door
// shares. Uploads are not here: an image does not fit a request line.
extension CommandCatalog {
    static let artVerbs = ["on", "off", "show", "delete", "brightness", "matte", "slideshow"]

    static let art = CommandEntry(
        name: "art", summary: "art mode on a TV that shows artwork: on, off, show, delete, brightness, matte, slideshow",
        argument: "on|off|show ID|delete ID|brightness N|matte ID MATTE|slideshow MINUTES|off",
        details: "on shows art with the picture off (the power state `art`); off goes back to TV. show picks an artwork by the id "
            + "`photon art TV` lists (the one shown is marked), delete removes one, matte frames one, brightness is art mode's (0–10), "
            + "slideshow changes the artwork every MINUTES (or off). `photon art TV upload FILE [--matte M]` adds a JPEG or PNG.",
        examples: ["photon art living-room on", "photon art living-room show MY_F0003", "photon art living-room upload holiday.jpg"],
        capabilities: ["art-mode"], completions: artVerbs, derivedCommandLine: false, listKind: "artworks",
        homeAssistant: HomeAssistantEntity(
            topic: "art", platform: "switch", capability: "art-mode", name: "Art mode", icon: "mdi:image-frame",
            settings: [("pl_on", "on"), ("pl_off", "off")]),
        schema: stringSchema(
            "art", minimum: 2, maximum: 200, description: "on, off, show ID, delete ID, brightness N, matte ID MATTE, slideshow MINUTES|off"),
        readWords: { words in
            let parts = words.split(whereSeparator: { $0 == " " || $0 == "\t" })
            let verb = parts.first.map { $0.lowercased() } ?? ""
            return .object([("art", .string(([verb] + parts.dropFirst().map(String.init)).joined(separator: " ")))])
        },
        checkWire: { object in
            guard let words = object["art"]?.stringValue, (2...200).contains(words.utf8.count),
                let verb = words.split(separator: " ").first.map({ $0.lowercased() }), artVerbs.contains(verb)
            else {
                throw CommandGrammarError(
                    "art takes on, off, show ID, delete ID, brightness N, matte ID MATTE or slideshow MINUTES|off",
                    hint: "e.g. {\"art\":\"show MY_F0003\"}")
            }
        })
}
