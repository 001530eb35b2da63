/// The valid name a mistyped command or option most likely meant, for `did you mean`.
///
/// Only names from the command table are ever suggested, so the message repeats nothing
/// the user typed.
enum NameSuggestion {
    /// The one name among `names` within two edits of `typed` (one, for names of up to
    /// four characters), or the one name `typed` is a start of; nil when none is, when
    /// `typed` starts several names, or when several are equally close.
    static func closest(to typed: String, among names: [String]) -> String? {
        let typed = typed.lowercased()
        guard !typed.isEmpty, typed.count <= 40 else { return nil }
        let starting = names.filter { $0.hasPrefix(typed) }
        if !starting.isEmpty { return starting.count == 1 ? starting[0] : nil }
        var best: [String] = []
        var bestDistance = Int.max
        for name in names {
            let distance = editDistance(typed, name)
            guard distance <= (name.count <= 4 ? 1 : 2) else { continue }
            if distance < bestDistance { (best, bestDistance) = ([name], distance) } else if distance == bestDistance { best.append(name) }
        }
        return best.count == 1 ? best[0] : nil
    }

    /// Damerau–Levenshtein distance (optimal string alignment): insertions, deletions,
    /// substitutions, and swaps of two neighbours (`serach`), each one edit.
    static func editDistance(_ first: String, _ second: String) -> Int {
        let a = Array(first), b = Array(second)
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = i }
        for j in 0...b.count { table[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1)
                }
            }
        }
        return table[a.count][b.count]
    }
}
