import Journal

/// Writes one book's Markdown file (format version 1): YAML front matter, a heading, the
/// reading sessions, then every live note and quote in the order given (the exporter
/// gives the order they were written). Each session, note and quote carries its id in an
/// HTML comment marker, invisible when rendered and kept by editors; notes and quotes are
/// closed by an end marker, so their text may span paragraphs and anything the reader adds
/// between them is recognisably new. Layout and markers: Docs/EXPORT-FORMAT.md.
final class BookMarkdownWriter {
    private let file: ArchiveFile

    init(file: ArchiveFile, book: Book, sessions: [ReadingSession]) {
        self.file = file
        var text = "---\n\(ArchiveFormat.markdownVersionKey): \(ArchiveFormat.currentVersion)\nid: \(book.id)\n"
        text += "title: \(MarkdownText.yamlString(book.title))\n"
        text += book.authors.isEmpty ? "authors: []\n"
            : "authors:\n" + book.authors.map { "  - \(MarkdownText.yamlString($0))\n" }.joined()
        text += "progress: \(JSONText.number(book.progress))\n"
        text += "created: \(book.createdAt.iso8601)\nupdated: \(book.updatedAt.iso8601)\nversion: \(book.version)\n---\n\n"
        text += "# \(MarkdownText.inline(book.title))\n\n"
        var byline = book.authors.isEmpty ? "" : "by " + book.authors.map(MarkdownText.inline).joined(separator: ", ") + " · "
        byline += "\(JSONText.number(book.progress))% read"
        text += byline + "\n\n## Sessions\n\n"
        for session in sessions {
            text += "- \(session.startedAt.iso8601) to \(session.endedAt.iso8601), \(session.pagesRead) "
                + (session.pagesRead == 1 ? "page" : "pages")
                + " <!-- bmvault:session \(session.id) started=\(session.startedAt.iso8601) ended=\(session.endedAt.iso8601) pages=\(session.pagesRead) -->\n"
        }
        if sessions.isEmpty { text += "None recorded.\n" }
        text += "\n## Notes and quotes\n"
        file.write(text)
    }

    /// Adds a live note or quote (tombstones stay in journal.json only).
    func write(_ annotation: Annotation) {
        let kind = annotation.kind.rawValue
        var marker = "<!-- bmvault:\(kind) \(annotation.id) created=\(annotation.createdAt.iso8601) updated=\(annotation.updatedAt.iso8601) version=\(annotation.version)"
        if let original = annotation.conflictOf { marker += " conflict-of=\(original)" }
        if let reason = annotation.conflictReason { marker += " conflict=\(reason.rawValue)" }
        var text = "\n" + marker + " -->\n"
        let lines = MarkdownText.bodyLines(annotation.body)
        let locatorLine = annotation.locator.map { "— " + MarkdownText.inline($0.text) }
        switch annotation.kind {
        case .note:
            text += lines.joined(separator: "\n") + "\n"
            if let locatorLine { text += "\n" + locatorLine + "\n" }
        case .quote:
            text += lines.map { $0.isEmpty ? ">" : "> " + $0 }.joined(separator: "\n") + "\n"
            if let locatorLine { text += ">\n> " + locatorLine + "\n" }
        }
        text += "<!-- /bmvault:\(kind) -->\n"
        file.write(text)
    }

    func finish() throws(ArchiveError) -> ArchiveFileEntry {
        try file.finish()
    }
}
