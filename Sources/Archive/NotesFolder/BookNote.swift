public import Journal

/// What one book's note in a notes folder is made from: the book, its tags, and its live
/// notes and quotes with theirs. VaultKit reads them from the vault; nothing here touches it.
public struct BookNoteSource: Sendable {
    public let book: Book
    /// The tags the book shows (``Tag/shown(_:)``).
    public let tags: [String]
    /// The book's live notes and quotes, in any order: the note shows them oldest first.
    public let annotations: [Annotation]
    /// The tags each note or quote shows, by id; absent when none.
    public let annotationTags: [EntityID: [String]]

    public init(book: Book, tags: [String], annotations: [Annotation], annotationTags: [EntityID: [String]]) {
        self.book = book
        self.tags = tags
        self.annotations = annotations
        self.annotationTags = annotationTags
    }
}

/// One property of a note's front matter that bmvault writes (Docs/NOTES-FOLDER.md,
/// "Properties"): its key, its value as strings (a scalar is one string, a list its items),
/// and its YAML text, lines ending in a line break (empty when the book has no value: the
/// key is then left out).
struct NoteProperty: Equatable {
    let key: String
    let values: [String]
    let text: String
}

/// A book's note, made: the properties bmvault manages and the managed region's text.
struct BookNoteContent {
    let properties: [NoteProperty]
    /// From the begin marker's line to the end marker's line break, both included.
    let region: [UInt8]
}

/// Renders a book's note (pure: records in, text out). Layout: Docs/NOTES-FOLDER.md.
enum BookNoteRenderer {
    /// The keys bmvault writes in a note's front matter, in the order it writes them. Every
    /// other key is the reader's, and left as it is.
    static let managedKeys = ["title", "aliases", "authors", "status", "rating", "tags", "started", "finished", "pages", "bmvault-id"]

    /// How many hex digits of a record's random part a block id has (`^bm-` and these).
    static let blockIDDigits = 12

    static func render(_ source: BookNoteSource) -> BookNoteContent {
        BookNoteContent(properties: properties(source), region: region(source))
    }

    // MARK: - Properties

    static func properties(_ source: BookNoteSource) -> [NoteProperty] {
        let book = source.book
        var properties: [NoteProperty] = []
        func scalar(_ key: String, _ value: String?, quoted: Bool) {
            guard let value else { return }
            properties.append(NoteProperty(key: key, values: [value],
                                           text: "\(key): \(quoted ? MarkdownText.yamlString(value) : value)\n"))
        }
        func list(_ key: String, _ values: [String]) {
            guard !values.isEmpty else { return }
            properties.append(NoteProperty(key: key, values: values,
                                           text: "\(key):\n" + values.map { "  - \(MarkdownText.yamlString($0))\n" }.joined()))
        }
        scalar("title", book.title, quoted: true)
        list("aliases", [book.title])
        list("authors", book.authors)
        scalar("status", book.readingLog.status?.rawValue, quoted: false)
        scalar("rating", book.rating.map(JSONText.number), quoted: false)
        list("tags", tagSafe(source.tags))
        let events = book.readingLog.events
        scalar("started", events.last { $0.status == .reading && $0.dayKnown }.map { day($0.on) }, quoted: false)
        scalar("finished", events.last { $0.status == .finished && $0.dayKnown }.map { day($0.on) }, quoted: false)
        scalar("pages", book.edition.pages.map(String.init), quoted: false)
        scalar("bmvault-id", book.id.rawValue, quoted: false)
        return properties
    }

    /// `2026-01-03`: the local day of `timestamp`.
    static func day(_ timestamp: Timestamp) -> String {
        String(LocalTimeText.minute(timestamp).prefix(10))
    }

    /// Tags as a notes app takes them: letters, digits, `_`, `-` and `/` kept, every other
    /// character a `-`, leading `#`s dropped; a tag of digits only gets a leading `_`
    /// (Obsidian wants one character that is not a digit). Duplicates made so are written once.
    static func tagSafe(_ tags: [String]) -> [String] {
        var seen = Set<String>()
        var safe: [String] = []
        for tag in tags {
            var text = String(tag.drop { $0 == "#" }.map { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" || $0 == "/" ? $0 : "-" })
            guard !text.isEmpty else { continue }
            if text.allSatisfy({ $0.isASCII && $0.isNumber }) { text = "_" + text }
            if seen.insert(text.lowercased()).inserted { safe.append(text) }
        }
        return safe
    }

    /// The value every managed property has, in a form that does not depend on how YAML
    /// spells it: what the state file's properties hash is made of.
    static func canonical(_ values: [String: [String]]) -> [UInt8] {
        var out: [UInt8] = []
        for key in managedKeys {
            guard let items = values[key], !items.isEmpty else { continue }
            out.append(contentsOf: key.utf8)
            for item in items {
                out.append(0x1F)
                out.append(contentsOf: item.utf8)
            }
            out.append(0x1E)
        }
        return out
    }

    static func canonical(_ properties: [NoteProperty]) -> [UInt8] {
        canonical(Dictionary(properties.map { ($0.key, $0.values) }, uniquingKeysWith: { first, _ in first }))
    }

    // MARK: - The managed region

    static let beginMarker = "<!-- bmvault:begin · kept by bmvault export; write above or below this part, not in it -->"
    static let endMarker = "<!-- bmvault:end -->"
    static let beginPrefix = "<!-- bmvault:begin"

    static func region(_ source: BookNoteSource) -> [UInt8] {
        var out: [UInt8] = []
        out.append(contentsOf: beginMarker.utf8)
        out.append(contentsOf: "\n\n".utf8)
        let annotations = source.annotations.sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
        var taken = Set<String>()
        for annotation in annotations {
            let id = blockID(annotation.id, taken: taken)
            taken.insert(id)
            append(annotation, blockID: id, tags: source.annotationTags[annotation.id] ?? [], to: &out)
        }
        out.append(contentsOf: endMarker.utf8)
        out.append(0x0A)
        return out
    }

    /// `bm-0123456789ab`: the first ``blockIDDigits`` hex digits of the record's random part
    /// (``ShortID``), fixed by its id alone, so a link to it keeps working whatever else the
    /// note holds later. Two records of one note alike in those digits (about one chance in
    /// 10^8 for a note of 1,000 quotes) cannot share one: the one written later gets all 19
    /// digits (all 32 hex digits of the id if even those are alike).
    static func blockID(_ id: EntityID, taken: Set<String>) -> String {
        let part = ShortID.randomPart(of: id)
        let short = "bm-" + part.prefix(blockIDDigits)
        if !taken.contains(short) { return short }
        let long = "bm-" + part
        if !taken.contains(long) { return long }
        return "bm-" + id.rawValue.filter { $0 != "-" }
    }

    /// A quote as a blockquote (its locator as the last line), a note as an Obsidian callout
    /// (`> [!note] p. 42`: a blockquote to other tools), so either is one block; then its
    /// block id on a line of its own, the comment and the tags.
    private static func append(_ annotation: Annotation, blockID: String, tags: [String], to out: inout [UInt8]) {
        var block: [UInt8] = []
        let conflict = annotation.conflictReason.map { reason in
            reason == .bothEdited ? "conflict copy: two devices changed it" : "conflict: edited after it was deleted on another device"
        }
        switch annotation.kind {
        case .quote:
            MarkdownBody.append(annotation.body, encoding: MarkdownBody.encoding(of: annotation.body), quoted: true, to: &block)
            let caption = [annotation.locator.map { MarkdownText.inline($0.text) }, conflict].compactMap { $0 }
            if !caption.isEmpty { block.append(contentsOf: ">\n> — \(caption.joined(separator: " · "))\n".utf8) }
        case .note:
            let title = [annotation.locator.map { MarkdownText.inline($0.text) }, conflict].compactMap { $0 }.joined(separator: " · ")
            block.append(contentsOf: "> [!note]\(title.isEmpty ? "" : " " + title)\n".utf8)
            MarkdownBody.append(annotation.body, encoding: MarkdownBody.encoding(of: annotation.body), quoted: true, to: &block)
        }
        block.append(contentsOf: "\n^\(blockID)\n".utf8)
        if let comment = annotation.comment {
            block.append(0x0A)
            MarkdownBody.append(comment, encoding: MarkdownBody.encoding(of: comment), quoted: false, to: &block)
        }
        let safeTags = tagSafe(tags)
        if !safeTags.isEmpty {
            block.append(contentsOf: "\nTags: \(safeTags.map { "#" + $0 }.joined(separator: " "))\n".utf8)
        }
        block.append(0x0A)
        appendWithoutObsidianComments(block, to: &out)
    }

    /// `%%` opens a comment in Obsidian, which would hide the rest of the note (and the
    /// region's end): each is written `%&#37;`, which shows as `%%`.
    static func appendWithoutObsidianComments(_ bytes: [UInt8], to out: inout [UInt8]) {
        let percent = UInt8(ascii: "%")
        var start = 0
        var index = 0
        while let found = bytes[index...].firstIndex(of: percent) {
            if found + 1 < bytes.count, bytes[found + 1] == percent {
                out.append(contentsOf: bytes[start..<found])
                out.append(contentsOf: "%&#37;".utf8)
                start = found + 2
                index = found + 2
            } else {
                index = found + 1
            }
            if index >= bytes.count { break }
        }
        out.append(contentsOf: bytes[start...])
    }
}
