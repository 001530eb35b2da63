import Foundation
import Journal
import VaultStore

/// How a reader names a book on the command line: a full id, a unique id prefix (at least
/// ``minimumPrefix`` characters), or a unique case-insensitive title prefix. An exact
/// title beats prefixes, so "Dune" still names *Dune* next to *Dune Messiah*.
enum BookReference {
    static let minimumPrefix = 4

    /// The id of the book `reference` names among `titles` (live books).
    static func resolve(_ reference: String, in titles: [BookTitle]) throws(VaultError) -> EntityID {
        let typed = reference.trimmingCharacters(in: .whitespaces)
        guard !typed.isEmpty else { throw .bookNotFound }
        let lowered = typed.lowercased()
        if let exact = titles.first(where: { $0.id.rawValue == lowered }) { return exact.id }

        // Titles come lowercased (`folded`, kept in the title cache): this runs over every
        // book for every BOOK argument.
        let folded = titles.map { (id: $0.id, title: $0.folded) }
        let exactTitles = folded.filter { $0.title == lowered }.map(\.id)
        if exactTitles.count == 1 { return exactTitles[0] }

        var candidates = exactTitles.isEmpty ? folded.filter { $0.title.hasPrefix(lowered) }.map(\.id) : exactTitles
        if typed.count >= minimumPrefix, EntityID.isPossiblePrefix(typed) {
            for title in folded where title.id.rawValue.hasPrefix(lowered) && !candidates.contains(title.id) {
                candidates.append(title.id)
            }
        }
        switch candidates.count {
        case 0: throw .bookNotFound
        case 1: return candidates[0]
        default: throw .ambiguousBook(candidates: candidates.map(\.rawValue).sorted())
        }
    }
}
