import Journal

/// What the editor opens: the text, then lines saying what is being written, which are
/// removed again (git's convention for commit messages).
///
/// Only lines starting with `# bmvault:` are removed, not every line starting with `#`:
/// a note is Markdown, and the reader's own `# Heading` must survive an edit.
struct EditorBuffer {
    static let commentPrefix = "# bmvault:"

    let text: String
    let kind: AnnotationKind
    /// The book's title, shown in the buffer (a private, shredded file) to say where the
    /// text goes.
    let bookTitle: String?
    let locator: String?

    /// `quote.md` or `note.md`: an editor picks its mode from the name.
    var fileName: String { "\(kind.rawValue).md" }

    /// The text, a blank line, and the comment lines.
    var contents: String {
        var place = bookTitle.map { " on \"\($0)\"" } ?? ""
        if let locator { place += " at \(locator)" }
        let body = text.isEmpty || text.hasSuffix("\n") ? text : text + "\n"
        return body + "\n"
            + "\(Self.commentPrefix) a \(kind.rawValue)\(place). Lines starting with \"\(Self.commentPrefix)\" are removed.\n"
            + "\(Self.commentPrefix) Save an empty \(kind.rawValue) (or quit without saving) to cancel; nothing is kept.\n"
    }

    /// `saved` without the comment lines.
    func text(from saved: String) -> String {
        saved.split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.hasPrefix(Self.commentPrefix) }
            .joined(separator: "\n")
    }
}
