public import Journal

/// What KOReader's statistics plugin keeps (`settings/statistics.sqlite3`), read as reading
/// sessions: one row per page turn (`page_stat_data`: book, page, start time, seconds, the
/// book's pages then), books in `book` (title, authors, KOReader's partial MD5, pages).
///
/// One book's page turns with no gap of more than ``Rules/gap`` seconds between one page's
/// end (its start plus its seconds) and the next page's start are one session, from the
/// first page's start to the last page's end; its pages are the distinct pages turned in
/// it. A session shorter than ``Rules/minimumSeconds`` is counted, not kept.
public struct KOReaderStatistics: Sendable {
    /// What a session recorded from this file says of where it came from
    /// (``ReadingSession/source``).
    public static let sessionSource = "koreader"

    /// How page turns become sessions (`import --gap`, `--min-session`).
    public struct Rules: Sendable, Equatable {
        /// The longest pause, in seconds, inside one session.
        public var gap: Int64
        /// The shortest session kept, in seconds.
        public var minimumSeconds: Int64

        public static let standard = Rules(gap: 15 * 60, minimumSeconds: 60)

        public init(gap: Int64, minimumSeconds: Int64) {
            self.gap = gap
            self.minimumSeconds = minimumSeconds
        }
    }

    public struct Session: Sendable, Equatable {
        public let startedAt: Timestamp
        public let endedAt: Timestamp
        /// Distinct pages turned in it.
        public let pages: Int
    }

    public struct Book: Sendable, Equatable {
        public let title: String
        public let authors: [String]
        /// KOReader's partial MD5 of the book file (`book.md5`), lowercase hex; nil when absent.
        public let partialMD5: String?
        /// The book's pages, as KOReader last counted them.
        public let pages: Int?
        /// The sessions kept, in the order they started.
        public let sessions: [Session]
        /// Sessions shorter than the rules keep: counted only.
        public let tooShort: Int
    }

    /// Books with at least one page turn, in the file's order of books.
    public let books: [Book]
    /// Every page turn read.
    public let pageTurns: Int

    /// Whether the file at `path` is a statistics database (its two tables).
    public static func isStatistics(at path: String) -> Bool {
        ForeignDatabase.has(["book", "page_stat_data"], at: path)
    }

    /// Reads the statistics database at `path` (never written: ``ForeignDatabase``).
    public static func read(at path: String, rules: Rules = .standard) throws(ImportError) -> KOReaderStatistics {
        let database = try ForeignDatabase(path: path)
        let tables = try database.tables()
        for table in ["book", "page_stat_data"] where !tables.contains(table) { throw .missingFromDatabase("the table \(table)") }
        let bookColumns = try database.columns(of: "book")
        for column in ["id", "title", "authors", "md5", "pages"] where !bookColumns.contains(column) {
            throw .missingFromDatabase("the column book.\(column)")
        }

        struct Turn { let page: Int64, start: Int64, end: Int64 }
        var turns: [Int64: [Turn]] = [:]
        var count = 0
        // Seconds since 1970 that are moments bmvault takes (a hostile file's value near 2^63
        // would overflow in milliseconds); a duration is at most a day.
        let latest = HybridTimestamp.latestWallMilliseconds / 1000
        try database.forEachRow("""
            SELECT id_book, page, start_time, duration FROM page_stat_data ORDER BY id_book, start_time, page
            """) { row in
            guard let book = row.integer("id_book"), let page = row.integer("page"), let start = row.integer("start_time"),
                  (0...latest).contains(start) else { return }
            let seconds = min(max(row.integer("duration") ?? 0, 0), 86_400)
            turns[book, default: []].append(Turn(page: page, start: start, end: min(start + seconds, latest)))
            count += 1
        }

        var books: [Book] = []
        try database.forEachRow("SELECT id, title, authors, md5, pages FROM book ORDER BY id") { row in
            guard let id = row.integer("id"), let pageTurns = turns[id], !pageTurns.isEmpty else { return }
            var sessions: [Session] = []
            var tooShort = 0
            var index = pageTurns.startIndex
            while index < pageTurns.endIndex {
                let start = pageTurns[index].start
                var end = pageTurns[index].end
                var pages: Set<Int64> = [pageTurns[index].page]
                index += 1
                while index < pageTurns.endIndex, pageTurns[index].start - end <= rules.gap {
                    end = max(end, pageTurns[index].end)
                    pages.insert(pageTurns[index].page)
                    index += 1
                }
                if end - start < rules.minimumSeconds {
                    tooShort += 1
                } else {
                    sessions.append(Session(startedAt: Timestamp(millisecondsSince1970: start * 1000),
                                            endedAt: Timestamp(millisecondsSince1970: end * 1000),
                                            pages: min(pages.count, ReadingSession.maximumPages)))
                }
            }
            let md5 = row.text("md5").map { $0.lowercased() }.flatMap { $0.count == 32 && $0.allSatisfy(\.isHexDigit) ? $0 : nil }
            let title = ImportedText.line(row.text("title")) ?? md5.map { "KOReader book \($0.prefix(8))" } ?? "KOReader book"
            let authors = (row.text("authors") ?? "").split(whereSeparator: \.isNewline).compactMap { ImportedText.line(String($0)) }
                .filter { $0 != "N/A" }
            let pages = row.integer("pages").flatMap { (1...Int64(ReadingSession.maximumPages)).contains($0) ? Int($0) : nil }
            books.append(Book(title: title, authors: authors, partialMD5: md5, pages: pages, sessions: sessions, tooShort: tooShort))
        }
        return KOReaderStatistics(books: books, pageTurns: count)
    }
}

/// Text another program's database holds, made a one-line value the journal takes: line
/// breaks and control characters become spaces, white space at either end goes, and it is
/// cut to ``TextRules/maximumLineBytes`` on a character's boundary. Nil when nothing is left.
enum ImportedText {
    static func line(_ text: String?) -> String? {
        guard let text else { return nil }
        var cleaned = String(text.unicodeScalars.map { $0.properties.generalCategory == .control || $0 == "\u{2028}" || $0 == "\u{2029}" ? " " : Character($0) })
        cleaned = cleaned.trimmingCharacters(in: " \t")
        while cleaned.utf8.count > TextRules.maximumLineBytes { cleaned.removeLast() }
        return cleaned.isEmpty ? nil : cleaned
    }
}
