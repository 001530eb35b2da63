import Journal

/// Writes journal.json in the current format (version 1), one record at a time: keys sorted,
/// two-space indentation, the sections in key order (`archive`, `books`, `notes`, `quotes`,
/// `sessions`) and records in the order they are given (the exporter gives a stable one).
/// Two exports of one vault are byte for byte the same file.
///
/// Quotes may be written while the notes section is open: they are kept aside
/// (``QuoteSpool``) and become the quotes section when the notes section closes.
final class JournalWriter {
    /// The record arrays of journal.json, in the order their keys sort.
    enum Section: String, CaseIterable, Comparable {
        case books, notes, quotes, sessions

        static func < (lhs: Section, rhs: Section) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    private let file: ArchiveFile
    private let directory: String
    private let writer: BackgroundWriter
    private var section: Section?
    private var recordsInSection = 0
    private var spool: QuoteSpool?
    /// Records written per section, and tombstones among them.
    private(set) var counts: [Section: Int] = [:]
    private(set) var deleted: [Section: Int] = [:]
    /// The first failure of the quotes kept aside (the file's own are in its sink).
    private(set) var failure: ArchiveError?

    /// `directory` and `writer` are where quotes written early are kept aside.
    init(file: ArchiveFile, includesDeleted: Bool, directory: String, writer: BackgroundWriter) {
        self.file = file
        self.directory = directory
        self.writer = writer
        file.write("""
            {
              "archive" : {
                "format" : \(JSONText.string(ArchiveFormat.name)),
                "formatVersion" : \(ArchiveFormat.currentVersion),
                "includesDeleted" : \(includesDeleted)
              }
            """)
    }

    /// Starts the array of `next`; sections come in key order, each at most once. (When
    /// the notes section closes with quotes kept aside, they open the quotes section, and
    /// `begin(.quotes)` carries on with it.) A section passed over is written empty (the
    /// quotes of a journal that has none): journal.json always has every key.
    func begin(_ next: Section) {
        if section == .notes, let spool { writeQuotesSection(from: spool) }
        if next == .quotes, section == .quotes { return }
        precondition(section.map { $0 < next } ?? true, "journal.json sections are written in key order")
        for skipped in Section.allCases where skipped < next && counts[skipped] == nil && (section.map { skipped > $0 } ?? true) {
            open(skipped)
        }
        open(next)
    }

    private func open(_ next: Section) {
        closeSection()
        section = next
        recordsInSection = 0
        counts[next] = 0
        deleted[next] = 0
        file.write(",\n  \"\(next.rawValue)\" : [")
    }

    /// `tags`: those the book shows, in order; `files`: its book files (each written only
    /// when there are some).
    func write(_ book: Book, tags: [String], files: [ArchiveBookFile]) {
        record(.books, deleted: book.deletedAt != nil) { out in
            Self.strings("authors", book.authors, first: true, &out)
            Self.timestamp("createdAt", book.createdAt, &out)
            Self.timestamp("deletedAt", book.deletedAt, &out)
            if !files.isEmpty { Self.files(files, &out) }
            Self.string("id", book.id.rawValue, &out)
            // Written only when there is one, so a book without them exports as before.
            if let isbn = book.edition.isbn { Self.string("isbn", isbn, &out) }
            if let pages = book.edition.pages { Self.raw("pagesTotal", String(pages), &out) }
            Self.raw("progress", JSONText.number(book.progress), &out)
            if let rating = book.rating { Self.raw("rating", JSONText.number(rating), &out) }
            if !book.readingLog.isEmpty {
                Self.member("readingLog", &out)
                out.append(ascii: "[\n")
                for (index, event) in book.readingLog.events.enumerated() {
                    out.append(ascii: "        { \"clock\" : ")
                    JSONString.append(event.clock.description, to: &out)
                    // Members in sorted order; `dayKnown` only when false (bmvault 0.16).
                    if !event.dayKnown { out.append(ascii: ", \"dayKnown\" : false") }
                    out.append(ascii: ", \"on\" : \"")
                    event.on.appendISO8601(to: &out)
                    out.append(ascii: "\", \"status\" : ")
                    JSONString.append(event.status.rawValue, to: &out)
                    out.append(ascii: index == book.readingLog.events.count - 1 ? " }\n" : " },\n")
                }
                out.append(ascii: "      ]")
            }
            if !tags.isEmpty { Self.strings("tags", tags, &out) }
            Self.string("title", book.title, &out)
            Self.timestamp("updatedAt", book.updatedAt, &out)
            Self.raw("version", String(book.version), &out)
            if let year = book.edition.year { Self.raw("year", String(year), &out) }
        }
    }

    /// `tags`: those the note or quote shows, in order (written only when there are some).
    func write(_ annotation: Annotation, tags: [String]) {
        if annotation.kind == .quote, section == .notes { return keepAside(annotation, tags: tags) }
        record(annotation.kind == .note ? .notes : .quotes, deleted: annotation.deletedAt != nil) { out in
            Self.members(of: annotation, tags: tags, &out)
        }
    }

    private static func members(of annotation: Annotation, tags: [String], _ out: inout [UInt8]) {
        member("body", first: true, &out)
        JSONString.append(annotation.body, to: &out)
        string("bookId", annotation.bookID.rawValue, &out)
        if let comment = annotation.comment { string("comment", comment, &out) }
        string("conflictOf", annotation.conflictOf?.rawValue, &out)
        string("conflictReason", annotation.conflictReason?.rawValue, &out)
        timestamp("createdAt", annotation.createdAt, &out)
        timestamp("deletedAt", annotation.deletedAt, &out)
        string("id", annotation.id.rawValue, &out)
        if let key = annotation.importKey { string("importKey", key, &out) }
        string("locator", annotation.locator?.text, &out)
        if !tags.isEmpty { strings("tags", tags, &out) }
        timestamp("updatedAt", annotation.updatedAt, &out)
        raw("version", String(annotation.version), &out)
    }

    func write(_ session: ReadingSession) {
        record(.sessions, deleted: false) { out in
            Self.member("bookId", first: true, &out)
            JSONString.append(session.bookID.rawValue, to: &out)
            Self.timestamp("endedAt", session.endedAt, &out)
            Self.string("id", session.id.rawValue, &out)
            Self.raw("pagesRead", String(session.pagesRead), &out)
            if let source = session.source { Self.string("source", source, &out) }
            Self.timestamp("startedAt", session.startedAt, &out)
        }
    }

    /// Closes the document (sections never begun are written empty) and the file.
    func finish() -> FileSink {
        for missing in Section.allCases where counts[missing] == nil && (section.map { missing > $0 } ?? true) {
            begin(missing)
        }
        closeSection()
        file.write("\n}\n")
        return file.finish()
    }

    // MARK: - Layout

    private func record(_ expected: Section, deleted isDeleted: Bool, _ members: (inout [UInt8]) -> Void) {
        precondition(section == expected, "a \(expected.rawValue) record outside its section")
        file.append { out in
            out.append(ascii: recordsInSection == 0 ? "\n    {\n" : ",\n    {\n")
            members(&out)
            out.append(ascii: "\n    }")
        }
        recordsInSection += 1
        counts[expected, default: 0] += 1
        if isDeleted { deleted[expected, default: 0] += 1 }
    }

    /// Keeps a quote aside while the notes section is open, laid out as the quotes section will have it.
    private func keepAside(_ annotation: Annotation, tags: [String]) {
        if spool == nil {
            do { spool = try QuoteSpool(directory: directory, writer: writer) } catch {
                failure = failure ?? error
                return
            }
        }
        guard let spool else { return }
        let first = spool.count == 0
        spool.append(deleted: annotation.deletedAt != nil) { out in
            out.append(ascii: first ? "\n    {\n" : ",\n    {\n")
            Self.members(of: annotation, tags: tags, &out)
            out.append(ascii: "\n    }")
        }
    }

    /// Closes the notes section and opens the quotes section with the quotes kept aside.
    private func writeQuotesSection(from spool: QuoteSpool) {
        self.spool = nil
        closeSection()
        section = .quotes
        recordsInSection = spool.count
        counts[.quotes] = spool.count
        deleted[.quotes] = spool.deleted
        file.write(",\n  \"quotes\" : [")
        if let error = spool.move(to: file) { failure = failure ?? error }
    }

    private func closeSection() {
        guard section != nil else { return }
        file.write(recordsInSection == 0 ? "]" : "\n  ]")
        section = nil
    }

    // Members are appended as bytes, never built as strings: these run for every record.

    private static func member(_ key: StaticString, first: Bool = false, _ out: inout [UInt8]) {
        out.append(ascii: first ? "      \"" : ",\n      \"")
        out.append(ascii: key)
        out.append(ascii: "\" : ")
    }

    private static func string(_ key: StaticString, _ value: String?, _ out: inout [UInt8]) {
        member(key, &out)
        if let value { JSONString.append(value, to: &out) } else { out.append(ascii: "null") }
    }

    /// An array of strings, one per line (`[]` when empty).
    private static func strings(_ key: StaticString, _ values: [String], first: Bool = false, _ out: inout [UInt8]) {
        member(key, first: first, &out)
        guard !values.isEmpty else { return out.append(ascii: "[]") }
        out.append(ascii: "[\n")
        for (index, value) in values.enumerated() {
            out.append(ascii: "        ")
            JSONString.append(value, to: &out)
            out.append(ascii: index == values.count - 1 ? "\n" : ",\n")
        }
        out.append(ascii: "      ]")
    }

    /// A book's files (bmvault 0.17): one object each, every member present (null when empty).
    private static func files(_ files: [ArchiveBookFile], _ out: inout [UInt8]) {
        member("files", &out)
        out.append(ascii: "[\n")
        for (index, file) in files.enumerated() {
            out.append(ascii: "        {\n")
            fileMember("addedAt", first: true, &out)
            out.append(UInt8(ascii: "\""))
            file.addedAt.appendISO8601(to: &out)
            out.append(UInt8(ascii: "\""))
            fileMember("format", &out)
            JSONString.append(file.format, to: &out)
            fileMember("id", &out)
            JSONString.append(file.id.rawValue, to: &out)
            fileMember("kept", &out)
            JSONString.append(file.kept.rawValue, to: &out)
            fileMember("locator", &out)
            optional(file.locator, &out)
            fileMember("metadata", &out)
            let metadata = file.metadata
            out.append(ascii: "{ \"creators\" : ")
            inlineStrings(metadata.creators, &out)
            out.append(ascii: ", \"date\" : ")
            optional(metadata.date, &out)
            out.append(ascii: metadata.hasCover ? ", \"hasCover\" : true, \"identifiers\" : " : ", \"hasCover\" : false, \"identifiers\" : ")
            inlineStrings(metadata.identifiers, &out)
            out.append(ascii: ", \"language\" : ")
            optional(metadata.language, &out)
            out.append(ascii: ", \"publisher\" : ")
            optional(metadata.publisher, &out)
            out.append(ascii: ", \"title\" : ")
            optional(metadata.title, &out)
            out.append(ascii: " }")
            fileMember("path", &out)
            optional(file.path, &out)
            fileMember("sha256", &out)
            JSONString.append(file.sha256, to: &out)
            fileMember("size", &out)
            out.append(contentsOf: String(file.size).utf8)
            out.append(ascii: index == files.count - 1 ? "\n        }\n" : "\n        },\n")
        }
        out.append(ascii: "      ]")
    }

    private static func fileMember(_ key: StaticString, first: Bool = false, _ out: inout [UInt8]) {
        out.append(ascii: first ? "          \"" : ",\n          \"")
        out.append(ascii: key)
        out.append(ascii: "\" : ")
    }

    private static func optional(_ value: String?, _ out: inout [UInt8]) {
        if let value { JSONString.append(value, to: &out) } else { out.append(ascii: "null") }
    }

    /// `[ "a", "b" ]` on one line (`[]` when empty).
    private static func inlineStrings(_ values: [String], _ out: inout [UInt8]) {
        guard !values.isEmpty else { return out.append(ascii: "[]") }
        out.append(ascii: "[ ")
        for (index, value) in values.enumerated() {
            if index > 0 { out.append(ascii: ", ") }
            JSONString.append(value, to: &out)
        }
        out.append(ascii: " ]")
    }

    private static func timestamp(_ key: StaticString, _ value: Timestamp?, _ out: inout [UInt8]) {
        member(key, &out)
        guard let value else { return out.append(ascii: "null") }
        out.append(UInt8(ascii: "\""))
        value.appendISO8601(to: &out)
        out.append(UInt8(ascii: "\""))
    }

    private static func raw(_ key: StaticString, _ value: String, _ out: inout [UInt8]) {
        member(key, &out)
        out.append(contentsOf: value.utf8)
    }
}
