import VaultCrypto

/// What a KOReader sidecar (`<book>.sdr/metadata.<ext>.lua`) holds for a journal: the book,
/// how far it was read, and its highlights, notes and page bookmarks.
///
/// Two layouts exist: the `annotations` list of KOReader 2024.07 and later, and before it
/// `highlight` (by page) beside `bookmarks` (whose `notes` is the highlighted text and `text`
/// the reader's note). A file of the new layout often still holds the old tables: the new
/// one wins, or everything would be read twice. Both give the same items with the same keys.
public struct KOReaderSidecar: Sendable {
    public struct Highlight: Sendable, Equatable {
        public let text: String
        /// The note the reader typed on it, if any.
        public let note: String?
        public let chapter: String?
        /// The page as KOReader numbered it when the highlight was made.
        public let pageNumber: Int?
        /// KOReader's local time of the highlight, `YYYY-MM-DD HH:MM:SS`, kept as written.
        public let datetime: String
        public let pos0: String?
        public let pos1: String?
        /// (partial MD5, datetime, pos0, pos1), SHA-256: the same in both layouts.
        public let naturalKey: String
    }

    public let title: String?
    public let authors: [String]
    /// KOReader's partial MD5 of the book file (`partial_md5_checksum`, or `stats.md5`).
    public let partialMD5: String?
    /// 0 to 100.
    public let percentFinished: Double?
    /// `reading`, `complete`, `abandoned`, ...: `summary.status` as written.
    public let status: String?
    /// 1 to 5, when the reader rated the book.
    public let rating: Int?
    public let highlights: [Highlight]
    /// Page bookmarks (no text of the book): progress hints.
    public let bookmarks: Int

    /// A page as KOReader writes it (a Lua number, whole), or nil when it is no page: a
    /// number a hostile file chose, NaN, an infinity or one beyond `Int`, would trap in
    /// `Int(_:)` (found by `Scripts/fuzz`).
    static func pageNumber(_ number: Double) -> Int? {
        Int(exactly: number.rounded(.towardZero))
    }

    public static func read(_ bytes: [UInt8]) throws(ImportError) -> KOReaderSidecar {
        let root = try LuaLiteralReader.read(bytes)
        guard case .table = root else { throw .malformed(line: 1, reason: "the file does not return a table") }
        let properties = root["doc_props"], stats = root["stats"]
        let title = nonEmpty(properties?["title"]?.string) ?? nonEmpty(stats?["title"]?.string)
        let authorText = nonEmpty(properties?["authors"]?.string) ?? nonEmpty(stats?["authors"]?.string)
        let authors = authorText.map { $0.split(separator: "\n").map { String($0) }.filter { !$0.isEmpty } } ?? []
        let md5 = nonEmpty(root["partial_md5_checksum"]?.string) ?? nonEmpty(stats?["md5"]?.string)
        let percent = root["percent_finished"]?.number.map { min(max($0 * 100, 0), 100) }
        let summary = root["summary"]
        let rating = summary?["rating"]?.number.flatMap { (1...5).contains($0) ? Int($0) : nil }

        var highlights: [Highlight] = []
        var bookmarks = 0
        func key(_ datetime: String, _ pos0: String?, _ pos1: String?) -> String {
            SHA256.hex(of: Array("koreader\n\(md5 ?? "")\n\(datetime)\n\(pos0 ?? "")\n\(pos1 ?? "")".utf8))
        }
        if let annotations = root["annotations"] {
            for (_, item) in annotations.fields {
                guard let pos0 = item["pos0"]?.string else {
                    bookmarks += 1   // a page bookmark: no text of the book
                    continue
                }
                let datetime = item["datetime"]?.string ?? ""
                let pos1 = item["pos1"]?.string
                highlights.append(Highlight(text: item["text"]?.string ?? "", note: nonEmpty(item["note"]?.string),
                                            chapter: item["chapter"]?.string, pageNumber: item["pageno"]?.number.flatMap(Self.pageNumber),
                                            datetime: datetime, pos0: pos0, pos1: pos1, naturalKey: key(datetime, pos0, pos1)))
            }
        } else {
            // The old layout: highlights by page; a highlighted bookmark of the same moment and
            // place carries the reader's note in `text` (unless that is KOReader's own text).
            let marks = root["bookmarks"]?.fields.map(\.value) ?? []
            for (page, list) in root["highlight"]?.fields ?? [] {
                for (_, item) in list.fields {
                    let datetime = item["datetime"]?.string ?? ""
                    let pos0 = item["pos0"]?.string, pos1 = item["pos1"]?.string
                    let mark = marks.first { $0["datetime"]?.string == datetime && $0["pos0"]?.string == pos0 }
                    let note = mark.flatMap { mark in mark["text"]?.string.flatMap { isOwnText($0, datetime: datetime) ? nil : nonEmpty($0) } }
                    var pageNumber: Int?
                    if case .number(let number) = page { pageNumber = Self.pageNumber(number) }
                    highlights.append(Highlight(text: item["text"]?.string ?? "", note: note, chapter: item["chapter"]?.string,
                                                pageNumber: pageNumber, datetime: datetime, pos0: pos0, pos1: pos1,
                                                naturalKey: key(datetime, pos0, pos1)))
                }
            }
            bookmarks = marks.filter { $0["pos0"] == nil && $0["highlighted"] != .bool(true) }.count
        }
        // One order for both layouts (the 2024 list is by position, the old one by page).
        highlights.sort { ($0.datetime, $0.pos0 ?? "") < ($1.datetime, $1.pos0 ?? "") }
        return KOReaderSidecar(title: title, authors: authors, partialMD5: md5, percentFinished: percent,
                               status: summary?["status"]?.string, rating: rating, highlights: highlights, bookmarks: bookmarks)
    }

    /// KOReader's own text of a bookmark (`Page 48 <text> @ 2020-11-16 18:51:04`), which
    /// is not a note the reader typed.
    static func isOwnText(_ text: String, datetime: String) -> Bool {
        text.hasPrefix("Page ") && text.hasSuffix(" @ " + datetime)
    }

    private static func nonEmpty(_ text: String?) -> String? {
        guard let text, !text.allSatisfy(\.isWhitespace) else { return nil }
        return text
    }
}
