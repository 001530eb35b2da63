import Journal
import VaultKit

/// At a terminal, a BOOK argument that names several books becomes a question: the
/// candidates, numbered, with title and authors, and the reader types a number. The list
/// goes to the person at the terminal only; off a terminal the error names ids alone
/// (Docs/SECURITY.md: standard error is often kept in logs).
enum BookChoice {
    /// `name`: how each candidate's id is shown (its short id).
    static func ask(_ candidates: [BookCandidate], name: (EntityID) -> String, console: Console) -> EntityID? {
        var text = "BOOK names \(candidates.count) books:\n"
        for (number, candidate) in candidates.enumerated() {
            let authors = candidate.authors.isEmpty ? "" : " — " + HumanFormat.printable(candidate.authors.joined(separator: ", "))
            text += "  \(number + 1)  \(HumanFormat.printable(candidate.title))\(authors)  (\(name(candidate.id)))\n"
        }
        console.err(text + "Which one? [1-\(candidates.count), or Enter for none]: ")
        guard let line = readLine(), let number = Int(line.trimmingCharacters(in: .whitespaces)),
              candidates.indices.contains(number - 1) else { return nil }
        return candidates[number - 1].id
    }
}
