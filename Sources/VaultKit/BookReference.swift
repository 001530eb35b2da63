import Foundation
import Journal
import VaultStore

/// How a reader names a book on the command line, tried in this order:
/// 1. a full id;
/// 2. its whole title, folded (``TextFolding``: no case, no accents), so "Dune" names
///    *Dune* next to *Dune Messiah*;
/// 3. a short id (``ShortID``), the form listings show;
/// 4. a unique id prefix (at least ``minimumPrefix`` characters) or title prefix;
/// 5. a unique folded substring of the title or of an author ("messiah", "herbert").
///
/// The first step that finds anything decides: one book is named, several are ambiguous
/// (``VaultError/ambiguousBook(candidates:)``, which a terminal turns into a choice).
enum BookReference {
    static let minimumPrefix = 4

    /// The id of the book `reference` names among `titles` (live books), or the
    /// candidates' indexes in `titles` when it names several.
    ///
    /// Titles are compared as the index holds them, folded, from their bytes wherever the
    /// bytes decide (``compare(_:withPrintableASCII:)``): this runs over every book for
    /// every BOOK argument, and only the books it names, or a title the bytes cannot
    /// decide, become values.
    static func resolve(_ reference: String, in titles: BookTitleIndex) throws(VaultError) -> Match {
        let typed = reference.trimmingCharacters(in: .whitespaces)
        guard !typed.isEmpty else { throw .bookNotFound }
        let folded = TextFolding.fold(typed)
        let typedBytes = Array(folded.utf8)
        let bytesCanDecide = typedBytes.allSatisfy { (0x20...0x7E).contains($0) }
        let mayBeID = typed.count >= minimumPrefix && EntityID.isPossiblePrefix(typed)
        let typedID = Array(typed.lowercased().utf8)
        let mayBeShortID = ShortID.isPossible(typed.lowercased())
        var shortIDs: [Int] = []
        var exactTitles: [Int] = []
        var prefixed: [Int] = []
        var idPrefixed: [Int] = []
        for index in 0..<titles.count {
            let (idMatch, verdict, isShortID) = titles.withBytes(at: index) { id, title, _ -> (Verdict, Verdict, Bool) in
                (mayBeID || typedID.count == id.count ? compare(id, withPrintableASCII: typedID) : .neither,
                 bytesCanDecide ? compare(title, withPrintableASCII: typedBytes) : .undecided,
                 mayBeShortID && ShortID.randomPart(ofStored: id, startsWith: typedID))
            }
            if idMatch == .equal { return .one(try id(at: index, in: titles)) }
            if isShortID { shortIDs.append(index) }
            if mayBeID, idMatch == .prefix { idPrefixed.append(index) }
            let title = verdict == .undecided ? titles.folded(at: index) : nil
            if verdict == .equal || title == folded { exactTitles.append(index) }
            if verdict == .equal || verdict == .prefix || title?.hasPrefix(folded) == true { prefixed.append(index) }
        }
        if exactTitles.count == 1 { return .one(try id(at: exactTitles[0], in: titles)) }
        if exactTitles.isEmpty, shortIDs.count == 1 { return .one(try id(at: shortIDs[0], in: titles)) }

        var candidates = exactTitles.isEmpty ? prefixed : exactTitles
        for index in idPrefixed where !candidates.contains(index) { candidates.append(index) }
        if candidates.isEmpty {
            for index in 0..<titles.count where titles.withBytes(at: index, { _, title, authors in
                contains(title, typedBytes) || contains(authors, typedBytes)
            }) {
                candidates.append(index)
            }
        }
        switch candidates.count {
        case 0: throw .bookNotFound
        case 1: return .one(try id(at: candidates[0], in: titles))
        default: return .several(candidates)
        }
    }

    /// What a BOOK argument named.
    enum Match: Equatable {
        case one(EntityID)
        /// Indexes in the title index, in library order.
        case several([Int])
    }

    /// Whether `text` holds `part` (both folded UTF-8). A title or author is short, so a
    /// plain scan does.
    private static func contains(_ text: UnsafeBufferPointer<UInt8>, _ part: [UInt8]) -> Bool {
        guard !part.isEmpty, part.count <= text.count else { return false }
        for start in 0...(text.count - part.count) where text[start] == part[0] {
            if text[start..<(start + part.count)].elementsEqual(part) { return true }
        }
        return false
    }

    private static func id(at index: Int, in titles: BookTitleIndex) throws(VaultError) -> EntityID {
        do { return try titles.id(at: index) } catch { throw .storage(error) }
    }

    /// How a folded title (or an id) compares with a typed argument as characters (`==`,
    /// `hasPrefix`), told from the bytes where they decide it.
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
