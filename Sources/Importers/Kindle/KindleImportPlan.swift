import Journal

/// What a `My Clippings.txt` holds for a journal, book by book: its quotes (each highlight,
/// with the versions a re-highlight replaced and the notes typed on it), the notes typed
/// where no highlight is, and what is only counted (bookmarks: progress hints; clipping-limit
/// placeholders: no book text). Nothing the file holds is dropped without being counted.
public struct KindleImportPlan: Sendable {
    public struct Quote: Sendable {
        /// The version kept: the longest of those that overlap (the latest, at equal length).
        public var highlight: KindleClipping
        /// The other versions of the same passage (exact duplicates, shorter or partial
        /// re-highlights), oldest first: kept as the quote's history, never dropped silently.
        public var replaced: [KindleClipping]
        /// Notes the reader typed on this highlight (same location end, or inside its range).
        public var comments: [KindleClipping]
    }

    public struct Book: Sendable {
        public let title: String
        public let author: String?
        public var quotes: [Quote] = []
        /// Notes with no highlight to belong to.
        public var notes: [KindleClipping] = []
        public var bookmarks: [KindleClipping] = []
        public var clippingLimitPlaceholders = 0
        /// Highlights and notes without text (a highlight of an image, a cleared note).
        public var empty = 0
        /// Notes saved twice on one highlight with the same text: one comment each.
        public var repeatedNotes = 0
        /// Clippings of kind `clip` (articles clipped from the web), imported as quotes.
        public var clips = 0
        /// Each quote's kept text, normalised (``KindleImportPlan/normalized(_:)``), by index:
        /// what every later highlight of the book is compared with.
        var normalizedTexts: [String] = []
    }

    /// The books, in the order their first clipping appears.
    public private(set) var books: [Book] = []

    public init(_ clippings: [KindleClipping]) {
        var bookIndex: [String: Int] = [:]
        var pendingNotes: [(book: Int, note: KindleClipping)] = []
        for clipping in clippings {
            let key = TextFolding.fold(clipping.title) + "\u{0}" + TextFolding.fold(clipping.author ?? "")
            let index: Int
            if let known = bookIndex[key] {
                index = known
            } else {
                index = books.count
                bookIndex[key] = index
                books.append(Book(title: clipping.title, author: clipping.author))
            }
            switch clipping.kind {
            case .bookmark:
                books[index].bookmarks.append(clipping)
            case .note:
                pendingNotes.append((index, clipping))
            case .highlight, .clip:
                if clipping.isClippingLimitPlaceholder {
                    books[index].clippingLimitPlaceholders += 1
                } else if clipping.body.isEmpty {
                    books[index].empty += 1
                } else {
                    if clipping.kind == .clip { books[index].clips += 1 }
                    Self.add(clipping, to: &books[index])
                }
            }
        }
        // Notes after every highlight is known: a note may come before its highlight.
        for (index, note) in pendingNotes {
            if note.body.isEmpty {
                books[index].empty += 1
            } else if let quote = Self.highlight(for: note, in: books[index]) {
                // The same note saved twice is one comment.
                if books[index].quotes[quote].comments.contains(where: { Self.normalized($0.body) == Self.normalized(note.body) }) {
                    books[index].repeatedNotes += 1
                } else {
                    books[index].quotes[quote].comments.append(note)
                }
            } else {
                books[index].notes.append(note)
            }
        }
    }

    /// Adds a highlight, merged with an earlier one of the same passage: overlapping
    /// positions and one text inside the other (whitespace aside).
    private static func add(_ clipping: KindleClipping, to book: inout Book) {
        let text = normalized(clipping.body)
        for index in book.quotes.indices {
            let kept = book.quotes[index].highlight
            guard overlaps(kept.position, clipping.position) else { continue }
            let keptText = book.normalizedTexts[index]
            guard keptText.containsBytes(text) || text.containsBytes(keptText) else { continue }
            if text.count >= keptText.count {
                book.quotes[index].replaced.append(kept)
                book.quotes[index].highlight = clipping
                book.normalizedTexts[index] = text
            } else {
                book.quotes[index].replaced.append(clipping)
            }
            return
        }
        book.quotes.append(Quote(highlight: clipping, replaced: [], comments: []))
        book.normalizedTexts.append(text)
    }

    /// The quote a note belongs to: the highlight whose location (or page) ends where the
    /// note is, else the one whose range holds it; the nearest in the file among several.
    private static func highlight(for note: KindleClipping, in book: Book) -> Int? {
        func distance(_ index: Int) -> Int { abs(book.quotes[index].highlight.index - note.index) }
        func candidates(_ test: (ClosedRange<Int>, Int) -> Bool) -> Int? {
            let matching = book.quotes.indices.filter { index in
                let position = book.quotes[index].highlight.position
                if let range = position.location, let at = note.position.location?.upperBound { return test(range, at) }
                if note.position.location == nil, let range = position.page, let at = note.position.page?.upperBound { return test(range, at) }
                return false
            }
            return matching.min { distance($0) < distance($1) }
        }
        return candidates { range, at in range.upperBound == at } ?? candidates { range, at in range.contains(at) }
    }

    private static func overlaps(_ a: KindleClipping.Position, _ b: KindleClipping.Position) -> Bool {
        if let first = a.location, let second = b.location { return first.overlaps(second) }
        if let first = a.page, let second = b.page { return first.overlaps(second) }
        return false
    }

    /// `text` with each run of white space (ASCII's, and the no-break space) one space, and
    /// none at either end: how two highlights of one passage are compared. By bytes: it runs
    /// for every highlight of the file.
    static func normalized(_ text: String) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var pendingSpace = false
        var previous: UInt8 = 0
        for byte in text.utf8 {
            let isSpace = byte == 0x20 || (0x09...0x0D).contains(byte)
            if isSpace || (previous == 0xC2 && byte == 0xA0) {
                if previous == 0xC2 && byte == 0xA0 { bytes.removeLast() }   // the lead byte of U+00A0, taken already
                pendingSpace = !bytes.isEmpty
            } else {
                if pendingSpace { bytes.append(0x20) }
                pendingSpace = false
                bytes.append(byte)
            }
            previous = byte
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Every clipping of the file, by what became of it.
    public struct Totals: Sendable, Equatable {
        public var quotes = 0, comments = 0, notes = 0, replaced = 0, repeatedNotes = 0
        public var bookmarks = 0, placeholders = 0, empty = 0

        /// How many clippings these account for: each one in exactly one count.
        public var clippings: Int { quotes + comments + notes + replaced + repeatedNotes + bookmarks + placeholders + empty }
    }

    public var totals: Totals {
        var totals = Totals()
        for book in books {
            totals.quotes += book.quotes.count
            totals.comments += book.quotes.reduce(0) { $0 + $1.comments.count }
            totals.replaced += book.quotes.reduce(0) { $0 + $1.replaced.count }
            totals.notes += book.notes.count
            totals.repeatedNotes += book.repeatedNotes
            totals.bookmarks += book.bookmarks.count
            totals.placeholders += book.clippingLimitPlaceholders
            totals.empty += book.empty
        }
        return totals
    }
}
