import Foundation
import Testing
import Journal
@testable import VaultStore
import VaultCrypto
import TestSupport

/// Deleted text goes after the retention period on this device, with or without a remote
/// (issue 17, item 5: `remote retention` tells the truth).
@Suite struct LocalPurgeTests {
    private let day: Int64 = 86_400_000

    /// A vault with no remote, a live note, and a note and a book deleted now.
    private func deletedRecords() throws -> (Fixture, live: Annotation, gone: Annotation, book: Book) {
        let fixture = try makeFixture(remote: false)
        let book = try newBook(clock: fixture.clock)
        try fixture.store.write { tables throws(StoreError) in try tables.books.add(book) }
        let live = try newNote(book, "kept", clock: fixture.clock)
        try fixture.store.write { tables throws(StoreError) in try tables.annotations.add(live) }
        let gone = try newNote(book, "deleted words", clock: fixture.clock)
        try fixture.store.write { tables throws(StoreError) in try tables.annotations.add(gone) }
        _ = try fixture.store.write { tables throws(StoreError) in try tables.annotations.delete(gone.id) }
        let shelf = try newBook("A deleted book", clock: fixture.clock)
        try fixture.store.write { tables throws(StoreError) in try tables.books.add(shelf) }
        try fixture.store.write { tables throws(StoreError) in try tables.books.delete(shelf.id) }
        return (fixture, live, gone, shelf)
    }

    @Test func nothingGoesBeforeTheRetentionAndEverythingDeletedGoesAfter() throws {
        let (fixture, live, gone, shelf) = try deletedRecords()
        defer { fixture.directory.remove() }
        let store = fixture.store
        fixture.clock.advance(milliseconds: 89 * day)
        #expect(try store.purge.expired(limit: 100) == 0)
        #expect(try store.integer("SELECT length(body) FROM annotation WHERE id = '\(gone.id)'") > 0)

        fixture.clock.advance(milliseconds: 2 * day)
        #expect(try store.purge.expired(limit: 100) == 2)
        #expect(try store.integer("SELECT length(body) FROM annotation WHERE id = '\(gone.id)'") == 0)
        #expect(try store.integer("SELECT length(title) FROM book WHERE id = '\(shelf.id)'") == 0)
        #expect(try store.read { tables throws(StoreError) in try tables.annotations.annotation(live.id) }.body == "kept", "a live note is untouched")
        #expect(try store.purge.expired(limit: 100) == 0, "once")
    }

    @Test func onItsWayACommandLooksOnceADay() throws {
        let (fixture, _, gone, _) = try deletedRecords()
        defer { fixture.directory.remove() }
        let store = fixture.store
        // Made today: the first look is due tomorrow.
        fixture.clock.advance(milliseconds: 91 * day)
        try store.database.run("UPDATE vault_meta SET value = ? WHERE key = ?",
                               [.text(String(fixture.clock.now().millisecondsSince1970 - day / 2)), .text(TombstoneTable.purgeCheckedAtKey)])
        #expect(try store.purge.expired(limit: 100, onlyIfDue: true) == 0, "looked less than a day ago")
        #expect(try store.integer("SELECT length(body) FROM annotation WHERE id = '\(gone.id)'") > 0)
        fixture.clock.advance(milliseconds: day)
        #expect(try store.purge.expired(limit: 100, onlyIfDue: true) == 2)
        #expect(try store.integer("SELECT length(body) FROM annotation WHERE id = '\(gone.id)'") == 0)
    }

    @Test func aDeletionNotYetSentKeepsItsTextUntilItIs() throws {
        let fixture = try makeFixture()          // a remote, never synced: the deletion waits
        defer { fixture.directory.remove() }
        let book = try newBook(clock: fixture.clock)
        try fixture.store.write { tables throws(StoreError) in try tables.books.add(book) }
        let gone = try newNote(book, "deleted, not yet sent", clock: fixture.clock)
        try fixture.store.write { tables throws(StoreError) in try tables.annotations.add(gone) }
        _ = try fixture.store.write { tables throws(StoreError) in try tables.annotations.delete(gone.id) }
        fixture.clock.advance(milliseconds: 120 * day)
        #expect(try fixture.store.purge.expired(limit: 100) == 0)
        #expect(try fixture.store.integer("SELECT length(body) FROM annotation WHERE id = '\(gone.id)'") > 0)
    }

    @Test func aShorterRetentionIsFollowed() throws {
        let (fixture, _, gone, _) = try deletedRecords()
        defer { fixture.directory.remove() }
        try fixture.store.write { tables throws(StoreError) in try tables.tombstones.setRetention(days: 1) }
        fixture.clock.advance(milliseconds: day + 1)
        #expect(try fixture.store.purge.expired(limit: 100) == 2)
        #expect(try fixture.store.integer("SELECT length(body) FROM annotation WHERE id = '\(gone.id)'") == 0)
    }
}
