import Foundation
import Journal
import VaultStore

/// How a reader names a book on the command line: a full id, a unique id prefix (at least
/// ``minimumPrefix`` characters), or a unique case-insensitive title prefix. An exact
/// title beats prefixes, so "Dune" still names *Dune* next to *Dune Messiah*.
enum BookReference {
    static let minimumPrefix = 4

    static func resolve(_ reference: String, in books: [Book]) throws(VaultError) -> Book {
        let typed = reference.trimmingCharacters(in: .whitespaces)
        guard !typed.isEmpty else { throw .bookNotFound }
        let lowered = typed.lowercased()
        if let exact = books.first(where: { $0.id.rawValue == lowered }) { return exact }

        let exactTitles = books.filter { $0.title.lowercased() == lowered }
        if exactTitles.count == 1 { return exactTitles[0] }

        var candidates = exactTitles.isEmpty ? books.filter { $0.title.lowercased().hasPrefix(lowered) } : exactTitles
        if typed.count >= minimumPrefix, EntityID.isPossiblePrefix(typed) {
            for book in books where book.id.rawValue.hasPrefix(lowered) && !candidates.contains(book) {
                candidates.append(book)
            }
        }
        switch candidates.count {
        case 0: throw .bookNotFound
        case 1: return candidates[0]
        default: throw .ambiguousBook(candidates: candidates.map(\.id.rawValue).sorted())
        }
    }
}
