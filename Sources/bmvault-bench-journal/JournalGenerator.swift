import Journal

/// A deterministic five-year reading journal, produced in chronological chunks so that a
/// million annotations never sit in memory at once.
///
/// Shape for N annotations: N/50 books, 0.4·N reading sessions, N annotations (about 60%
/// notes of ~300 bytes, 40% quotes of ~200 bytes with a locator), spread evenly over
/// 2021-01-01 … 2025-12-31 UTC. About 15% of annotations carry non-ASCII words, about 5% were
/// edited (version 2-4) and about 2% are tombstones. Every record a chunk names already
/// exists in that chunk or an earlier one (a book is created before anything about it).
struct JournalGenerator {
    static let start: Int64 = 1_609_459_200_000          // 2021-01-01T00:00:00Z
    static let span: Int64 = 5 * 365 * 86_400_000       // five years
    static let end: Int64 = start + span

    let annotationCount: Int
    let bookCount: Int
    let sessionCount: Int
    private var random: SplitMix64
    private var books: [EntityID] = []
    private var nextAnnotation = 0
    private var nextSession = 0

    init(annotations: Int, seed: UInt64) {
        annotationCount = annotations
        bookCount = max(1, annotations / 50)
        sessionCount = annotations * 2 / 5
        random = SplitMix64(seed: seed)
    }

    var isFinished: Bool { nextAnnotation >= annotationCount && books.count >= bookCount && nextSession >= sessionCount }

    /// The title of book `index` (0-based): unique, and named by the prefix `Book 00042`.
    static func titlePrefix(_ index: Int) -> String {
        let digits = String(index + 1)
        return "Book " + String(repeating: "0", count: max(0, 5 - digits.count)) + digits
    }

    /// The next chunk: about `annotationsPerChunk` annotations, with the books and sessions
    /// that fall in the same stretch of time, in creation order.
    mutating func nextChunk(annotationsPerChunk: Int) -> (books: [Book], sessions: [ReadingSession], annotations: [Annotation]) {
        let upTo = min(annotationCount, nextAnnotation + annotationsPerChunk)
        let last = upTo >= annotationCount
        // Everything whose slot starts before the chunk's last annotation slot.
        let booksUpTo = last ? bookCount : min(bookCount, Int((Int64(upTo) * Int64(bookCount) + Int64(annotationCount) - 1) / Int64(annotationCount)))
        let sessionsUpTo = last ? sessionCount : min(sessionCount, Int(Int64(upTo) * Int64(sessionCount) / Int64(annotationCount)))

        var newBooks: [Book] = []
        while books.count < max(booksUpTo, 1) {
            let book = makeBook(books.count)
            books.append(book.id)
            newBooks.append(book)
        }
        var sessions: [ReadingSession] = []
        while nextSession < sessionsUpTo {
            sessions.append(makeSession(nextSession))
            nextSession += 1
        }
        var annotations: [Annotation] = []
        annotations.reserveCapacity(upTo - nextAnnotation)
        while nextAnnotation < upTo {
            annotations.append(makeAnnotation(nextAnnotation))
            nextAnnotation += 1
        }
        return (newBooks, sessions, annotations)
    }

    // MARK: - Records

    private func slotTime(_ index: Int, of count: Int) -> Int64 {
        Self.start + Int64(index) * Self.span / Int64(max(count, 1))
    }

    private mutating func jitter(_ index: Int, of count: Int) -> Int64 {
        let gap = Self.span / Int64(max(count, 1))
        return gap > 1 ? Int64(random.below(Int(gap))) : 0
    }

    /// A book being read at the time of slot `index` of `count`: one of the five most
    /// recently added books created no later than that slot.
    private mutating func currentBook(_ index: Int, of count: Int) -> EntityID {
        let newest = min(books.count - 1, Int(Int64(index) * Int64(bookCount) / Int64(max(count, 1))))
        let back = min(newest, random.below(5))
        return books[newest - back]
    }

    private mutating func makeBook(_ index: Int) -> Book {
        let created = Timestamp(millisecondsSince1970: slotTime(index, of: bookCount))
        var title = Self.titlePrefix(index) + " —"
        for _ in 0..<random.within(2...4) {
            var word = random.chance(0.1) ? pick(Words.international) : pick(Words.common)
            if let first = word.first { word = first.uppercased() + word.dropFirst() }
            title += " " + word
        }
        var authors = [author()]
        if random.chance(0.1) { authors.append(author()) }
        let progress = Double(random.within(0...100))
        return Book(id: EntityID.generate(at: created, using: &random), title: title, authors: authors, progress: progress,
                    createdAt: created, updatedAt: created, deletedAt: nil, version: 1)
    }

    private mutating func makeSession(_ index: Int) -> ReadingSession {
        let started = slotTime(index, of: sessionCount) + jitter(index, of: sessionCount)
        let book = currentBook(index, of: sessionCount)
        let ended = started + Int64(random.within(10...120)) * 60_000
        return ReadingSession(id: EntityID.generate(at: Timestamp(millisecondsSince1970: started), using: &random),
                              bookID: book, startedAt: Timestamp(millisecondsSince1970: started),
                              endedAt: Timestamp(millisecondsSince1970: ended), pagesRead: random.within(1...80))
    }

    private mutating func makeAnnotation(_ index: Int) -> Annotation {
        let createdMillis = slotTime(index, of: annotationCount) + jitter(index, of: annotationCount)
        let created = Timestamp(millisecondsSince1970: createdMillis)
        let book = currentBook(index, of: annotationCount)
        let kind: AnnotationKind = random.chance(0.6) ? .note : .quote
        let body = text(targetBytes: kind == .note ? random.within(240...360) : random.within(160...240),
                        international: random.chance(0.15), rare: random.chance(0.005))
        var locatorText: String?
        if kind == .quote || random.chance(0.3) {
            switch random.below(10) {
            case 0: locatorText = "ch. \(random.within(1...40))"
            case 1: locatorText = "loc \(random.within(10...9000))"
            default: locatorText = "p. \(random.within(1...640))"
            }
        }
        let locator = locatorText.flatMap { try? Locator($0) }
        var updated = created
        var deleted: Timestamp?
        var version: Int64 = 1
        let fate = random.below(100)
        if fate < 7 {   // 0-4: edited (5%); 5-6: tombstoned (2%)
            let later = min(Self.end, createdMillis + Int64(random.within(3_600...90 * 86_400)) * 1000)
            updated = Timestamp(millisecondsSince1970: later)
            if fate < 5 {
                version = Int64(random.within(2...4))
            } else {
                version = Int64(random.within(2...3))
                deleted = updated
            }
        }
        return Annotation(id: EntityID.generate(at: created, using: &random), bookID: book, kind: kind, body: body,
                          locator: locator, createdAt: created, updatedAt: updated, deletedAt: deleted, version: version)
    }

    // MARK: - Text

    private mutating func pick(_ words: [String]) -> String {
        words[random.below(words.count)]
    }

    private mutating func author() -> String {
        pick(Words.firstNames) + " " + pick(Words.lastNames)
    }

    /// Sentences of common words until about `targetBytes` of UTF-8.
    private mutating func text(targetBytes: Int, international: Bool, rare: Bool) -> String {
        var words: [String] = []
        var bytes = 0
        var specials: [String] = []
        if international { for _ in 0..<random.within(1...3) { specials.append(pick(Words.international)) } }
        if rare { specials.append(Words.rare) }
        var sentenceStart = true
        while bytes < targetBytes {
            var word: String
            if !specials.isEmpty && random.chance(0.1) {
                word = specials.removeLast()
            } else {
                word = pick(Words.common)
            }
            if sentenceStart, let first = word.first {
                word = first.uppercased() + word.dropFirst()
                sentenceStart = false
            }
            if random.chance(0.09) {
                word += random.chance(0.8) ? "." : (random.chance(0.5) ? "?" : ";")
                sentenceStart = !word.hasSuffix(";")
            } else if random.chance(0.06) {
                word += ","
            }
            words.append(word)
            bytes += word.utf8.count + 1
        }
        words.append(contentsOf: specials)
        var result = words.joined(separator: " ")
        if let last = result.last, last == "," || last == ";" { result.removeLast() }
        if result.last != "." && result.last != "?" { result += "." }
        return result
    }
}
