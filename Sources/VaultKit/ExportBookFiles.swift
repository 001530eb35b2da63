import Archive
import Journal
import VaultStore

/// The live books' Markdown files during an export's pass over the notes and quotes, which
/// come in book order (by id): a book's file is begun, with its sessions, when the pass
/// reaches the book, and a book without notes or quotes gets its file when the pass goes
/// past it. One file is open at a time.
struct ExportBookFiles {
    /// The live books, by id: the order of the pass.
    private let books: [Book]
    private let live: Set<EntityID>
    private let writer: ArchiveWriter
    private let store: Store
    private var next = 0
    private var current: EntityID?

    init(_ liveBooks: [Book], writer: ArchiveWriter, store: Store) {
        books = liveBooks.sorted { $0.id < $1.id }
        live = Set(liveBooks.map(\.id))
        self.writer = writer
        self.store = store
    }

    /// Makes the file of `bookID` the one notes are added to, writing the files of the books
    /// before it; false when the book has no file (it is deleted).
    mutating func open(_ bookID: EntityID) throws(StoreError) -> Bool {
        guard live.contains(bookID) else { return false }
        guard current != bookID else { return true }
        try write(upTo: bookID)
        precondition(current == bookID, "an export reads notes and quotes in book order")
        return true
    }

    /// Writes the files of the books the pass did not reach.
    mutating func finish() throws(StoreError) {
        try write(upTo: nil)
    }

    /// Finishes the open file, then writes the files of the books up to `target`, whose file
    /// is left open (every remaining book when nil).
    private mutating func write(upTo target: EntityID?) throws(StoreError) {
        writer.finishBook()
        current = nil
        while next < books.count {
            let book = books[next]
            if let target, target < book.id { return }
            next += 1
            writer.beginBook(book, sessions: try store.sessions(of: book.id))
            if book.id == target {
                current = target
                return
            }
            writer.finishBook()
        }
    }
}
