import Foundation
import Testing
import Journal
import Sync
import SyncWire
@testable import VaultStore
import VaultCrypto
import TestSupport

/// A quote's comment and import key (schema v16): sealed at rest and bound to their record,
/// carried through a rekey, checked by `check`, and emptied (the comment) by a purge.
@Suite struct QuoteCommentStoreTests {
    static let comment = "a comment only the reader wrote"
    static let importKey = "kindle:" + String(repeating: "c0ffee", count: 10)

    /// A new vault with a book and a quote of it carrying ``comment`` and ``importKey``.
    static func vaultWithQuote() throws -> (Fixture, Book, Annotation) {
        let fixture = try makeFixture()
        let book = try newBook(clock: fixture.clock)
        try fixture.store.write { tables throws(StoreError) in try tables.books.add(book) }
        let plain = try newQuote(book, clock: fixture.clock)
        let quote = Annotation(id: plain.id, bookID: plain.bookID, kind: .quote, body: plain.body, locator: plain.locator,
                               createdAt: plain.createdAt, updatedAt: plain.updatedAt, deletedAt: nil, version: 1,
                               comment: comment, importKey: importKey)
        try fixture.store.write { tables throws(StoreError) in try tables.annotations.add(quote) }
        return (fixture, book, quote)
    }

    @Test func commentAndImportKeyRoundTripSealedAndBound() throws {
        let (fixture, book, quote) = try Self.vaultWithQuote()
        defer { fixture.directory.remove() }
        #expect(try fixture.store.read { tables throws(StoreError) in try tables.annotations.annotation(quote.id) } == quote)
        // Neither is in the file as text.
        try fixture.store.database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: fixture.path)))
        #expect(!contains(bytes, Array(Self.comment.utf8)) && !contains(bytes, Array("c0ffeec0ffee".utf8)))
        // Bound to its record: another note's sealed comment does not open here.
        let other = try newNote(book, clock: fixture.clock)
        try fixture.store.write { tables throws(StoreError) in try tables.annotations.add(other) }
        try fixture.store.setBlob("comment", of: "annotation", id: other.id.rawValue,
                                  to: try fixture.store.blob("comment", of: "annotation", id: quote.id.rawValue))
        #expect(storeError { () throws(StoreError) in try fixture.store.read { tables throws(StoreError) in try tables.annotations.annotation(other.id) } } == .recordUnreadable(id: other.id.rawValue, field: "comment"))
        #expect(try fixture.store.check().findings.contains { $0.id == other.id.rawValue })
    }

    /// `search` finds a quote by a word of its comment, and by words split between its text,
    /// its locator and its comment.
    @Test func searchLooksInTheComment() throws {
        let (fixture, book, quote) = try Self.vaultWithQuote()   // "Stat rosa pristina nomine.", p. 502, the comment
        defer { fixture.directory.remove() }
        let addedNote = try newNote(book, "Nothing to find here.", clock: fixture.clock)
        try fixture.store.write { tables throws(StoreError) in try tables.annotations.add(addedNote) }
        func found(_ words: String) throws -> [EntityID] {
            var ids: [EntityID] = []
            let query = try SearchQuery(words)
            try fixture.store.read { tables throws(StoreError) in try tables.annotations.forEach(matching: query, in: AnnotationFilter(), bookTerms: [:]) { result in
                if case .success(let annotation) = result { ids.append(annotation.id) }
            } }
            return ids
        }
        #expect(try found("reader wrote") == [quote.id])
        #expect(try found("rosa 502 reader") == [quote.id])
        #expect(try found("rosa zeppelin").isEmpty)
    }

    @Test func editingTheCommentIsANewVersionAndARekeyKeepsIt() throws {
        let (fixture, _, quote) = try Self.vaultWithQuote()
        defer { fixture.directory.remove() }
        let edited = try fixture.store.write { tables throws(StoreError) in try tables.annotations.edit(quote.id, body: nil, locator: nil, comment: .some("changed my mind")) }
        #expect(edited.version == 2 && edited.comment == "changed my mind" && edited.importKey == Self.importKey)
        let newKey = try VaultKey.generate()
        try fixture.store.rekey.begin(from: fixture.key, to: newKey, keyslots: try placeholderKeyslots())
        try fixture.store.rekey.resume(from: fixture.key, to: newKey) { _ in }
        let reopened = try Store.open(at: fixture.path, clock: fixture.clock, generatorVersion: testGeneratorVersion)
        try reopened.attach(newKey)
        let read = try reopened.read { tables throws(StoreError) in try tables.annotations.annotation(quote.id) }
        #expect(read.comment == "changed my mind" && read.importKey == Self.importKey)
        // Every sealed field opens under the new key (the placeholder keyslots are not this test's).
        let findings = try reopened.check().findings.filter { $0.kind != "keyslot" }
        #expect(findings.isEmpty, "\(findings)")
    }

    @Test func aPurgeEmptiesTheCommentAndKeepsTheImportKey() throws {
        let (fixture, _, quote) = try Self.vaultWithQuote()
        defer { fixture.directory.remove() }
        let deleted = try fixture.store.write { tables throws(StoreError) in try tables.annotations.delete(quote.id) }
        let clock = try HybridTimestamp(parsing: try fixture.store.rawRows("SELECT hlc FROM annotation WHERE id = '\(quote.id)'")[0][0])
        #expect(try fixture.store.purge.tombstones([Tombstone(kind: .annotation, id: quote.id, clock: clock,
                                                              deletedAt: try #require(deleted.deletedAt), operations: [])]) == 1)
        #expect(try fixture.store.integer("SELECT count(*) FROM annotation WHERE comment IS NOT NULL") == 0)
        #expect(try fixture.store.read { tables throws(StoreError) in try tables.annotations.annotation(quote.id) }.importKey == Self.importKey)
    }
}
