import PhotonCore

/// `photon keys`: the brand-neutral key names and each adapter's code for them.
enum KeysCommand {
    static let spec = CommandSpec(
        ["keys"], summary: "list key names and what each adapter maps them to",
        options: [OptionSpec("brand", value: "BRAND", help: "only this adapter's column")],
        details: """
            Key names are the brand-neutral names `photon key` accepts. Each registered
            adapter's column shows its code for the key ('-' where it has none: sending that
            key to such a TV fails with exit 6). `--raw` on `photon key` passes brand codes.
            """,
        examples: ["photon keys", "photon keys --brand BRAND --json"],
        run: run)

    static func run(_ parsed: ParsedCommand, _ context: CLIContext) async throws -> Int32 {
        var adapters = context.registry.adapters
        if let brand = parsed.value("brand") { adapters = [try context.registry.adapter(id: brand)] }
        let tables = adapters.map { adapter in
            (adapter.id, Dictionary(adapter.keyTable.map { ($0.key, $0.code) }, uniquingKeysWith: { a, _ in a }))
        }
        if context.json {
            for key in RemoteKey.allCases {
                context.emit(
                    .object([("key", .string(key.rawValue))] + tables.map { ($0.0, .optional($0.1[key])) }), text: nil)
            }
            return 0
        }
        let rows = [["KEY"] + tables.map(\.0)] + RemoteKey.allCases.map { key in [key.rawValue] + tables.map { $0.1[key] ?? "-" } }
        context.terminal.write(Table.render(rows))
        if adapters.isEmpty {
            context.note("note: no brand adapter is built into this version yet, so there are no codes to show.")
        }
        return 0
    }
}
