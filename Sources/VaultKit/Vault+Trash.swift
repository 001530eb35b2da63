public import Journal
import VaultStore

/// What `trash` lists: everything deleted whose content is still here, so `undelete` can
/// bring it back, and how long that lasts at most.
public struct TrashListing: Sendable {
    public let books: [Result<Book, UnreadableRecord>]
    /// The tags of the deleted books (they come back with them).
    public let bookTags: [EntityID: [String]]
    public let annotations: [Result<AnnotationListing, UnreadableRecord>]
    public let sessions: [SessionListing]
    /// Deleted content is kept at most this many days after the deletion (sooner gone once
    /// every device has taken the deletion in, in a vault that syncs).
    public let retentionDays: Int
}

extension Vault {
    /// Deleted books, notes, quotes and sessions that can still be brought back.
    public func trash() throws(VaultError) -> TrashListing {
        let store = try unlockedStore()
        var annotations: [Result<Annotation, UnreadableRecord>] = []
        var filter = AnnotationFilter()
        filter.onlyDeleted = true
        let (books, sessions, retention) = try store.reading { tables throws(StoreError) in
            try tables.annotations.forEach(filter, order: .created) { annotations.append($0) }
            return (try tables.trash.deletedBooks(), try tables.trash.deletedSessions(), try tables.tombstones.retentionDays())
        }
        // Live books' titles, and the deleted books' own.
        var titles = try bookTitles()
        for case .success(let book) in books { titles[book.id] = book.title }
        let annotationTags = try tagsByRecord(.annotation)
        return TrashListing(books: books, bookTags: try tagsByRecord(.book),
                            annotations: annotations.map { $0.map {
                                AnnotationListing(annotation: $0, bookTitle: titles[$0.bookID], tags: annotationTags[$0.id] ?? [])
                            } },
                            sessions: sessions.map { SessionListing(session: $0, bookTitle: titles[$0.bookID]) },
                            retentionDays: retention)
    }

    /// Brings deleted records back by id or id prefix, all or none (``TrashTable/undelete(_:)``).
    public func undelete(_ ids: [String]) throws(VaultError) -> [(kind: String, id: EntityID)] {
        var references: [RecordReference] = []
        for id in ids {
            let reference = try resolveID(id, deleted: true)
            if !references.contains(reference) { references.append(reference) }
        }
        let store = try unlockedStore()
        let restored = try store.writing { tables throws(StoreError) in try tables.trash.undelete(references) }
        cachedTitles = nil
        return restored
    }
}
