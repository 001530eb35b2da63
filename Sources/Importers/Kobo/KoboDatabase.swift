public import Journal
import VaultCrypto

/// What a Kobo's own software keeps in `.kobo/KoboReader.sqlite`, read for a journal: the
/// books (`content` rows of `ContentType` 6: title, `Attribution` as author, ISBN,
/// `___PercentRead`, `ReadStatus`, `DateLastRead`) and the reader's bookmarks (`Bookmark`:
/// highlights with their `Text`, notes as a highlight's `Annotation`, dog-ears), each
/// placed in its chapter by the book's table of contents (`content` rows of type 899, and
/// of type 9, the book's files in reading order).
///
/// A book the reader opened (`ReadStatus` 1 or more) or highlighted is read; one never
/// opened is only counted: a device's library is not a reading list.
public struct KoboDatabase: Sendable {
    public struct Highlight: Sendable, Equatable {
        public let text: String
        /// The note the reader typed on it (`Annotation`), if any.
        public let note: String?
        /// The chapter's title from the book's table of contents, when it is known.
        public let chapter: String?
        /// How far into its chapter (`ChapterProgress`), 0 to 1.
        public let chapterProgress: Double?
        /// When it was made (`DateCreated`, UTC).
        public let createdAt: Timestamp?
        /// `kobo:` and the SHA-256 of its `BookmarkID`: the same on every read of the file.
        public let importKey: String

        /// Where it is, as the journal shows it: `Chapter 3 · 48% of the chapter`, or what of
        /// that is known (every quote has a locator).
        public var locatorText: String {
            let place = chapterProgress.map { "\(Int(($0 * 100).rounded()))% of the chapter" }
            let parts = [chapter, place].compactMap { $0 }
            return parts.isEmpty ? "Kobo highlight" : parts.joined(separator: " · ")
        }
    }

    public struct Book: Sendable, Equatable {
        public let title: String
        public let authors: [String]
        /// `kobo:` and the SHA-256 of the book's `ContentID`, and `isbn:` when it has a valid one.
        public let identifiers: [String]
        public let isbn: String?
        /// `___PercentRead`, 0 to 100; nil when 0 or absent.
        public let percentRead: Double?
        /// `ReadStatus` 1 (reading) or 2 (finished); nil for a book never opened.
        public let status: ReadingStatus?
        /// The day that status began, when Kobo says (`LastTimeStartedReading`,
        /// `LastTimeFinishedReading`); else `DateLastRead`, which only places it.
        public let statusDay: Timestamp?
        public let statusDayKnown: Bool
        public let highlights: [Highlight]
        /// Dog-eared pages: counted, not imported (no text of the book).
        public let dogEars: Int
        /// Highlights without text, and bookmarks Kobo hides (deleted): counted only.
        public let withoutText: Int
    }

    /// The books read, in the order of their titles.
    public let books: [Book]
    /// Books on the device never opened nor highlighted: counted only.
    public let unopened: Int

    /// Whether the file at `path` is a Kobo database (its two tables).
    public static func isKoboDatabase(at path: String) -> Bool {
        ForeignDatabase.has(["content", "Bookmark"], at: path)
    }

    /// Reads the Kobo database at `path` (never written: ``ForeignDatabase``).
    public static func read(at path: String) throws(ImportError) -> KoboDatabase {
        let database = try ForeignDatabase(path: path)
        let tables = try database.tables()
        for table in ["content", "Bookmark"] where !tables.contains(table) { throw .missingFromDatabase("the table \(table)") }
        let contentColumns = try database.columns(of: "content"), bookmarkColumns = try database.columns(of: "Bookmark")
        for column in ["ContentID", "ContentType", "BookID", "Title", "Attribution", "ReadStatus", "VolumeIndex"]
        where !contentColumns.contains(column) { throw .missingFromDatabase("the column content.\(column)") }
        for column in ["BookmarkID", "VolumeID", "ContentID", "Text", "Annotation"] where !bookmarkColumns.contains(column) {
            throw .missingFromDatabase("the column Bookmark.\(column)")
        }
        /// A column the firmware may not have yet, or NULL.
        func optional(_ column: String, of columns: Set<String>) -> String { columns.contains(column) ? column : "NULL" }

        // The bookmarks, by book.
        struct Mark { let id: String, place: String, text: String?, note: String?, type: String?, progress: Double?, created: String?, hidden: Bool }
        var marks: [String: [Mark]] = [:]
        try database.forEachRow("""
            SELECT BookmarkID, VolumeID, ContentID, Text, Annotation, \(optional("Type", of: bookmarkColumns)) AS Type,
                   \(optional("ChapterProgress", of: bookmarkColumns)) AS ChapterProgress,
                   \(optional("DateCreated", of: bookmarkColumns)) AS DateCreated, \(optional("Hidden", of: bookmarkColumns)) AS Hidden
            FROM Bookmark ORDER BY VolumeID, DateCreated, BookmarkID
            """) { row in
            guard let id = row.text("BookmarkID"), let volume = row.text("VolumeID") else { return }
            let hidden = row.text("Hidden").map { ["true", "1"].contains($0.lowercased()) } ?? false
            marks[volume, default: []].append(Mark(id: id, place: row.text("ContentID") ?? "", text: row.text("Text"), note: row.text("Annotation"),
                                                   type: row.text("Type"), progress: row.double("ChapterProgress"),
                                                   created: row.text("DateCreated"), hidden: hidden))
        }

        // The books: opened or highlighted ones read, the others counted.
        struct BookRow { let id: String, title: String?, author: String?, isbn: String?, percent: Int64?, status: Int64,
                     lastRead: String?, started: String?, finished: String? }
        var rows: [BookRow] = []
        var unopened = 0
        try database.forEachRow("""
            SELECT ContentID, Title, Attribution, ReadStatus, \(optional("ISBN", of: contentColumns)) AS ISBN,
                   \(optional("___PercentRead", of: contentColumns)) AS PercentRead, \(optional("DateLastRead", of: contentColumns)) AS DateLastRead,
                   \(optional("LastTimeStartedReading", of: contentColumns)) AS Started,
                   \(optional("LastTimeFinishedReading", of: contentColumns)) AS Finished
            FROM content WHERE ContentType = 6 ORDER BY Title, ContentID
            """) { row in
            guard let id = row.text("ContentID") else { return }
            let status = row.integer("ReadStatus") ?? 0
            guard status >= 1 || marks[id]?.contains(where: { $0.text.map { !$0.allSatisfy(\.isWhitespace) } ?? false }) == true else {
                unopened += 1
                return
            }
            rows.append(BookRow(id: id, title: row.text("Title"), author: row.text("Attribution"), isbn: row.text("ISBN"),
                            percent: row.integer("PercentRead"), status: status, lastRead: row.text("DateLastRead"),
                            started: row.text("Started"), finished: row.text("Finished")))
        }

        var books: [Book] = []
        for row in rows {
            let chapters = try Chapters(of: row.id, in: database)
            var highlights: [Highlight] = []
            var dogEars = 0, withoutText = 0
            for mark in marks[row.id] ?? [] {
                if mark.type == "dogear" || (mark.type == nil && mark.text == nil && mark.note == nil) {
                    dogEars += 1
                    continue
                }
                guard !mark.hidden, let text = mark.text, !text.allSatisfy(\.isWhitespace) else {
                    withoutText += 1
                    continue
                }
                let note = mark.note.flatMap { $0.allSatisfy(\.isWhitespace) ? nil : $0 }
                highlights.append(Highlight(text: text, note: note, chapter: chapters.title(at: mark.place),
                                            chapterProgress: mark.progress.flatMap { (0...1).contains($0) ? $0 : nil },
                                            createdAt: mark.created.flatMap(Self.timestamp),
                                            importKey: "kobo:" + SHA256.hex(of: Array(mark.id.utf8))))
            }
            let status: ReadingStatus? = switch row.status {
            case 1: .reading
            case 2: .finished
            default: nil
            }
            let known = (status == .finished ? row.finished : status == .reading ? row.started : nil).flatMap(Self.timestamp)
            let isbn = row.isbn.flatMap { try? Edition.checkedISBN($0) }
            let title = ImportedText.line(row.title) ?? Self.fileName(row.id) ?? "Kobo book"
            books.append(Book(title: title, authors: ImportedText.line(row.author).map { [$0] } ?? [],
                              identifiers: ["kobo:" + SHA256.hex(of: Array(row.id.utf8))] + (isbn.map { ["isbn:" + $0] } ?? []),
                              isbn: isbn,
                              percentRead: row.percent.flatMap { (1...100).contains($0) ? Double($0) : nil },
                              status: status, statusDay: known ?? row.lastRead.flatMap(Self.timestamp), statusDayKnown: known != nil,
                              highlights: highlights, dogEars: dogEars, withoutText: withoutText))
        }
        return KoboDatabase(books: books, unopened: unopened)
    }

    /// Kobo's times, `2024-12-15T00:43:25.852` or `2024-12-15T20:51:31Z`, all UTC; nil for
    /// anything else (Kobo's `0000-00-00T00:00:00.000` for never) or a moment out of range.
    static func timestamp(_ text: String) -> Timestamp? {
        let zoned = text.hasSuffix("Z") || text.hasSuffix("z") ? text : text + "Z"
        guard let moment = try? Timestamp(iso8601: zoned),
              (1...HybridTimestamp.latestWallMilliseconds).contains(moment.millisecondsSince1970) else { return nil }
        return moment
    }

    /// A sideloaded book's file name without its folder and extensions (`file:///mnt/onboard/A/Title.kepub.epub`: `Title`).
    private static func fileName(_ contentID: String) -> String? {
        guard contentID.hasPrefix("file://"), let last = contentID.split(separator: "/").last else { return nil }
        return ImportedText.line(String(last.split(separator: ".").first ?? last))
    }
}

/// A book's table of contents as Kobo keeps it, to name the chapter a bookmark is in:
/// entries (`content` rows of type 899, `<book>!!<file>[#fragment]-<n>`) and the book's
/// files in reading order (rows of type 9, `<book>!!<file>`, by `VolumeIndex`).
struct Chapters {
    private struct Entry { let key: Substring, title: String, order: Int64, file: Int64? }
    private var entries: [Entry] = []
    private var files: [Substring: Int64] = [:]

    init(of book: String, in database: ForeignDatabase) throws(ImportError) {
        var read: [(key: Substring, title: String, order: Int64)] = []
        try database.forEachRow("""
            SELECT ContentID, ContentType, Title, VolumeIndex FROM content
            WHERE BookID = ?1 AND ContentType IN (9, 899)
            """, texts: [book]) { row in
            guard let id = row.text("ContentID"), let key = Self.place(id) else { return }
            let order = row.integer("VolumeIndex") ?? 0
            if row.text("ContentType") == "9" {
                files[key] = order
            } else if let title = ImportedText.line(row.text("Title")) {
                // `-1`, `-2`: Kobo's suffix of a table-of-contents entry.
                var entry = key
                if let dash = entry.lastIndex(of: "-"), entry[entry.index(after: dash)...].allSatisfy(\.isNumber),
                   entry.index(after: dash) != entry.endIndex {
                    entry = entry[..<dash]
                }
                read.append((entry, title, order))
            }
        }
        entries = read.sorted { $0.order < $1.order }.map { Entry(key: $0.key, title: $0.title, order: $0.order, file: files[Self.file($0.key)]) }
    }

    /// The part of a `ContentID` after the book's `!!`.
    private static func place(_ contentID: String) -> Substring? {
        guard let range = contentID.range(of: "!!") else { return nil }
        return contentID[range.upperBound...]
    }

    private static func file(_ place: Substring) -> Substring {
        place.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? place
    }

    /// The chapter of a bookmark whose `ContentID` is `contentID`: the entry of that exact
    /// place; else the first entry of its file; else the last entry of the files before it.
    func title(at contentID: String) -> String? {
        guard let place = Self.place(contentID) else { return nil }
        if let exact = entries.first(where: { $0.key == place }) { return exact.title }
        let file = Self.file(place)
        if let first = entries.first(where: { Self.file($0.key) == file }) { return first.title }
        guard let index = files[file] else { return nil }
        return entries.filter { ($0.file ?? .max) < index }.max { ($0.file ?? 0, $0.order) < ($1.file ?? 0, $1.order) }?.title
    }
}
