public import Journal
import VaultStore

/// The book, note or quote a `tag` command is about.
public struct TaggedRecord: Sendable {
    public let id: EntityID
    /// The record's tags after the command.
    public let tags: [String]
}

/// A tag in use, for `tag list`.
public struct TagUse: Sendable {
    public let name: String
    public let books: Int
    public let notes: Int
    public let quotes: Int
}

extension Vault {
    /// Gives `names` to the book, note or quote `reference` names (an id or id prefix; else
    /// a book as BOOK arguments name one), in one transaction. Returns the record with
    /// its tags, and the names it did not show before.
    public func addTags(_ names: [String], to reference: String) throws(VaultError) -> (record: TaggedRecord, given: [String]) {
        let (id, kind) = try taggable(reference)
        let store = try unlockedStore()
        let given = try store.writing { tables throws(StoreError) in try tables.tags.add(names, to: id, kind: kind) }
        return (TaggedRecord(id: id, tags: try store.reading { tables throws(StoreError) in try tables.tags.shown(on: id) }), given)
    }

    /// Takes `names` away from the record `reference` names, all or none: a name it does
    /// not show is ``VaultError/tagNotFound(id:)``.
    public func removeTags(_ names: [String], from reference: String) throws(VaultError) -> TaggedRecord {
        let (id, kind) = try taggable(reference)
        let store = try unlockedStore()
        try store.writing { tables throws(StoreError) in try tables.tags.remove(names, from: id, kind: kind) }
        return TaggedRecord(id: id, tags: try store.reading { tables throws(StoreError) in try tables.tags.shown(on: id) })
    }

    /// The tags every book (or every note and quote; of `bookID` alone, if given) shows, by record.
    func tagsByRecord(_ kind: TaggedKind, inBook bookID: EntityID? = nil) throws(VaultError) -> [EntityID: [String]] {
        let store = try unlockedStore()
        return try store.reading { tables throws(StoreError) in try tables.tags.shownByRecord(kind: kind, inBook: bookID) }
    }

    /// Every tag on a live book, note or quote, in alphabetical order, with how many show it.
    public func tagUses() throws(VaultError) -> [TagUse] {
        let store = try unlockedStore()
        return try store.reading { tables throws(StoreError) in try tables.tags.counts() }
            .map { TagUse(name: $0.name, books: $0.books, notes: $0.notes, quotes: $0.quotes) }
    }

    /// The records of `kind` that show `tag` (checked as typed: a tag that cannot exist is
    /// an error, not an empty listing).
    func records(_ kind: TaggedKind, taggedWith tag: String) throws(VaultError) -> Set<EntityID> {
        let name = try journalCall { () throws(JournalError) in try Tag.checked(tag) }
        let store = try unlockedStore()
        return try store.reading { tables throws(StoreError) in try tables.tags.records(kind: kind, taggedWith: name) }
    }

    /// An id or id prefix of a book, note or quote; else a book named as BOOK arguments are.
    private func taggable(_ reference: String) throws(VaultError) -> (EntityID, TaggedKind) {
        let record: RecordReference
        do throws(VaultError) {
            record = try resolveID(reference)
        } catch .malformedID {
            return (try book(named: reference).id, .book)
        } catch .recordNotFound(let id) {
            // Hex that names no record may still be words of a title ("Abba"); if not, the
            // id was meant.
            do throws(VaultError) { return (try book(named: reference).id, .book) } catch .bookNotFound {
                throw .recordNotFound(id: id)
            }
        }
        switch record.kind {
        case .book: return (record.id, .book)
        case .annotation: return (record.id, .annotation)
        case .session: throw .wrongRecordKind(id: record.id.rawValue, expected: "book, note or quote", found: record.kind.rawValue)
        }
    }
}
