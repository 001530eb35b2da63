import Foundation
import Testing
import Journal
@testable import Archive

func timestamp(_ milliseconds: Int64) -> Timestamp { Timestamp(millisecondsSince1970: milliseconds) }

/// A small journal with every kind of record and the text that is hard to carry.
struct SampleJournal {
    var books: [Book] = []
    var sessions: [ReadingSession] = []
    var annotations: [Annotation] = []
    /// The tags of the records that have some.
    var tags: [EntityID: [String]] = [:]

    static let tricky = [
        "# not a heading\n> not a quote\n---\n===\n- list\n+ list\n1. list\n12) list",
        "    four spaces\n\ttab\ntrailing \nback\\slash \\* \\\n`code` *em* _u_ [l](u) <b>x</b> &amp; &#32; %%c%% ==h== $x$ | a | ~~s~~",
        "\n\nleading breaks",
        "— an em dash first\n<!-- bmvault:note 00000000-0000-7000-8000-000000000000 -->\n<!-- /bmvault:note -->",
        "RTL مرحبا بالعالم and עברית, emoji 👩🏽‍💻🇫🇷, NBSP\u{A0}here, ZWJ\u{200D}, BOM\u{FEFF}, LS\u{2028}PS\u{2029}, ESC\u{1B}[2J, CR\r, DEL\u{7F}, C1\u{85}",
        "a\n\nparagraphs\n\n\n  \n\nwith blank and space-only lines",
        String(repeating: "Le désert est beau parce qu'il cache un puits quelque part. ", count: 400),
    ]

    static func make() throws -> SampleJournal {
        var journal = SampleJournal()
        let book = Book(id: try EntityID(validating: "01a23663-6b27-7ed9-b1d8-4737eb171a6a"), title: "# Title > with `marks` and \"quotes\" \\",
                        authors: ["Léon Tolstoï", "שלום"], progress: 42.5, createdAt: timestamp(1_767_225_600_000),
                        updatedAt: timestamp(1_767_225_700_123), deletedAt: nil, version: 2)
        let deleted = Book(id: try EntityID(validating: "01a23663-6b56-7b38-ae69-92e5f9c01d50"), title: "Deleted", authors: [],
                           progress: 0, createdAt: timestamp(1_767_225_600_001), updatedAt: timestamp(1_767_225_600_002),
                           deletedAt: timestamp(1_767_225_600_002), version: 2)
        journal.books = [book, deleted]
        journal.sessions = [ReadingSession(id: try EntityID(validating: "01a23663-6c53-7fad-b36b-6eb4f8f251a8"), bookID: book.id,
                                           startedAt: timestamp(1_767_300_000_000), endedAt: timestamp(1_767_303_600_000), pagesRead: 12)]
        for (index, text) in tricky.enumerated() {
            let kind: AnnotationKind = index % 2 == 0 ? .note : .quote
            let locator: Locator? = kind == .quote || index == 2 ? try Locator("p. \(index) #\(index) *x* — y") : nil
            // Some quotes carry the reader's comment (plain Markdown, or text only references
            // keep exact) and an import key (bmvault 0.16).
            let comment: String? = switch index {
            case 1: "a *comment* on it\n\nin two paragraphs"
            case 3: try TextRules.body(tricky[3] + "\ntrailing ")
            default: nil
            }
            journal.annotations.append(Annotation(
                id: EntityID.generate(at: timestamp(1_767_225_800_000 + Int64(index))), bookID: book.id, kind: kind,
                body: try TextRules.body(text), locator: locator, createdAt: timestamp(1_767_225_800_000 + Int64(index)),
                updatedAt: timestamp(1_767_225_900_000 + Int64(index)), deletedAt: nil, version: 1,
                comment: comment, importKey: index == 1 ? "kindle:0a1b2c" : nil))
        }
        var copy = journal.annotations[0]
        copy = Annotation(id: EntityID.generate(at: timestamp(1_767_226_000_000)), bookID: book.id, kind: .note, body: "the other text",
                          locator: nil, createdAt: timestamp(1_767_226_000_000), updatedAt: timestamp(1_767_226_000_000),
                          deletedAt: nil, version: 1, conflictOf: copy.id, conflictReason: .bothEdited)
        journal.annotations.append(copy)
        journal.annotations.append(Annotation(id: EntityID.generate(at: timestamp(1_767_226_100_000)), bookID: book.id, kind: .note,
                                              body: "a tombstone", locator: nil, createdAt: timestamp(1_767_226_100_000),
                                              updatedAt: timestamp(1_767_226_200_000), deletedAt: timestamp(1_767_226_200_000), version: 2))
        return journal
    }

    /// Writes the journal as `bmvault export` does, into `destination`.
    func export(to destination: String, includesDeleted: Bool = true, at time: Int64 = 1_767_400_000_000) throws -> ArchiveSummary {
        let writer = try ArchiveWriter(destination: destination, includesDeleted: includesDeleted, generatorVersion: "0.0.0-test")
        let kept = books.filter { includesDeleted || $0.deletedAt == nil }
        writer.begin(.books)
        kept.forEach { writer.write($0, tags: tags[$0.id] ?? []) }
        writer.begin(.notes)
        annotations.filter { $0.kind == .note && (includesDeleted || $0.deletedAt == nil) }.forEach { writer.write($0, tags: tags[$0.id] ?? []) }
        writer.begin(.quotes)
        annotations.filter { $0.kind == .quote && (includesDeleted || $0.deletedAt == nil) }.forEach { writer.write($0, tags: tags[$0.id] ?? []) }
        writer.begin(.sessions)
        sessions.forEach(writer.write)
        writer.finishJournal()
        for book in kept where book.deletedAt == nil {
            writer.beginBook(book, sessions: sessions.filter { $0.bookID == book.id }, tags: tags[book.id] ?? [])
            annotations.filter { $0.bookID == book.id && $0.deletedAt == nil }.forEach(writer.addToBook)
            writer.finishBook()
        }
        return try writer.commit(exportedAt: timestamp(time))
    }
}

/// Every record an archive yields, in order.
func records(of path: String, force: Bool = false) throws -> [(ArchiveRecord, ArchiveRecordOrigin)] {
    let reader = try ArchiveReader(path: path, force: force)
    var records: [(ArchiveRecord, ArchiveRecordOrigin)] = []
    try reader.forEachRecord(now: timestamp(1_767_500_000_000)) { records.append(($0, $1)) }
    return records
}

extension Array where Element == (ArchiveRecord, ArchiveRecordOrigin) {
    var books: [Book] { compactMap { if case .book(let book) = $0.0 { return book } else { return nil } } }
    var sessions: [ReadingSession] { compactMap { if case .session(let session) = $0.0 { return session } else { return nil } } }
    var annotations: [Annotation] { compactMap { if case .annotation(let annotation) = $0.0 { return annotation } else { return nil } } }
    var additions: [Annotation] { compactMap { if case .addition(let annotation) = $0.0 { return annotation } else { return nil } } }
}

/// The error `body` throws, as an ArchiveError (nil when it throws none).
func archiveError(_ body: () throws -> Void) -> ArchiveError? {
    do {
        try body()
        return nil
    } catch let error as ArchiveError {
        return error
    } catch {
        Issue.record("unexpected error \(error)")
        return nil
    }
}

/// The place of `path` among the files `archive`'s manifest lists, from 1, as
/// ``ArchiveError/checksumMismatch(entry:)`` names an entry.
func manifestEntry(_ path: String, of archive: String) throws -> Int {
    let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: archive + "/manifest.json"))) as? [String: Any]
    let paths = try #require(manifest?["files"] as? [String: Any]).keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    return try #require(paths.firstIndex(of: path)) + 1
}
