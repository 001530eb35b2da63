import Foundation
import Journal
import VaultStore

/// How a reader names a book on the command line: a full id, a unique id prefix (at least
/// ``minimumPrefix`` characters), or a unique case-insensitive title prefix. An exact
/// title beats prefixes, so "Dune" still names *Dune* next to *Dune Messiah*.
enum BookReference {
    static let minimumPrefix = 4

    /// The id of the book `reference` names among `titles` (live books).
    ///
    /// Titles are compared as the index holds them, lowercased (`folded`, kept in the title
    /// cache), from their bytes wherever the bytes decide (``compare(_:withPrintableASCII:)``):
    /// this runs over every book for every BOOK argument, and only the books it names, or a
    /// title the bytes cannot decide, become values.
    static func resolve(_ reference: String, in titles: BookTitleIndex) throws(VaultError) -> EntityID {
        let typed = reference.trimmingCharacters(in: .whitespaces)
        guard !typed.isEmpty else { throw .bookNotFound }
        let lowered = typed.lowercased()
        let typedBytes = Array(lowered.utf8)
        let bytesCanDecide = typedBytes.allSatisfy { (0x20...0x7E).contains($0) }
        let mayBeID = typed.count >= minimumPrefix && EntityID.isPossiblePrefix(typed)
        var exactTitles: [Int] = []
        var prefixed: [Int] = []
        var idPrefixed: [Int] = []
        for index in 0..<titles.count {
            let (idMatch, verdict) = titles.withBytes(at: index) { id, folded -> (Verdict, Verdict) in
                (mayBeID || typedBytes.count == id.count ? compare(id, withPrintableASCII: typedBytes) : .neither,
                 bytesCanDecide ? compare(folded, withPrintableASCII: typedBytes) : .undecided)
            }
            if idMatch == .equal { return try id(at: index, in: titles) }
            if mayBeID, idMatch == .prefix { idPrefixed.append(index) }
            let folded = verdict == .undecided ? titles.folded(at: index) : nil
            if verdict == .equal || folded == lowered { exactTitles.append(index) }
            if verdict == .equal || verdict == .prefix || folded?.hasPrefix(lowered) == true { prefixed.append(index) }
        }
        if exactTitles.count == 1 { return try id(at: exactTitles[0], in: titles) }

        var candidates = exactTitles.isEmpty ? prefixed : exactTitles
        for index in idPrefixed where !candidates.contains(index) { candidates.append(index) }
        switch candidates.count {
        case 0: throw .bookNotFound
        case 1: return try id(at: candidates[0], in: titles)
        default:
            var ids: [String] = []
            for index in candidates { ids.append(try id(at: index, in: titles).rawValue) }
            throw .ambiguousBook(candidates: ids.sorted())
        }
    }

    private static func id(at index: Int, in titles: BookTitleIndex) throws(VaultError) -> EntityID {
        do { return try titles.id(at: index) } catch { throw VaultError(error) }
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
    static func compare(_ title: UnsafeBufferPointer<UInt8>, withPrintableASCII typed: [UInt8]) -> Verdict {
        var index = 0
        while true {
            guard index < title.count else { return index == typed.count ? .equal : .neither }
            let byte = title[index]
            guard index < typed.count else { return byte < 0x80 ? .prefix : .undecided }
            if byte != typed[index] { return byte < 0x80 ? .neither : .undecided }
            index += 1
        }
    }
}
