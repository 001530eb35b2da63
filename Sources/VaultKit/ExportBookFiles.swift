import Archive
import Journal

/// The live books' Markdown files during an export's pass over the notes and quotes, which
/// come in book order (by id): a book's file is begun, with its sessions, when the pass
/// reaches the book, and a book without notes or quotes gets its file when the pass goes
/// past it. One file is open at a time.
///
/// The sessions are the export's one read of them, in book order too (journal.json's
/// sessions section is written from the same list): each book's come off the front as its
/// file begins, instead of a query per book.
struct ExportBookFiles {
    /// The live books, by id: the order of the pass.
    private let books: [Book]
    private let live: Set<EntityID>
    private let writer: ArchiveWriter
    /// Every session, by book id, then start, then id; `nextSession` is the first not yet
    /// reached.
    private let sessions: [ReadingSession]
    /// The tags of the books that have some, and the files of those that have some.
    private let tags: [EntityID: [String]]
    private let files: [EntityID: [ArchiveBookFile]]
    private var nextSession = 0
    private var next = 0
    private var current: EntityID?

    init(_ liveBooks: [Book], sessions: [ReadingSession], tags: [EntityID: [String]], files: [EntityID: [ArchiveBookFile]],
         writer: ArchiveWriter) {
        books = liveBooks.sorted { $0.id < $1.id }
        live = Set(liveBooks.map(\.id))
        self.sessions = sessions
        self.tags = tags
        self.files = files
        self.writer = writer
    }

    /// Makes the file of `bookID` the one notes are added to, writing the files of the books
    /// before it; false when the book has no file (it is deleted).
    mutating func open(_ bookID: EntityID) -> Bool {
        guard live.contains(bookID) else { return false }
        guard current != bookID else { return true }
        write(upTo: bookID)
        precondition(current == bookID, "an export reads notes and quotes in book order")
        return true
    }

    /// Writes the files of the books the pass did not reach.
    mutating func finish() {
        write(upTo: nil)
    }

    /// Finishes the open file, then writes the files of the books up to `target`, whose file
    /// is left open (every remaining book when nil).
    private mutating func write(upTo target: EntityID?) {
        writer.finishBook()
        current = nil
        while next < books.count {
            let book = books[next]
            if let target, target < book.id { return }
            next += 1
            writer.beginBook(book, sessions: sessions(of: book.id), tags: tags[book.id] ?? [], files: files[book.id] ?? [])
            if book.id == target {
                current = target
                return
            }
            writer.finishBook()
        }
    }

    /// The sessions of `bookID`, the books before it passed over (deleted books have some).
    private mutating func sessions(of bookID: EntityID) -> [ReadingSession] {
        while nextSession < sessions.count, sessions[nextSession].bookID < bookID { nextSession += 1 }
        let first = nextSession
        while nextSession < sessions.count, sessions[nextSession].bookID == bookID { nextSession += 1 }
        return Array(sessions[first..<nextSession])
    }
}
