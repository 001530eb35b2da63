import Foundation

/// calibre's highlights as it exports them, read with Foundation's JSON reader: the viewer's
/// export of one book (`{"type": "calibre_highlights", "version": 1, "highlights": [...]}`)
/// or the library's annotation browser's (`"calibre_annotation_collection"`, `"annotations"`,
/// each annotation alone or beside the calibre `book_id` it belongs to). Neither names the
/// book by its title: the import is told which book (`--book`). calibre writes a byte order
/// mark, and a highlight the reader removed stays in the file with `removed: true`.
public struct CalibreHighlights: Sendable {
    public struct Highlight: Sendable, Equatable {
        /// calibre's id of the highlight: the natural key.
        public let uuid: String
        public let text: String
        public let note: String?
        /// The chapter it is in (the last of `toc_family_titles`), else the file of the book.
        public let chapter: String?
        /// `2021-01-05T11:11:11.123Z`, as written.
        public let timestamp: String?
    }

    public let highlights: [Highlight]
    /// Highlights the reader removed in calibre: counted, never imported.
    public let removed: Int
    /// Bookmarks and other annotations that are no highlight, and highlights without text.
    public let other: Int
    /// The calibre books the file's annotations belong to (a library export may hold several).
    public let calibreBooks: Set<Int>

    public static func read(_ bytes: [UInt8]) throws(ImportError) -> CalibreHighlights {
        var content = bytes[...]
        if content.starts(with: [0xEF, 0xBB, 0xBF]) { content = content.dropFirst(3) }
        guard let root = try? JSONSerialization.jsonObject(with: Data(content)) as? [String: Any] else {
            throw .malformed(line: 1, reason: "not a JSON object")
        }
        guard (root["version"] as? Int) == 1 else { throw .malformed(line: 1, reason: "not calibre's version 1 of its highlights") }
        let items: [Any]
        switch root["type"] as? String {
        case "calibre_highlights": items = root["highlights"] as? [Any] ?? []
        case "calibre_annotation_collection": items = root["annotations"] as? [Any] ?? []
        default: throw .malformed(line: 1, reason: "not a calibre highlights export")
        }
        var highlights: [Highlight] = []
        var removed = 0, other = 0
        var books = Set<Int>()
        for item in items {
            guard var annotation = item as? [String: Any] else { other += 1; continue }
            if let wrapped = annotation["annotation"] as? [String: Any] {
                if let book = annotation["book_id"] as? Int { books.insert(book) }
                annotation = wrapped
            } else if let book = annotation["book_id"] as? Int {
                books.insert(book)
            }
            guard annotation["type"] as? String == "highlight", let uuid = annotation["uuid"] as? String, !uuid.isEmpty else {
                other += 1
                continue
            }
            if annotation["removed"] as? Bool == true {
                removed += 1
                continue
            }
            guard let text = annotation["highlighted_text"] as? String, !text.allSatisfy(\.isWhitespace) else {
                other += 1
                continue
            }
            let chapter = (annotation["toc_family_titles"] as? [String])?.last ?? annotation["spine_name"] as? String
            let note = (annotation["notes"] as? String).flatMap { $0.allSatisfy(\.isWhitespace) ? nil : $0 }
            highlights.append(Highlight(uuid: uuid, text: text, note: note, chapter: chapter, timestamp: annotation["timestamp"] as? String))
        }
        return CalibreHighlights(highlights: highlights, removed: removed, other: other, calibreBooks: books)
    }
}
