/// What an import of another program's file asks of the vault, inside its one transaction,
/// to find the record here an incoming one is. It reads; ``JournalMerge`` decides; the
/// import applies the decision (as ``MergeTarget`` is for sync).
public protocol ImportTarget {
    associatedtype Failure: Error
    /// The book a name (an identifier, a title with its authors, a `title:` alias) was
    /// recorded for, live or not.
    func book(named name: String) throws(Failure) -> EntityID?
    /// Whether the book is here and not deleted.
    func isLive(_ book: EntityID) throws(Failure) -> Bool
    /// The live books with this ISBN, in the order they were added.
    func liveBooks(withISBN isbn: String) throws(Failure) -> [ImportCandidate]
    /// The live books whose title folds (``TextFolding``) to `title`, in the order they were added.
    func liveBooks(withFoldedTitle title: String) throws(Failure) -> [ImportCandidate]
    /// The books this import has added so far.
    var booksAddedByThisImport: Set<EntityID> { get }
    /// The record an import key was recorded for, live or deleted.
    func record(withImportKey key: String) throws(Failure) -> EntityID?
    /// The book's reading sessions, deleted ones included, as this import has left them.
    func sessions(of book: EntityID) throws(Failure) -> [ReadingSession]
}

/// A live book as an import matches it by ISBN or by title: its id and its authors, which is
/// all ``BookIdentityPolicy`` weighs, not the whole record (an import of 20,000 books holds
/// one per book).
public struct ImportCandidate: Sendable, Equatable {
    public let id: EntityID
    public let authors: [String]

    public init(_ book: Book) {
        id = book.id
        authors = book.authors
    }
}
