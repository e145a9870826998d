/// The MQTT bridge's commands waiting for their TVs: one chain per paired TV, its
/// commands run one at a time in arrival order, at most `limit` waiting (one more is
/// refused at once, never queued), and a chain forgotten as soon as it drains. Keyed by
/// device id, never by what a publisher put in a topic: whatever anyone publishes, the
/// bridge holds at most `limit` commands per paired TV.
struct MQTTCommandChains {
    let limit: Int
    private var chains: [String: (tail: Task<Void, Never>, waiting: Int)] = [:]

    init(limit: Int) {
        precondition(limit > 0, "a chain holds at least one command")
        self.limit = limit
    }

    /// Starts `work` after the TV's waiting commands, or returns false (and starts
    /// nothing) when `limit` are already waiting. `work` must call `finished(_:)` last.
    mutating func enqueue(_ tv: String, _ work: @escaping @Sendable () async -> Void) -> Bool {
        let current = chains[tv]
        guard (current?.waiting ?? 0) < limit else { return false }
        let previous = current?.tail
        let task = Task {
            await previous?.value
            await work()
        }
        chains[tv] = (task, (current?.waiting ?? 0) + 1)
        return true
    }

    /// One of the TV's commands is done; a drained chain is forgotten.
    mutating func finished(_ tv: String) {
        guard let chain = chains[tv] else { return }
        if chain.waiting <= 1 {
            chains[tv] = nil
        } else {
            chains[tv] = (chain.tail, chain.waiting - 1)
        }
    }

    /// How many commands wait for `tv` (the running one included).
    func waiting(for tv: String) -> Int { chains[tv]?.waiting ?? 0 }
    /// How many TVs have commands waiting.
    var count: Int { chains.count }
}
