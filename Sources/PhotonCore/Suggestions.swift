/// "Did you mean …?" for a mistyped command, option, key or TV name: the closest
/// candidate by edit distance, or the only one the word begins.
public enum Suggestions {
    /// The candidate closest to `word` (at most a third of its letters off, at least two),
    /// or the one candidate it begins; nil when none is close.
    public static func closest(to word: String, in candidates: [String]) -> String? {
        let scored = candidates.map { ($0, distance(word.lowercased(), $0.lowercased())) }.sorted { $0.1 < $1.1 }
        guard let best = scored.first else { return nil }
        let limit = max(2, word.count / 3)
        if best.1 <= limit { return best.0 }
        // A unique prefix also counts (`ident` → `identity`).
        let prefixed = candidates.filter { $0.hasPrefix(word) && !word.isEmpty }
        return prefixed.count == 1 ? prefixed[0] : nil
    }

    /// Levenshtein distance.
    public static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
