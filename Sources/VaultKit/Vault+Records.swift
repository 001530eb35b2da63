import Foundation
public import Journal
import VaultStore

/// Any record `show` can display.
public enum JournalRecord: Sendable {
    case book(BookDetails)
    case annotation(AnnotationListing)
    case session(ReadingSession)
}

extension Vault {
    /// The record an ID argument names: a full id or a unique prefix of at least four characters.
    public func record(_ id: String) throws(VaultError) -> JournalRecord {
        let reference = try resolveID(id)
        let store = try unlockedStore()
        switch reference.kind {
        case .annotation:
            let annotation = try storeCall { () throws(StoreError) in try store.annotation(reference.id) }
            let title = try? storeCall { () throws(StoreError) in try store.book(annotation.bookID).title }
            return .annotation(AnnotationListing(annotation: annotation, bookTitle: title))
        case .book:
            return .book(try storeCall { () throws(StoreError) in
                BookDetails(book: try store.book(reference.id), sessions: try store.sessions(of: reference.id),
                            counts: try store.counts(of: reference.id))
            })
        case .session:
            let sessions = try storeCall { () throws(StoreError) in try store.session(reference.id) }
            return .session(sessions)
        }
    }

    /// Replaces a note's or quote's body and/or locator. `nil` leaves a field as it is.
    public func editAnnotation(_ id: String, body: String?, locator: String?) throws(VaultError) -> Annotation {
        let reference = try resolveID(id)
        guard reference.kind == .annotation else {
            throw .wrongRecordKind(id: reference.id.rawValue, expected: "note or quote", found: reference.kind.rawValue)
        }
        let checkedBody = try body.map { (text) throws(VaultError) in
            try journalCall { () throws(JournalError) in try TextRules.body(text) }
        }
        let checkedLocator = try locator.map { (text) throws(VaultError) in
            try journalCall { () throws(JournalError) in try Locator(text) }
        }
        let store = try unlockedStore()
        return try storeCall { () throws(StoreError) in
            try store.editAnnotation(reference.id, body: checkedBody, locator: checkedLocator.map { .some($0) })
        }
    }

    /// Tombstones a note, quote or (empty) book, and says which it was. Reading sessions
    /// are append-only.
    public func delete(_ id: String) throws(VaultError) -> (kind: String, id: EntityID) {
        let reference = try resolveID(id)
        let store = try unlockedStore()
        switch reference.kind {
        case .annotation:
            let deleted = try storeCall { () throws(StoreError) in try store.deleteAnnotation(reference.id) }
            return (deleted.kind.rawValue, deleted.id)
        case .book:
            try storeCall { () throws(StoreError) in try store.deleteBook(reference.id) }
            cachedTitles = nil
            return ("book", reference.id)
        case .session:
            throw .wrongRecordKind(id: reference.id.rawValue, expected: "note, quote or book", found: "session")
        }
    }

    func resolveID(_ text: String) throws(VaultError) -> RecordReference {
        let typed = text.trimmingCharacters(in: .whitespaces).lowercased()
        guard typed.count >= BookReference.minimumPrefix, EntityID.isPossiblePrefix(typed) else { throw .malformedID }
        let store = try unlockedStore()
        let matches = try storeCall { () throws(StoreError) in try store.records(withIDPrefix: typed) }
        if let exact = matches.first(where: { $0.id.rawValue == typed }) { return exact }
        switch matches.count {
        case 0: throw .recordNotFound(id: typed)
        case 1: return matches[0]
        default: throw .ambiguousID(candidates: matches.map(\.id.rawValue).sorted())
        }
    }
}
