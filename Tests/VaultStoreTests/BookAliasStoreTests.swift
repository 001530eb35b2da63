import Applier
import Foundation
import Testing
import Journal
import Sync
import SyncWire
@testable import VaultStore
import VaultCrypto
import TestSupport

/// The names other programs give a book (schema v16): sealed at rest, found by an import
/// before anything else, carried through a rekey, and gone with a purged book.
@Suite struct BookAliasStoreTests {
    @Test func anAliasIsSealedAndAnImportFindsTheBookByIt() throws {
        let fixture = try makeFixture()
        defer { fixture.directory.remove() }
        let book = try newBook("Nineteen Eighty-Four", authors: ["George Orwell"], clock: fixture.clock)
        try fixture.store.write { tables throws(StoreError) in try tables.books.add(book) }
        #expect(try fixture.store.write { tables throws(StoreError) in try tables.bookAliases.add(title: "1984 : the novel", to: book.id) })
        #expect(try !fixture.store.write { tables throws(StoreError) in try tables.bookAliases.add(title: "1984 : THE NOVEL", to: book.id) }, "the same title, case aside")
        try fixture.store.database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        #expect(!contains(try [UInt8](Data(contentsOf: URL(fileURLWithPath: fixture.path))), Array("the novel".utf8)))
        // Another author's words, but the alias names the book: found, not added.
        let summary = try fixture.store.importArchive(dryRun: false) { importer in
            let (id, isNew) = try importer.book(for: ImportedBook(title: "1984: The Novel", authors: ["Someone Else"]))
            #expect(id == book.id && !isNew)
            // An identifier is remembered with the book, and names it next time whatever the title.
            let again = try importer.book(for: ImportedBook(title: "1984 : the novel", authors: [], identifiers: ["koreader:abc"]))
            #expect(again.id == book.id)
            let byIdentifier = try importer.book(for: ImportedBook(title: "Something else entirely", authors: [], identifiers: ["koreader:abc"]))
            #expect(byIdentifier.id == book.id)
        }
        #expect(summary.added.books == 0)
        #expect(try fixture.store.check().findings.filter { $0.kind != "keyslot" }.isEmpty)
    }

    @Test func matchingByTitleNeedsAuthorsThatAgree() throws {
        #expect(BookIdentityPolicy.authorsAgree(["George Orwell"], ["Orwell, George"]))
        #expect(BookIdentityPolicy.authorsAgree([], ["Orwell, George"]) && BookIdentityPolicy.authorsAgree(["George Orwell"], []))
        #expect(BookIdentityPolicy.authorsAgree(["Léon Tolstoï"], ["leon tolstoi"]))
        #expect(!BookIdentityPolicy.authorsAgree(["George Orwell"], ["Aldous Huxley"]))
        let fixture = try makeFixture()
        defer { fixture.directory.remove() }
        let orwell = try newBook("1984", authors: ["George Orwell"], clock: fixture.clock)
        try fixture.store.write { tables throws(StoreError) in try tables.books.add(orwell) }
        _ = try fixture.store.importArchive(dryRun: false) { importer in
            #expect(try importer.book(for: ImportedBook(title: "1984", authors: ["Orwell, George"])).id == orwell.id)
            let other = try importer.book(for: ImportedBook(title: "1984", authors: ["Haruki Murakami"]))
            #expect(other.id != orwell.id && other.isNew)
        }
    }

    /// A name of a deleted book (one merged away on another device, whose names this device
    /// still has) names no book: the next import finds or adds a live one, and the name moves.
    @Test func aDeletedBooksNamesNameNoBook() throws {
        let fixture = try makeFixture()
        defer { fixture.directory.remove() }
        let source = ImportedBook(title: "Elantris: Tenth Anniversary Edition", authors: ["Sanderson, Brandon"], identifiers: ["asin:B00X"])
        var first: EntityID?
        _ = try fixture.store.importArchive(dryRun: false) { importer in first = try importer.book(for: source).id }
        let deleted = try #require(first)
        try fixture.store.write { tables throws(StoreError) in try tables.books.delete(deleted) }
        var second: (id: EntityID, isNew: Bool)?
        _ = try fixture.store.importArchive(dryRun: false) { importer in second = try importer.book(for: source) }
        #expect(second?.id != deleted && second?.isNew == true)
        #expect(try fixture.store.read { tables throws(StoreError) in try tables.books.book(deleted) }.deletedAt != nil, "not brought back")
        #expect(try fixture.store.read { tables throws(StoreError) in try tables.bookAliases.all() }.filter { $0.alias == "asin:B00X" }.map(\.book) == [try #require(second?.id)])
    }

    @Test func aliasesFollowARekeyAndGoWithAPurgedBook() throws {
        let fixture = try makeFixture()
        defer { fixture.directory.remove() }
        let book = try newBook(clock: fixture.clock)
        try fixture.store.write { tables throws(StoreError) in try tables.books.add(book) }
        try fixture.store.write { tables throws(StoreError) in try tables.bookAliases.add(title: "Der Name der Rose", to: book.id) }
        let newKey = try VaultKey.generate()
        try fixture.store.rekey.begin(from: fixture.key, to: newKey, keyslots: try placeholderKeyslots())
        try fixture.store.rekey.resume(from: fixture.key, to: newKey) { _ in }
        let store = try Store.open(at: fixture.path, clock: fixture.clock, generatorVersion: testGeneratorVersion)
        try store.attach(newKey)
        #expect(try store.read { tables throws(StoreError) in try tables.bookAliases.all() }.map(\.alias) == [BookAlias.title("Der Name der Rose")])
        try store.write { tables throws(StoreError) in try tables.books.delete(book.id) }
        let clock = try HybridTimestamp(parsing: try store.rawRows("SELECT hlc FROM book")[0][0])
        #expect(try store.purge.tombstones([Tombstone(kind: .book, id: book.id, clock: clock, deletedAt: try store.read { tables throws(StoreError) in try tables.books.book(book.id) }.deletedAt ?? fixture.clock.now(),
                                                     operations: [])]) == 1)
        #expect(try store.integer("SELECT count(*) FROM book_alias") == 0)
    }
}
