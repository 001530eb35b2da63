import Journal

/// Writes journal.json in the current format (version 1), one record at a time: keys sorted,
/// two-space indentation, the sections in key order (`archive`, `books`, `notes`, `quotes`,
/// `sessions`) and records in the order they are given (the exporter gives a stable one).
/// Two exports of one vault are byte for byte the same file.
final class JournalWriter {
    /// The record arrays of journal.json, in the order their keys sort.
    enum Section: String, CaseIterable, Comparable {
        case books, notes, quotes, sessions

        static func < (lhs: Section, rhs: Section) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    private let file: ArchiveFile
    private var section: Section?
    private var recordsInSection = 0
    /// Records written per section, and tombstones among them.
    private(set) var counts: [Section: Int] = [:]
    private(set) var deleted: [Section: Int] = [:]

    init(file: ArchiveFile, includesDeleted: Bool) {
        self.file = file
        file.write("""
            {
              "archive" : {
                "format" : \(JSONText.string(ArchiveFormat.name)),
                "formatVersion" : \(ArchiveFormat.currentVersion),
                "includesDeleted" : \(includesDeleted)
              }
            """)
    }

    /// Starts the array of `next`; sections come in key order, each at most once.
    func begin(_ next: Section) {
        precondition(section.map { $0 < next } ?? true, "journal.json sections are written in key order")
        closeSection()
        section = next
        recordsInSection = 0
        counts[next] = 0
        deleted[next] = 0
        file.write(",\n  \"\(next.rawValue)\" : [")
    }

    func write(_ book: Book) {
        record(.books, deleted: book.deletedAt != nil) { out in
            member("authors", first: true, &out)
            if book.authors.isEmpty {
                out.append(ascii: "[]")
            } else {
                out.append(ascii: "[\n")
                for (index, author) in book.authors.enumerated() {
                    out.append(ascii: "        ")
                    JSONText.appendString(author, to: &out)
                    out.append(ascii: index == book.authors.count - 1 ? "\n" : ",\n")
                }
                out.append(ascii: "      ]")
            }
            timestamp("createdAt", book.createdAt, &out)
            timestamp("deletedAt", book.deletedAt, &out)
            string("id", book.id.rawValue, &out)
            raw("progress", JSONText.number(book.progress), &out)
            string("title", book.title, &out)
            timestamp("updatedAt", book.updatedAt, &out)
            raw("version", String(book.version), &out)
        }
    }

    func write(_ annotation: Annotation) {
        record(annotation.kind == .note ? .notes : .quotes, deleted: annotation.deletedAt != nil) { out in
            member("body", first: true, &out)
            JSONText.appendString(annotation.body, to: &out)
            string("bookId", annotation.bookID.rawValue, &out)
            string("conflictOf", annotation.conflictOf?.rawValue, &out)
            string("conflictReason", annotation.conflictReason?.rawValue, &out)
            timestamp("createdAt", annotation.createdAt, &out)
            timestamp("deletedAt", annotation.deletedAt, &out)
            string("id", annotation.id.rawValue, &out)
            string("locator", annotation.locator?.text, &out)
            timestamp("updatedAt", annotation.updatedAt, &out)
            raw("version", String(annotation.version), &out)
        }
    }

    func write(_ session: ReadingSession) {
        record(.sessions, deleted: false) { out in
            member("bookId", first: true, &out)
            JSONText.appendString(session.bookID.rawValue, to: &out)
            timestamp("endedAt", session.endedAt, &out)
            string("id", session.id.rawValue, &out)
            raw("pagesRead", String(session.pagesRead), &out)
            timestamp("startedAt", session.startedAt, &out)
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

    private func closeSection() {
        guard section != nil else { return }
        file.write(recordsInSection == 0 ? "]" : "\n  ]")
        section = nil
    }

    // Members are appended as bytes, never built as strings: these run for every record.

    private func member(_ key: StaticString, first: Bool = false, _ out: inout [UInt8]) {
        out.append(ascii: first ? "      \"" : ",\n      \"")
        out.append(ascii: key)
        out.append(ascii: "\" : ")
    }

    private func string(_ key: StaticString, _ value: String?, _ out: inout [UInt8]) {
        member(key, &out)
        if let value { JSONText.appendString(value, to: &out) } else { out.append(ascii: "null") }
    }

    private func timestamp(_ key: StaticString, _ value: Timestamp?, _ out: inout [UInt8]) {
        member(key, &out)
        guard let value else { return out.append(ascii: "null") }
        out.append(UInt8(ascii: "\""))
        value.appendISO8601(to: &out)
        out.append(UInt8(ascii: "\""))
    }

    private func raw(_ key: StaticString, _ value: String, _ out: inout [UInt8]) {
        member(key, &out)
        out.append(contentsOf: value.utf8)
    }
}
