import Foundation
import Testing
import Journal
@testable import VaultStore
import VaultCrypto

/// The sealed cache of book titles (migration 0004): used when present, emptied by every
/// change to a book whatever wrote it, rebuilt on the next read, and never a reason for a
/// wrong answer or a wait.
@Suite struct BookTitleCacheTests {
    private func cacheRows(_ store: Store) throws -> Int64 {
        try store.integer("SELECT count(*) FROM book_title_cache")
    }

    private func expected(_ books: [Book]) -> [BookTitle] {
        books.map { BookTitle(id: $0.id, title: $0.title, authors: $0.authors) }
    }

    @Test func theFirstReadBuildsTheCacheAndLaterReadsUseIt() throws {
        let fixture = try makeFixture()
        defer { fixture.directory.remove() }
        let first = try newBook("Émile, ou De l'éducation", clock: fixture.clock)
        fixture.clock.advance(milliseconds: 1)
        let second = try newBook("ΙΛΙΑΣ", clock: fixture.clock)
        try fixture.store.write { tables throws(StoreError) in try tables.books.add(first) }
        try fixture.store.write { tables throws(StoreError) in try tables.books.add(second) }
        #expect(try cacheRows(fixture.store) == 0)

        #expect(try fixture.store.bookTitles.all() == expected([first, second]))
        #expect(try cacheRows(fixture.store) == 1)
        #expect(try fixture.store.bookTitles.all().map(\.folded) == ["emile, ou de l'education", "ιλιασ"])

        // Proof that the cache, not the books, answers: replace it (behind the triggers' back)
        // with one that says something else, sealed with the vault's key.
        let planted = [BookTitle(id: first.id, title: "Planted")]
        let sealer = FieldSealer(key: fixture.key, vaultID: fixture.metadata.vaultID)
        let sealed = try sealer.seal(BookTitleCacheFormat.encode(planted), table: "book_title_cache", recordID: "1", field: "titles")
        try fixture.store.database.run("UPDATE book_title_cache SET titles = ? WHERE id = 1", [.blob(sealed)])
        #expect(try fixture.reopen().bookTitles.all() == planted)
    }

    @Test func everyChangeToABookEmptiesTheCache() throws {
        let fixture = try makeFixture()
        defer { fixture.directory.remove() }
        let store = fixture.store
        let kept = try newBook("Kept", clock: fixture.clock)
        try store.write { tables throws(StoreError) in try tables.books.add(kept) }
        _ = try store.bookTitles.all()

        fixture.clock.advance(milliseconds: 1)
        let added = try newBook("Added", clock: fixture.clock)
        try store.write { tables throws(StoreError) in try tables.books.add(added) }
        #expect(try cacheRows(store) == 0, "adding a book")
        #expect(try store.bookTitles.all() == expected([kept, added]))

        try store.write { tables throws(StoreError) in try tables.books.delete(added.id) }
        #expect(try cacheRows(store) == 0, "deleting a book")
        #expect(try store.bookTitles.all() == expected([kept]))

        // Any writer, not only the Store's book methods (sync, import, rekey, purges).
        let other = try store.blob("title", of: "book", id: added.id.rawValue)
        try store.database.run("UPDATE book SET title = ? WHERE id = ?", [.blob(other), .text(kept.id.rawValue)])
        #expect(try cacheRows(store) == 0, "a title rewritten")
        _ = try store.bookTitles.all()
        try store.database.run("UPDATE book SET created_at = created_at + 1 WHERE id = ?", [.text(kept.id.rawValue)])
        #expect(try cacheRows(store) == 0, "the order changed")
    }

    @Test func progressLeavesTheCacheAlone() throws {
        let fixture = try makeFixture()
        defer { fixture.directory.remove() }
        let book = try newBook(clock: fixture.clock)
        try fixture.store.write { tables throws(StoreError) in try tables.books.add(book) }
        _ = try fixture.store.bookTitles.all()
        _ = try fixture.store.write { tables throws(StoreError) in try tables.books.setProgress(of: book.id, to: 40) }
        #expect(try cacheRows(fixture.store) == 1)
    }

    /// The cache holds the authors too (BOOK and search match them), so changing only the
    /// authors must empty it, here and when the change arrives by sync.
    @Test func changingOnlyTheAuthorsEmptiesTheCache() throws {
        let fixture = try makeFixture()
        defer { fixture.directory.remove() }
        let book = try newBook(clock: fixture.clock)
        try fixture.store.write { tables throws(StoreError) in try tables.books.add(book) }
        #expect(try fixture.store.bookTitles.all().first?.authors == book.authors)
        try fixture.store.write { tables throws(StoreError) in try tables.books.edit(book.id, title: nil, authors: ["Ursula K. Le Guin"]) }
        #expect(try cacheRows(fixture.store) == 0)
        #expect(try fixture.store.bookTitles.all().first?.authors == ["Ursula K. Le Guin"])
        #expect(try fixture.store.bookTitles.all().first?.foldedAuthors == "ursula k. le guin")
    }

    @Test(arguments: ["another key", "damaged", "another format"])
    func aCacheThatCannotBeReadIsRebuilt(kind: String) throws {
        let fixture = try makeFixture()
        defer { fixture.directory.remove() }
        let book = try newBook("Right", clock: fixture.clock)
        try fixture.store.write { tables throws(StoreError) in try tables.books.add(book) }
        _ = try fixture.store.bookTitles.all()
        let wrong: [UInt8]
        switch kind {
        case "another key":
            wrong = try FieldSealer(key: try VaultKey.generate(), vaultID: fixture.metadata.vaultID)
                .seal(BookTitleCacheFormat.encode([BookTitle(id: book.id, title: "Wrong")]), table: "book_title_cache", recordID: "1", field: "titles")
        case "damaged":
            var bytes = try fixture.store.blob("titles", of: "book_title_cache", id: "1")
            bytes[bytes.count - 1] ^= 1
            wrong = bytes
        default:
            // What bmvault 0.9 wrote: version 1, title and lowercased title only.
            func text(_ value: String) -> [UInt8] { [0, 0, 0, UInt8(value.utf8.count)] + Array(value.utf8) }
            let plain: [UInt8] = [1, 0, 0, 0, 1] + Array(book.id.rawValue.utf8) + text("Wrong") + text("wrong")
            wrong = try FieldSealer(key: fixture.key, vaultID: fixture.metadata.vaultID)
                .seal(plain, table: "book_title_cache", recordID: "1", field: "titles")
        }
        try fixture.store.database.run("UPDATE book_title_cache SET titles = ? WHERE id = 1", [.blob(wrong)])
        let reopened = try fixture.reopen()
        #expect(try reopened.bookTitles.all() == expected([book]))
        #expect(try reopened.blob("titles", of: "book_title_cache", id: "1") != wrong, "rebuilt")
    }

    @Test(arguments: [0, 1, 5, 43, 52 + 3])
    func aTruncatedOrPaddedPlaintextIsRefused(cut: Int) throws {
        let id = EntityID.generate(at: Timestamp(millisecondsSince1970: 1))
        var bytes = BookTitleCacheFormat.encode([BookTitle(id: id, title: "Abc")])
        #expect(try BookTitleIndex(plaintext: bytes).titles() == [BookTitle(id: id, title: "Abc")])
        if cut < bytes.count { bytes.removeLast(bytes.count - cut) } else { bytes.append(0) }
        #expect(storeError { () throws(StoreError) in try BookTitleIndex(plaintext: bytes) } == .recordUnreadable(id: "1", field: "titles"))
    }

    /// Every character of an id is checked as the index is made (a hyphen out of place, an
    /// uppercase or non-hex digit), so a listing never finds a bad id half-way.
    @Test(arguments: [0, 8, 14, 35])
    func aDamagedIdIsRefused(position: Int) throws {
        let id = EntityID.generate(at: Timestamp(millisecondsSince1970: 1))
        for replacement in ["g", "A", "-", "0"] where replacement.utf8.first != Array(id.rawValue.utf8)[position] {
            var bytes = BookTitleCacheFormat.encode([BookTitle(id: id, title: "Abc")])
            bytes[5 + position] = replacement.utf8.first!
            let valid = (try? EntityID(validating: String(decoding: bytes[5..<41], as: UTF8.self)))?.rawValue == String(decoding: bytes[5..<41], as: UTF8.self)
            let index = try? BookTitleIndex(plaintext: bytes)
            #expect((index != nil) == valid, "\(replacement) at \(position)")
        }
    }

    /// Read in place: values only for what is asked, the same values as the whole list.
    @Test func theIndexReadsEachBookInPlace() throws {
        let titles = [BookTitle(id: .generate(at: Timestamp(millisecondsSince1970: 1)), title: "Émile, ou De l'éducation",
                                authors: ["Jean-Jacques Rousseau", "Ænon"]),
                      BookTitle(id: .generate(at: Timestamp(millisecondsSince1970: 2)), title: "ΙΛΙΑΣ")]
        let index = BookTitleIndex(titles)
        #expect(index.count == 2)
        #expect(try index.titles() == titles)
        #expect(try index.id(at: 1) == titles[1].id && index.title(at: 1) == "ΙΛΙΑΣ" && index.folded(at: 1) == "ιλιασ")
        #expect(index.authors(at: 0) == ["Jean-Jacques Rousseau", "Ænon"] && index.foldedAuthors(at: 0) == "jean-jacques rousseau\nænon")
        #expect(index.authors(at: 1).isEmpty && index.foldedAuthors(at: 1).isEmpty)
        index.withBytes(at: 0) { id, folded, authors in
            #expect(Array(id) == Array(titles[0].id.rawValue.utf8))
            #expect(Array(folded) == Array("emile, ou de l'education".utf8))
            #expect(Array(authors) == Array("jean-jacques rousseau\nænon".utf8))
        }
    }

    @Test func anotherWriterHoldingTheLockMeansNoWaitAndNoCache() throws {
        let fixture = try makeFixture()
        defer { fixture.directory.remove() }
        let book = try newBook(clock: fixture.clock)
        try fixture.store.write { tables throws(StoreError) in try tables.books.add(book) }
        let writer = try fixture.reopen()
        try writer.database.execute("BEGIN IMMEDIATE")
        defer { writer.database.rollbackIfNeeded() }

        let started = Date()
        #expect(try fixture.store.bookTitles.all() == expected([book]))
        // The busy timeout is 10 s; not waiting for it is the point (a generous bound).
        #expect(Date().timeIntervalSince(started) < 5)
        #expect(try cacheRows(fixture.store) == 0)
    }

    @Test func insideAReadTransactionNothingIsWritten() throws {
        let fixture = try makeFixture()
        defer { fixture.directory.remove() }
        let book = try newBook(clock: fixture.clock)
        try fixture.store.write { tables throws(StoreError) in try tables.books.add(book) }
        let titles = try fixture.store.database.readTransaction { () throws(StoreError) in try fixture.store.bookTitles.all() }
        #expect(titles == expected([book]))
        #expect(try cacheRows(fixture.store) == 0)
    }

    @Test func aRekeyDropsTheCacheSealedUnderTheOldKey() throws {
        let fixture = try makeFixture()
        defer { fixture.directory.remove() }
        let added = try newBook(clock: fixture.clock)
        try fixture.store.write { tables throws(StoreError) in try tables.books.add(added) }
        _ = try fixture.store.bookTitles.all()
        try fixture.store.rekey.begin(from: fixture.key, to: try VaultKey.generate(), keyslots: try placeholderKeyslots())
        #expect(try cacheRows(fixture.store) == 0)
    }
}
