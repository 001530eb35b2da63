/// How a book is named for finding it again: the aliases an import records and `book alias`
/// gives, each a folded form (case, accents, punctuation and spacing aside), so that every
/// spelling of one title finds one book.
public enum BookAlias {
    /// The alias a title gives (`book alias`): `title:` and its words, folded.
    public static func title(_ title: String) -> String {
        "title:" + words(title).joined(separator: " ")
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
        TextFolding.fold(text).split { !$0.isLetter && !$0.isNumber }
    }
}
