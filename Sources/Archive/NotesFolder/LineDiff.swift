/// A unified diff of two texts, line by line (Myers' algorithm): what `--show-edits` prints
/// for a note the reader edited, between the note as it is and as bmvault would write it.
enum LineDiff {
    enum Operation: Equatable {
        case same(String), removed(String), added(String)
    }

    /// The operations that turn `old` into `new`, fewest changes first.
    static func operations(_ old: [String], _ new: [String]) -> [Operation] {
        let n = old.count, m = new.count
        let maximum = n + m
        guard maximum > 0 else { return [] }
        var frontier = [Int](repeating: 0, count: 2 * maximum + 2)
        var trace: [[Int]] = []
        var found = false
        for d in 0...maximum {
            trace.append(frontier)
            var k = -d
            while k <= d {
                var x: Int
                if k == -d || (k != d && frontier[k - 1 + maximum] < frontier[k + 1 + maximum]) {
                    x = frontier[k + 1 + maximum]
                } else {
                    x = frontier[k - 1 + maximum] + 1
                }
                var y = x - k
                while x < n, y < m, old[x] == new[y] {
                    x += 1
                    y += 1
                }
                frontier[k + maximum] = x
                if x >= n && y >= m {
                    found = true
                    break
                }
                k += 2
            }
            if found { break }
        }
        // Walk back through the frontiers.
        var operations: [Operation] = []
        var x = n, y = m
        for d in stride(from: trace.count - 1, through: 0, by: -1) {
            let frontier = trace[d]
            let k = x - y
            let previousK: Int
            if k == -d || (k != d && frontier[k - 1 + maximum] < frontier[k + 1 + maximum]) {
                previousK = k + 1
            } else {
                previousK = k - 1
            }
            let previousX = d == 0 ? 0 : frontier[previousK + maximum]
            let previousY = previousX - previousK
            while x > previousX && y > previousY && x > 0 && y > 0 {
                operations.append(.same(old[x - 1]))
                x -= 1
                y -= 1
            }
            if d > 0 {
                if x == previousX {
                    operations.append(.added(new[y - 1]))
                    y -= 1
                } else {
                    operations.append(.removed(old[x - 1]))
                    x -= 1
                }
            }
        }
        while x > 0 && y > 0 {
            operations.append(.same(old[x - 1]))
            x -= 1
            y -= 1
        }
        return operations.reversed()
    }

    /// `--- a`, `+++ b`, then `@@ -l,s +l,s @@` hunks with `context` lines around each change;
    /// empty when the texts are the same.
    static func unified(old: String, new: String, oldName: String, newName: String, context: Int = 3) -> String {
        func lines(_ text: String) -> [String] {
            var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            if lines.last == "" { lines.removeLast() }
            return lines
        }
        let operations = operations(lines(old), lines(new))
        guard operations.contains(where: { if case .same = $0 { false } else { true } }) else { return "" }
        var text = "--- \(oldName)\n+++ \(newName)\n"
        // Which operations are shown: each change and `context` lines either side.
        var shown = [Bool](repeating: false, count: operations.count)
        for (index, operation) in operations.enumerated() {
            if case .same = operation { continue }
            for near in max(0, index - context)...min(operations.count - 1, index + context) { shown[near] = true }
        }
        var index = 0
        var oldLine = 1, newLine = 1
        while index < operations.count {
            guard shown[index] else {
                if case .same = operations[index] { oldLine += 1; newLine += 1 }
                index += 1
                continue
            }
            var end = index
            while end < operations.count && shown[end] { end += 1 }
            var body = ""
            var oldCount = 0, newCount = 0
            for operation in operations[index..<end] {
                switch operation {
                case .same(let line): body += " \(line)\n"; oldCount += 1; newCount += 1
                case .removed(let line): body += "-\(line)\n"; oldCount += 1
                case .added(let line): body += "+\(line)\n"; newCount += 1
                }
            }
            text += "@@ -\(oldCount == 0 ? oldLine - 1 : oldLine),\(oldCount) +\(newCount == 0 ? newLine - 1 : newLine),\(newCount) @@\n" + body
            oldLine += oldCount
            newLine += newCount
            index = end
        }
        return text
    }
}
