import Foundation
import Journal

/// A note or quote as one book's Markdown file has it: the text is the reader's (perhaps
/// edited); the dates and version come from its marker and may be absent if the reader
/// removed them.
struct MarkdownAnnotation {
    let id: EntityID?
    let kind: AnnotationKind
    let body: String
    let locator: Locator?
    let createdAt: Timestamp?
    let updatedAt: Timestamp?
    let version: Int64?
    let conflictOf: EntityID?
    let conflictReason: ConflictReason?
    /// The reader's comment (bmvault 0.16), below its own marker inside the block.
    let comment: String?
    let importKey: String?
    let line: Int
}

/// Everything one book's Markdown file holds.
struct MarkdownBook {
    let file: String
    let book: Book
    let sessions: [(session: ReadingSession, line: Int)]
    /// Notes and quotes with a marker, in file order.
    let annotations: [MarkdownAnnotation]
    /// Paragraphs the reader added outside any marker: new notes (or quotes, when written
    /// as a blockquote ending in a `— locator` line). Their `id` is nil.
    let additions: [MarkdownAnnotation]
}

/// Reads a book's Markdown file of format version 1 or 2 (see ``BookMarkdownWriter``): the
/// two share their layout and markers, and differ in how a note's text is written
/// (``MarkdownBody/Encoding``), which the front matter's version tells.
///
/// Only the front matter, the `## Sessions` list items with a session marker, and the
/// `## Notes and quotes` section are read. In that section, text between a marker and its
/// end marker is that note's or quote's text; paragraphs outside any marker are additions;
/// headings there (format 2 writes one above each note) are ignored. A marker without its
/// end marker is a file cut short, and an error.
enum BookMarkdownReader {
    /// The most front matter lines read before giving up on finding its end.
    static let longestFrontMatter = 10_000
    /// The most bytes of Markdown one note, quote or added paragraph may take: room for the
    /// longest body (``TextRules/maximumBodyBytes``) with every character escaped and quoted.
    static let longestBlock = 4 * TextRules.maximumBodyBytes
    /// The most paragraphs one file may add (text outside any marker): far more than anyone
    /// types into one book's file, and few enough that they are held in memory at once.
    static let mostAdditions = 100_000

    static func read(path: String, displayName file: String) throws(ArchiveError) -> MarkdownBook {
        // Read line by line, never the whole file: memory is bounded by the longest block.
        let bytes = try FileBytes(path: path, displayName: file)
        var number = 0
        func nextLine() throws(ArchiveError) -> Substring? {
            guard let line = try bytes.nextLine() else { return nil }
            number += 1
            guard let text = String(validating: line, as: UTF8.self) else { throw .invalidUTF8(file: file, line: number) }
            return Substring(number == 1 && text.hasPrefix("\u{FEFF}") ? String(text.dropFirst()) : text)
        }
        var frontLines: [Substring] = []
        var frontBytes = 0
        while let line = try nextLine() {
            frontLines.append(line)
            frontBytes += line.utf8.count
            guard frontBytes <= longestBlock else {
                throw .malformed(file: file, line: 1, reason: "the front matter is longer than \(longestBlock >> 20) MiB")
            }
            let closes = line.trimmingTrailingSpaces() == "---"
            if frontLines.count == 1 ? !closes : closes { break }   // not a front matter, or its end
            guard frontLines.count < longestFrontMatter else {
                throw .malformed(file: file, line: 1, reason: "the front matter has no end within \(longestFrontMatter) lines")
            }
        }
        let front = try FrontMatter(lines: frontLines, file: file)
        let (book, formatVersion) = try makeBook(front, file: file)

        enum Section { case other, sessions, notes }
        var section = Section.other
        var sessions: [(session: ReadingSession, line: Int)] = []
        var annotations: [MarkdownAnnotation] = []
        var additions: [MarkdownAnnotation] = []
        // The block being read, as its bytes joined by line breaks (split into lines when it
        // ends): a block of two million one-character lines is then 4 MiB, not two million
        // strings. Kept apart from its marker: binding one optional tuple to test it would hold
        // a second reference to the buffer, and every append would copy it (quadratic).
        var openMarker: Marker?
        var openText: [UInt8] = []
        var paragraph: [Substring] = []
        var paragraphBytes = 0
        var paragraphLine = 0

        func flushParagraph() throws(ArchiveError) {
            defer {
                paragraph.removeAll()
                paragraphBytes = 0
            }
            guard !paragraph.isEmpty else { return }
            guard additions.count < mostAdditions else {
                throw .malformed(file: file, line: paragraphLine, reason: "more than \(mostAdditions) added paragraphs in one file")
            }
            additions.append(try addition(paragraph, line: paragraphLine, formatVersion: formatVersion, file: file))
        }
        func tooLong(_ line: Int) -> ArchiveError {
            .malformed(file: file, line: line, reason: "a note, quote or paragraph longer than \(longestBlock >> 20) MiB of Markdown")
        }

        while let line = try nextLine() {
            if let marker = openMarker {
                if Marker.isEnd(line, kind: marker.kind) {
                    // Split on the line-feed bytes, as the lines were read: splitting the
                    // String would take a stray carriage return and the line break after it
                    // as one character, and join two lines.
                    let lines = openText.isEmpty ? [] : openText.dropLast().split(separator: 0x0A, omittingEmptySubsequences: false)
                        .map { Substring(String(decoding: $0, as: UTF8.self)) }
                    annotations.append(try annotation(marker, lines, formatVersion: formatVersion, file: file))
                    openMarker = nil
                    openText.removeAll(keepingCapacity: true)
                } else if Marker(line) != nil {
                    throw .malformed(file: file, line: marker.line, reason: "this \((marker.kind ?? .note).rawValue) has no end marker before the next one")
                } else {
                    openText.append(contentsOf: line.utf8)
                    openText.append(0x0A)
                    if openText.count > longestBlock { throw tooLong(marker.line) }
                }
                continue
            }
            let trimmed = line.trimmingTrailingSpaces()
            if trimmed == "## Sessions" || trimmed == "## Notes and quotes"
                || (section != .notes && (trimmed.hasPrefix("# ") || trimmed.hasPrefix("## "))) {
                try flushParagraph()
                section = trimmed == "## Sessions" ? .sessions : trimmed == "## Notes and quotes" ? .notes : .other
                continue
            }
            switch section {
            case .other:
                continue
            case .sessions:
                if let marker = Marker(line, within: true), marker.kind == nil {
                    sessions.append((try session(marker, bookID: book.id, file: file), number))
                }
            case .notes:
                if var marker = Marker(line) {
                    try flushParagraph()
                    guard marker.kind != nil else {
                        throw .malformed(file: file, line: number, reason: "a session marker among the notes and quotes")
                    }
                    marker.line = number
                    openMarker = marker
                } else if Marker.isAnyEnd(line) {
                    throw .malformed(file: file, line: number, reason: "an end marker without its start")
                } else if trimmed.allSatisfy({ $0 == " " || $0 == "\t" }) {
                    try flushParagraph()
                } else if isHeading(trimmed), paragraph.isEmpty {
                    continue   // a note's heading, or one the reader added
                } else {
                    if paragraph.isEmpty { paragraphLine = number }
                    paragraph.append(line)
                    paragraphBytes += line.utf8.count + 1
                    if paragraphBytes > longestBlock { throw tooLong(paragraphLine) }
                }
            }
        }
        if let marker = openMarker {
            throw .truncated(file: file, line: marker.line)
        }
        try flushParagraph()
        return MarkdownBook(file: file, book: book, sessions: sessions, annotations: annotations, additions: additions)
    }

    // MARK: - The book

    /// The book, and the format version its front matter gives.
    private static func makeBook(_ front: FrontMatter, file: String) throws(ArchiveError) -> (Book, Int) {
        func scalar(_ key: String) throws(ArchiveError) -> (value: String, line: Int) {
            guard let found = front.scalars[key] else { throw .missingField(file: file, line: 1, record: nil, field: key) }
            return found
        }
        let version = try scalar(ArchiveFormat.markdownVersionKey)
        guard let formatVersion = Int(version.value) else {
            throw .invalidField(file: file, line: version.line, record: nil, field: ArchiveFormat.markdownVersionKey, reason: "not a number")
        }
        try ArchiveFormat.checkReadable(formatVersion, file: file)
        let idField = try scalar("id")
        let id = try RecordFields.id(idField.value, file: file, line: idField.line, record: nil, field: "id")
        let record = id.rawValue
        let titleField = try scalar("title")
        let title = try RecordFields.line(titleField.value, file: file, line: titleField.line, record: record, field: "title")
        var authors: [String] = []
        if let list = front.lists["authors"] {
            for author in list.values {
                authors.append(try RecordFields.line(author, file: file, line: list.line, record: record, field: "authors"))
            }
        } else if let single = front.scalars["authors"] {
            authors = [try RecordFields.line(single.value, file: file, line: single.line, record: record, field: "authors")]
        }
        var progress = 0.0
        if let field = front.scalars["progress"] {
            progress = try RecordFields.progress(Double(field.value.hasSuffix("%") ? String(field.value.dropLast()) : field.value),
                                                 file: file, line: field.line, record: record)
        }
        var rating: Double?
        if let field = front.scalars["rating"] {
            guard let stars = Double(field.value), (try? Rating.checked(stars)) != nil else {
                throw .invalidField(file: file, line: field.line, record: record, field: "rating", reason: "not a rating from 1 to 5 in half stars")
            }
            rating = stars
        }
        var edition = Edition.unknown
        if let field = front.scalars["isbn"] {
            guard let isbn = try? Edition.checkedISBN(field.value) else {
                throw .invalidField(file: file, line: field.line, record: record, field: "isbn", reason: RecordFields.reason(.invalidISBN))
            }
            edition.isbn = isbn
        }
        if let field = front.scalars["year"] {
            guard let year = Int(field.value), Edition.years.contains(year) else {
                throw .invalidField(file: file, line: field.line, record: record, field: "year", reason: RecordFields.reason(.yearOutOfRange))
            }
            edition.year = year
        }
        if let field = front.scalars["pages"] {
            guard let pages = Int(field.value), Edition.pageCounts.contains(pages) else {
                throw .invalidField(file: file, line: field.line, record: record, field: "pages", reason: RecordFields.reason(.pageCountOutOfRange))
            }
            edition.pages = pages
        }
        let created = try scalar("created")
        let updated = try scalar("updated")
        var bookVersion: Int64 = 1
        if let field = front.scalars["version"] {
            bookVersion = try RecordFields.version(Int64(field.value), file: file, line: field.line, record: record)
        }
        let book = Book(id: id, title: title, authors: authors, progress: progress,
                        createdAt: try RecordFields.timestamp(created.value, file: file, line: created.line, record: record, field: "created"),
                        updatedAt: try RecordFields.timestamp(updated.value, file: file, line: updated.line, record: record, field: "updated"),
                        deletedAt: nil, version: bookVersion, rating: rating, edition: edition)
        return (book, formatVersion)
    }

    // MARK: - Sessions

    private static func session(_ marker: Marker, bookID: EntityID, file: String) throws(ArchiveError) -> ReadingSession {
        let record = marker.id.rawValue
        func attribute(_ key: String) throws(ArchiveError) -> String {
            guard let value = marker.attributes[key] else { throw .missingField(file: file, line: marker.line, record: record, field: key) }
            return value
        }
        let started = try RecordFields.timestamp(try attribute("started"), file: file, line: marker.line, record: record, field: "started")
        let ended = try RecordFields.timestamp(try attribute("ended"), file: file, line: marker.line, record: record, field: "ended")
        let pages = try RecordFields.pages(Int(try attribute("pages")), file: file, line: marker.line, record: record)
        guard ended >= started else {
            throw .invalidField(file: file, line: marker.line, record: record, field: "ended", reason: "the session ends before it starts")
        }
        let source = try marker.attributes["source"].map { (text) throws(ArchiveError) in
            do throws(JournalError) { return try TextRules.sessionSource(text) } catch {
                throw .invalidField(file: file, line: marker.line, record: record, field: "source", reason: RecordFields.reason(error))
            }
        }
        return ReadingSession(id: marker.id, bookID: bookID, startedAt: started, endedAt: ended, pagesRead: pages, source: source)
    }

    // MARK: - Notes and quotes

    private static func annotation(_ marker: Marker, _ lines: [Substring], formatVersion: Int,
                                   file: String) throws(ArchiveError) -> MarkdownAnnotation {
        let record = marker.id.rawValue
        let kind = marker.kind ?? .note
        // The comment, when there is one, follows its marker line: the body's text never holds
        // one (`<!--` is always written as character references).
        var blockLines = lines[...]
        var comment: String?
        if let start = lines.firstIndex(where: { CommentMarker.encoding(of: $0) != nil }), let commentEncoding = CommentMarker.encoding(of: lines[start]) {
            blockLines = lines[..<start]
            do {
                comment = try TextRules.body(MarkdownBody.text(Self.trimmingBlankLines(lines[(start + 1)...]), encoding: commentEncoding), field: "comment")
            } catch {
                throw .invalidField(file: file, line: marker.line, record: record, field: "comment", reason: RecordFields.reason(error))
            }
        }
        let content = kind == .quote ? blockLines.map(stripQuote) : Array(blockLines)
        let references = MarkdownBody.referencesAttribute
        let encoding: MarkdownBody.Encoding = formatVersion == 1 ? .escaped
            : marker.attributes[references.key] == references.value ? .references : .plain
        let (body, locator) = try text(content, kind: kind, encoding: encoding, file: file, line: marker.line, record: record)
        let importKey = try marker.attributes["import-key"].map { (text) throws(ArchiveError) in
            do throws(JournalError) { return try TextRules.importKey(text) } catch {
                throw .invalidField(file: file, line: marker.line, record: record, field: "import-key", reason: RecordFields.reason(error))
            }
        }
        guard kind == .note || locator != nil else {
            throw .missingField(file: file, line: marker.line, record: record, field: "locator")
        }
        func timestamp(_ key: String) throws(ArchiveError) -> Timestamp? {
            try marker.attributes[key].map { (text) throws(ArchiveError) in
                try RecordFields.timestamp(text, file: file, line: marker.line, record: record, field: key)
            }
        }
        let version = try marker.attributes["version"].map { (text) throws(ArchiveError) in
            try RecordFields.version(Int64(text), file: file, line: marker.line, record: record)
        }
        let conflictOf = try marker.attributes["conflict-of"].map { (text) throws(ArchiveError) in
            try RecordFields.id(text, file: file, line: marker.line, record: record, field: "conflict-of")
        }
        let reason = try marker.attributes["conflict"].map { (text) throws(ArchiveError) in
            guard let reason = ConflictReason(rawValue: text) else {
                throw .invalidField(file: file, line: marker.line, record: record, field: "conflict", reason: "not a known conflict reason")
            }
            return reason
        }
        return MarkdownAnnotation(id: marker.id, kind: kind, body: body, locator: locator,
                                  createdAt: try timestamp("created"), updatedAt: try timestamp("updated"), version: version,
                                  conflictOf: conflictOf, conflictReason: reason, comment: comment, importKey: importKey,
                                  line: marker.line)
    }

    /// A paragraph the reader added: a quote if every line is quoted and it ends with a
    /// locator line, else a note. In format 2 its text is taken as typed.
    private static func addition(_ lines: [Substring], line: Int, formatVersion: Int,
                                 file: String) throws(ArchiveError) -> MarkdownAnnotation {
        var kind = AnnotationKind.note
        var content = lines
        if lines.allSatisfy({ $0.hasPrefix(">") }) {
            let stripped = lines.map(stripQuote)
            if let last = stripped.last(where: { !$0.allSatisfy { $0 == " " } }), last.hasPrefix("— ") {
                kind = .quote
                content = stripped
            }
        }
        let (body, locator) = try text(content, kind: kind, encoding: formatVersion == 1 ? .escaped : .plain,
                                       file: file, line: line, record: nil)
        return MarkdownAnnotation(id: nil, kind: kind, body: body, locator: locator, createdAt: nil, updatedAt: nil,
                                  version: nil, conflictOf: nil, conflictReason: nil, comment: nil, importKey: nil, line: line)
    }

    /// The text and locator of a block's lines (quote markers already stripped). The locator
    /// line is escaped as format 1 escapes a line in every format version.
    private static func text(_ lines: [Substring], kind: AnnotationKind, encoding: MarkdownBody.Encoding, file: String,
                             line: Int, record: String?) throws(ArchiveError) -> (String, Locator?) {
        func isBlank(_ line: Substring) -> Bool { line.allSatisfy { $0 == " " || $0 == "\t" } }
        // Trimmed by moving indices (an ArraySlice), not by removing from the front: 300,000
        // blank lines must cost 300,000 steps, not their square.
        var lines = trimmingBlankLines(lines[...])
        var locator: Locator?
        if let last = lines.last, last.hasPrefix("— ") {
            let text = MarkdownText.unescape(last.dropFirst(2))
            do { locator = try Locator(text) } catch {
                throw .invalidField(file: file, line: line, record: record, field: "locator", reason: RecordFields.reason(error))
            }
            lines = lines.dropLast()
            while let last = lines.last, isBlank(last) { lines = lines.dropLast() }
        }
        let body: String
        do { body = try TextRules.body(MarkdownBody.text(lines, encoding: encoding), field: kind.rawValue) } catch {
            throw .invalidField(file: file, line: line, record: record, field: "body", reason: RecordFields.reason(error))
        }
        return (body, locator)
    }

    /// `lines` without the blank lines at either end.
    private static func trimmingBlankLines(_ lines: ArraySlice<Substring>) -> ArraySlice<Substring> {
        func isBlank(_ line: Substring) -> Bool { line.allSatisfy { $0 == " " || $0 == "\t" } }
        var lines = lines
        while let first = lines.first, isBlank(first) { lines = lines.dropFirst() }
        while let last = lines.last, isBlank(last) { lines = lines.dropLast() }
        return lines
    }

    /// An ATX heading: one to six `#`, then a space, a tab or the end of the line. `#idea`
    /// (a note tool's tag) is text, not a heading.
    private static func isHeading(_ line: Substring) -> Bool {
        let hashes = line.prefix { $0 == "#" }.count
        guard (1...6).contains(hashes) else { return false }
        let rest = line.dropFirst(hashes)
        return rest.isEmpty || rest.first == " " || rest.first == "\t"
    }

    private static func stripQuote(_ line: Substring) -> Substring {
        if line.hasPrefix("> ") { return line.dropFirst(2) }
        if line.hasPrefix(">") { return line.dropFirst() }
        return line
    }
}

/// `<!-- bmvault:comment -->` (with ` text=references` when its text is written so), the
/// line inside a quote's block after which its comment is written (bmvault 0.16).
enum CommentMarker {
    static func text(_ encoding: MarkdownBody.Encoding) -> String {
        let references = MarkdownBody.referencesAttribute
        return encoding == .references ? "<!-- bmvault:comment \(references.key)=\(references.value) -->" : "<!-- bmvault:comment -->"
    }

    /// The encoding the comment after `line` is written in, if `line` is the marker.
    static func encoding(of line: Substring) -> MarkdownBody.Encoding? {
        switch line.trimmingTrailingSpaces() {
        case text(.plain): .plain
        case text(.references): .references
        default: nil
        }
    }
}

/// A `<!-- bmvault:KIND ID key=value ... -->` marker line. `kind` is nil for a session.
struct Marker {
    let kind: AnnotationKind?
    let id: EntityID
    let attributes: [String: String]
    var line = 0

    /// The marker on `line`: the whole line, or (`within`) at its end, as in a session item.
    init?(_ line: Substring, within: Bool = false) {
        let trimmed = line.trimmingTrailingSpaces()
        guard trimmed.hasSuffix("-->"), let start = trimmed.range(of: "<!-- bmvault:"),
              within || start.lowerBound == trimmed.startIndex else { return nil }
        let words = trimmed[start.upperBound..<trimmed.index(trimmed.endIndex, offsetBy: -3)].split(separator: " ")
        guard words.count >= 2, let id = try? EntityID(validating: String(words[1])) else { return nil }
        switch words[0] {
        case "note": kind = .note
        case "quote": kind = .quote
        case "session": kind = nil
        default: return nil
        }
        self.id = id
        var attributes: [String: String] = [:]
        for word in words.dropFirst(2) {
            guard let equals = word.firstIndex(of: "=") else { continue }
            attributes[String(word[..<equals])] = String(word[word.index(after: equals)...])
        }
        self.attributes = attributes
    }

    static func isEnd(_ line: Substring, kind: AnnotationKind?) -> Bool {
        line.trimmingTrailingSpaces() == "<!-- /bmvault:\(kind?.rawValue ?? "session") -->"
    }

    static func isAnyEnd(_ line: Substring) -> Bool {
        isEnd(line, kind: .note) || isEnd(line, kind: .quote)
    }
}
