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
        let typedBytes = Array(lowered.utf8)
        let bytesCanDecide = typedBytes.allSatisfy { (0x20...0x7E).contains($0) }
        var exactTitles: [EntityID] = []
        var prefixed: [EntityID] = []
        for title in titles {
            let verdict = bytesCanDecide ? Self.compare(title.folded, withPrintableASCII: typedBytes) : .undecided
            let (isEqual, hasPrefix) = verdict == .undecided
                ? (title.folded == lowered, title.folded.hasPrefix(lowered))
                : (verdict == .equal, verdict != .neither)
            if isEqual { exactTitles.append(title.id) }
            if hasPrefix { prefixed.append(title.id) }
        }
        if exactTitles.count == 1 { return exactTitles[0] }

        var candidates = exactTitles.isEmpty ? prefixed : exactTitles
        if typed.count >= minimumPrefix, EntityID.isPossiblePrefix(typed) {
            for title in titles where title.id.rawValue.hasPrefix(lowered) && !candidates.contains(title.id) {
                candidates.append(title.id)
            }
        }
        switch candidates.count {
        case 0: throw .bookNotFound
        case 1: return candidates[0]
        default: throw .ambiguousBook(candidates: candidates.map(\.rawValue).sorted())
        }
    }

    /// How a title compares with a typed argument as characters (`==`, `hasPrefix`), told
    /// from the bytes where they decide it.
    enum Verdict { case equal, prefix, neither, undecided }

    /// `typed` is printable ASCII. Up to the first difference both are then ASCII, and an
    /// ASCII character is never canonically equivalent to another, nor joined to the one
    /// before it (a line feed after a carriage return aside, and `typed` has neither): so a
    /// difference at an ASCII byte of `title` decides, and so does an ASCII byte after a
    /// whole match. A non-ASCII byte there (a combining accent, or a character such as
    /// U+037E that is canonically ";") leaves it to String comparison.
    ///
    /// why: every generated title has an em dash, so `hasPrefix` never took String's ASCII
    /// path and compared all 2,000 titles character by character for each `note add`.
    static func compare(_ title: String, withPrintableASCII typed: [UInt8]) -> Verdict {
        title.utf8.withContiguousStorageIfAvailable { title -> Verdict in
            var index = 0
            while true {
                guard index < title.count else { return index == typed.count ? .equal : .neither }
                let byte = title[index]
                guard index < typed.count else { return byte < 0x80 ? .prefix : .undecided }
                if byte != typed[index] { return byte < 0x80 ? .neither : .undecided }
                index += 1
            }
        } ?? .undecided
    }
}
