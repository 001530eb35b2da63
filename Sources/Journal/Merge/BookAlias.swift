/// How a book is named for finding it again: the aliases an import records and `book alias`
/// gives, each a folded form (case, accents, punctuation and spacing aside), so that every
/// spelling of one title finds one book.
public enum BookAlias {
    /// The alias a title gives (`book alias`): `title:` and its words, folded.
    public static func title(_ title: String) -> String {
        self.title(folded: TextFolding.fold(title))
    }

    /// ``title(_:)`` of a title already folded (``TextFolding/fold(_:)``): a caller that
    /// needs the folded title too folds it once.
    public static func title(folded: String) -> String {
        "title:" + words(ofFolded: folded).joined(separator: " ")
    }

    /// The alias an import records: the title's and the authors' words (the authors' in any
    /// order: Kindle writes `Herbert, Frank`), so a book of the same title by someone else
    /// is not taken for it.
    public static func titleAndAuthors(_ title: String, authors: [String]) -> String {
        titleAndAuthors(titleAlias: Self.title(title), authors: authors)
    }

    /// ``titleAndAuthors(_:authors:)`` from the title's alias (``title(_:)``), folded once.
    public static func titleAndAuthors(titleAlias: String, authors: [String]) -> String {
        titleAlias + " by:" + words(authors.joined(separator: " ")).sorted().joined(separator: " ")
    }

    private static func words(_ text: String) -> [Substring] {
        words(ofFolded: TextFolding.fold(text))
    }

    private static func words(ofFolded folded: String) -> [Substring] {
        // ASCII (most titles): a character is a byte, a letter or number one of [a-z0-9] once
        // folded; split by bytes, the same words as by characters, without the characters'
        // properties looked up.
        if folded.utf8.allSatisfy({ $0 < 0x80 }) {
            return folded.utf8.split { !(0x61...0x7A).contains($0) && !(0x30...0x39).contains($0) && !(0x41...0x5A).contains($0) }
                .map { Substring($0) }
        }
        return folded.split { !$0.isLetter && !$0.isNumber }
    }
}
