import Journal

/// Writes one book's Markdown file (format version 2): YAML front matter, a heading, the
/// reading sessions, then every live note and quote in the order given (the exporter
/// gives the order they were written), each under a heading that shows its kind and date
/// (and what a conflict copy is). Each session, note and quote carries its id in an HTML
/// comment marker, invisible when rendered and kept by editors; notes and quotes are
/// closed by an end marker, so their text may span paragraphs and anything the reader adds
/// between them is recognisably new. Their text is the reader's Markdown as written
/// (``MarkdownBody``). Layout and markers: Docs/EXPORT-FORMAT.md.
///
/// The text is made on the ``BackgroundWriter`` thread, ``batchSize`` notes at a time, so
/// the exporting thread only decrypts them: the two threads share the work.
final class BookMarkdownWriter {
    static let batchSize = 256

    private let file: ArchiveFile
    private var pending: [Annotation] = []

    init(file: ArchiveFile, book: Book, sessions: [ReadingSession], tags: [String], files: [ArchiveBookFile]) {
        self.file = file
        file.appendOnWriterThread { out in Self.appendHeader(book, sessions: sessions, tags: tags, files: files, to: &out) }
    }

    /// `epub, 1002 bytes, sha256:4b42..., files/dune-1a2b3c4d.epub`: a book file in one line.
    private static func describe(_ file: ArchiveBookFile) -> String {
        "\(file.format), \(file.size) bytes, sha256:\(file.sha256)" + (file.path.map { ", " + $0 } ?? "")
    }

    /// Adds a live note or quote (tombstones stay in journal.json only).
    func write(_ annotation: Annotation) {
        pending.append(annotation)
        if pending.count == Self.batchSize { handOver() }
    }

    func finish() -> FileSink {
        handOver()
        return file.finish()
    }

    private func handOver() {
        guard !pending.isEmpty else { return }
        let batch = pending
        pending.removeAll(keepingCapacity: true)
        file.appendOnWriterThread { out in
            for annotation in batch { Self.append(annotation, to: &out) }
        }
    }

    private static func appendHeader(_ book: Book, sessions: [ReadingSession], tags: [String], files: [ArchiveBookFile],
                                     to out: inout [UInt8]) {
        var text = "---\n\(ArchiveFormat.markdownVersionKey): \(ArchiveFormat.currentVersion)\nid: \(book.id)\n"
        text += "title: \(MarkdownText.yamlString(book.title))\n"
        // Shown, not read back: the title again, for a note tool's [[Title]] links, since
        // the file is named by its slug and id.
        text += "aliases:\n  - \(MarkdownText.yamlString(book.title))\n"
        text += book.authors.isEmpty ? "authors: []\n"
            : "authors:\n" + book.authors.map { "  - \(MarkdownText.yamlString($0))\n" }.joined()
        text += "progress: \(JSONText.number(book.progress))\n"
        // The status is shown, not read back: journal.json's reading log is the record of it.
        if let status = book.readingLog.status { text += "status: \(status.rawValue)\n" }
        if let rating = book.rating { text += "rating: \(JSONText.number(rating))\n" }
        if let isbn = book.edition.isbn { text += "isbn: \(MarkdownText.yamlString(isbn))\n" }
        if let year = book.edition.year { text += "year: \(year)\n" }
        if let pages = book.edition.pages { text += "pages: \(pages)\n" }
        // Shown, not read back, like the status: journal.json's `tags` are their record.
        if !tags.isEmpty { text += "tags:\n" + tags.map { "  - \(MarkdownText.yamlString($0))\n" }.joined() }
        // Shown, not read back: journal.json's `files` are their record (bmvault 0.17).
        if !files.isEmpty { text += "files:\n" + files.map { "  - \(MarkdownText.yamlString(Self.describe($0)))\n" }.joined() }
        text += "created: \(book.createdAt.iso8601)\nupdated: \(book.updatedAt.iso8601)\nversion: \(book.version)\n---\n\n"
        text += "# \(MarkdownText.inline(book.title))\n\n"
        var byline = book.authors.isEmpty ? "" : "by " + book.authors.map(MarkdownText.inline).joined(separator: ", ") + " · "
        // Shown, not read back (the front matter and journal.json hold the record): as a
        // person reads it, the percent to a tenth and the status's local day.
        byline += "\(LocalTimeText.percent(book.progress)) read"
        if let status = book.readingLog.status {
            byline += " · \(status.rawValue)" + (book.readingLog.statusSince.map { " since " + LocalTimeText.day($0) } ?? "")
        }
        if let rating = book.rating { byline += " · \(JSONText.number(rating))/5" }
        if !tags.isEmpty { byline += " · " + tags.map { MarkdownText.inline("#" + $0) }.joined(separator: " ") }
        text += byline + "\n\n## Sessions\n\n"
        out.append(contentsOf: text.utf8)
        for session in sessions { append(session, to: &out) }
        if sessions.isEmpty { out.append(ascii: "None recorded.\n") }
        out.append(ascii: "\n## Notes and quotes\n")
    }

    /// `- 2026-12-03 09:05–10:35 (+01:00), 1 h 30 min, 20 pages <!-- bmvault:session ID
    /// started=START ended=END pages=N -->`: local times with their offset and the
    /// duration for the reader, the exact UTC times in the marker, which is all an import
    /// reads of the line. A session an import recorded says where from, after its pages
    /// (`20 pages (koreader)`) and in the marker (`source=koreader`). Appended as bytes (a
    /// journal has tens of thousands of sessions).
    private static func append(_ session: ReadingSession, to out: inout [UInt8]) {
        let pages = String(session.pagesRead)
        let start = LocalTimeText.minute(session.startedAt), end = LocalTimeText.minute(session.endedAt)
        out.append(ascii: "- ")
        out.append(contentsOf: start.utf8)
        out.append(contentsOf: "–".utf8)
        out.append(contentsOf: (start.prefix(10) == end.prefix(10) ? String(end.dropFirst(11)) : end).utf8)
        out.append(contentsOf: " (\(LocalTimeText.offset(session.startedAt))), \(LocalTimeText.duration(from: session.startedAt, to: session.endedAt)), ".utf8)
        out.append(contentsOf: pages.utf8)
        out.append(ascii: session.pagesRead == 1 ? " page" : " pages")
        if let source = session.source {
            out.append(ascii: " (")
            out.append(contentsOf: source.utf8)
            out.append(ascii: ")")
        }
        out.append(ascii: " <!-- bmvault:session ")
        out.append(contentsOf: session.id.rawValue.utf8)
        out.append(ascii: " started=")
        session.startedAt.appendISO8601(to: &out)
        out.append(ascii: " ended=")
        session.endedAt.appendISO8601(to: &out)
        out.append(ascii: " pages=")
        out.append(contentsOf: pages.utf8)
        if let source = session.source {
            out.append(ascii: " source=")
            out.append(contentsOf: source.utf8)
        }
        out.append(ascii: " -->\n")
    }

    /// One note or quote, appended as bytes: this runs for every note of the journal.
    private static func append(_ annotation: Annotation, to out: inout [UInt8]) {
        let kind = annotation.kind.rawValue
        let encoding = MarkdownBody.encoding(of: annotation.body)
        out.append(ascii: "\n")
        appendCaption(annotation, to: &out)
        out.append(ascii: "<!-- bmvault:")
        out.append(contentsOf: kind.utf8)
        out.append(UInt8(ascii: " "))
        out.append(contentsOf: annotation.id.rawValue.utf8)
        out.append(ascii: " created=")
        annotation.createdAt.appendISO8601(to: &out)
        out.append(ascii: " updated=")
        annotation.updatedAt.appendISO8601(to: &out)
        out.append(ascii: " version=")
        out.append(contentsOf: String(annotation.version).utf8)
        if let original = annotation.conflictOf {
            out.append(ascii: " conflict-of=")
            out.append(contentsOf: original.rawValue.utf8)
        }
        if let reason = annotation.conflictReason {
            out.append(ascii: " conflict=")
            out.append(contentsOf: reason.rawValue.utf8)
        }
        if let key = annotation.importKey {
            out.append(ascii: " import-key=")
            out.append(contentsOf: key.utf8)
        }
        if encoding == .references {
            out.append(contentsOf: " \(MarkdownBody.referencesAttribute.key)=\(MarkdownBody.referencesAttribute.value)".utf8)
        }
        out.append(ascii: " -->\n")
        MarkdownBody.append(annotation.body, encoding: encoding, quoted: annotation.kind == .quote, to: &out)
        if let locator = annotation.locator {
            out.append(contentsOf: (annotation.kind == .quote ? ">\n> — " : "\n— ").utf8)
            MarkdownText.appendInline(locator.text, to: &out)
            out.append(0x0A)
        }
        if let comment = annotation.comment {
            // The reader's comment, under the quote: its own marker, its own encoding.
            let commentEncoding = MarkdownBody.encoding(of: comment)
            out.append(contentsOf: "\n\(CommentMarker.text(commentEncoding))\n".utf8)
            MarkdownBody.append(comment, encoding: commentEncoding, quoted: false, to: &out)
        }
        out.append(ascii: "<!-- /bmvault:")
        out.append(contentsOf: kind.utf8)
        out.append(ascii: " -->\n")
    }

    /// `### Note · 2026-12-03 09:05 (+01:00)`, then ` · edited ...` when changed in another
    /// minute, and what a conflict copy is: shown, never read back (import ignores headings
    /// among the notes), and free of the reader's text.
    private static func appendCaption(_ annotation: Annotation, to out: inout [UInt8]) {
        let created = LocalTimeText.minute(annotation.createdAt)
        var caption = annotation.kind == .quote ? "### Quote · " : "### Note · "
        caption += "\(created) (\(LocalTimeText.offset(annotation.createdAt)))"
        let edited = LocalTimeText.minute(annotation.updatedAt)
        if edited != created { caption += " · edited \(edited) (\(LocalTimeText.offset(annotation.updatedAt)))" }
        switch annotation.conflictReason {
        case .bothEdited?:
            let original = annotation.conflictOf.map { " \(ShortID.randomPart(of: $0).prefix(8))" } ?? ""
            caption += " · conflict copy of \(annotation.kind.rawValue)\(original): two devices changed it, both versions are kept"
        case .editedAfterDelete?:
            caption += " · conflict: edited on one device after it was deleted on another"
        case nil:
            break
        }
        out.append(contentsOf: caption.utf8)
        out.append(0x0A)
    }
}
