import Applier
import Foundation
import Testing
import Journal
@testable import VaultStore
import TestSupport

/// `Store.importArchive`: one transaction, idempotent by id, merged through the sync
/// policies, with an outbox operation for every change and none for what is unchanged.
@Suite struct StoreImportTests {
    struct InjectedFailure: Error {}

    private func snapshot(_ fixture: Fixture) throws -> [String] {
        try fixture.store.rawAnnotationRows().map { $0.joined(separator: "|") }
            + [String(try fixture.store.outboxRows().count)]
            + (try fixture.store.rawRows("SELECT id, hex(title), progress, deleted_at, version, 0, 0, 0, 0 FROM book ORDER BY id").map { $0.joined(separator: "|") })
            + (try fixture.store.rawRows("SELECT id, book_id, started_at, ended_at, pages_read, 0, 0, 0, 0 FROM reading_session ORDER BY id").map { $0.joined(separator: "|") })
    }

    @Test func newRecordsAreAddedAsTheyAreWithTheirOperations() throws {
        let fixture = try makeFixture()
        defer { fixture.directory.remove() }
        let book = try newBook(clock: fixture.clock)
        var note = try newNote(book, clock: fixture.clock)
        note.version = 3
        note.deletedAt = Timestamp(millisecondsSince1970: note.updatedAt.millisecondsSince1970 + 5)
        let quote = try newQuote(book, clock: fixture.clock)
        let session = try newSession(book, clock: fixture.clock)
        // The notes come before their book: foreign keys are checked at commit.
        let summary = try fixture.store.importArchive(dryRun: false) { importer in
            let result1 = try importer.add(note)
            #expect(result1 == (.added, false))
            let result2 = try importer.add(quote).outcome
            #expect(result2 == .added)
            let result3 = try importer.add(session).outcome
            #expect(result3 == .added)
            let result4 = try importer.add(book)
            #expect(result4 == .added)
        }
        #expect(summary.added == JournalCounts(books: 1, sessions: 1, notes: 1, quotes: 1))
        #expect(try fixture.store.read { tables throws(StoreError) in try tables.annotations.annotation(note.id) } == note)
        #expect(try fixture.store.read { tables throws(StoreError) in try tables.books.book(book.id) } == book)
        #expect(try fixture.store.outboxRows().count == 4)
        #expect(try fixture.store.outboxRows().allSatisfy { $0.action == "create" && $0.state == "pending" })
    }

    /// An import keeps its outbox operations and the clock in a write batch: written in
    /// full, in record order, with the clock moved past the last one, as one-by-one adds do.
    @Test func aLargeImportWritesEveryOperationInOrderAndTheClockOnce() throws {
        let fixture = try makeFixture()
        defer { fixture.directory.remove() }
        let book = try newBook(clock: fixture.clock)
        var notes: [Annotation] = []
        for index in 0..<300 {
            fixture.clock.advance(milliseconds: 1)
            notes.append(try newNote(book, "Note \(index)", clock: fixture.clock))
        }
        _ = try fixture.store.importArchive(dryRun: false) { importer in
            _ = try importer.add(book)
            for note in notes { _ = try importer.add(note) }
        }
        let rows = try fixture.store.outboxRows()
        #expect(rows.map(\.entityID) == [book.id.rawValue] + notes.map(\.id.rawValue))
        let clocks = try fixture.store.rawRows("SELECT hlc, 0, 0, 0, 0, 0, 0, 0, 0 FROM outbox ORDER BY id").map { $0[0] }
        #expect(clocks == clocks.sorted() && Set(clocks).count == clocks.count)
        let stored = try fixture.store.rawRows("SELECT value, 0, 0, 0, 0, 0, 0, 0, 0 FROM vault_meta WHERE key = 'hlc'").map { $0[0] }
        #expect(stored == [clocks.last])
        // The next local change stamps a later clock.
        let addedNote = try newNote(book, "After the import", clock: fixture.clock)
        try fixture.store.write { tables throws(StoreError) in try tables.annotations.add(addedNote) }
        let after = try fixture.store.rawRows("SELECT hlc, 0, 0, 0, 0, 0, 0, 0, 0 FROM outbox ORDER BY id DESC LIMIT 1").map { $0[0] }
        #expect(after[0] > clocks.last!)
    }

    /// A live note is never left in a deleted book: the first note of the archive brings it
    /// back (once), in a vault that had notes and in one that had none.
    @Test func aNewNoteBringsItsDeletedBookBackOnce() throws {
        for hadNotes in [false, true] {
            let fixture = try makeFixture()
            defer { fixture.directory.remove() }
            let book = try newBook(clock: fixture.clock)
            try fixture.store.write { tables throws(StoreError) in try tables.books.add(book) }
            if hadNotes {
                let other = try newBook("Another Book", clock: fixture.clock)
                try fixture.store.write { tables throws(StoreError) in try tables.books.add(other) }
                let addedNote2 = try newNote(other, clock: fixture.clock)
                try fixture.store.write { tables throws(StoreError) in try tables.annotations.add(addedNote2) }
            }
            try fixture.store.write { tables throws(StoreError) in try tables.books.delete(book.id) }
            fixture.clock.advance(seconds: 1)
            let notes = [try newNote(book, "first", clock: fixture.clock), try newNote(book, "second", clock: fixture.clock)]
            let summary = try fixture.store.importArchive(dryRun: false) { importer in
                for note in notes { _ = try importer.add(note) }
            }
            #expect(summary.added.notes == 2 && summary.updated.books == 1, "\(hadNotes)")
            #expect(try fixture.store.read { tables throws(StoreError) in try tables.books.book(book.id) }.deletedAt == nil)
        }
    }

    @Test func importingTheSameRecordsAgainChangesNothing() throws {
        let fixture = try makeFixture()
        defer { fixture.directory.remove() }
        let book = try newBook(clock: fixture.clock)
        let records = (book, try newNote(book, clock: fixture.clock), try newQuote(book, clock: fixture.clock), try newSession(book, clock: fixture.clock))
        for _ in 0..<2 {
            _ = try fixture.store.importArchive(dryRun: false) { importer in
                _ = try importer.add(records.0)
                _ = try importer.add(records.1)
                _ = try importer.add(records.2)
                _ = try importer.add(records.3)
            }
        }
        let before = try snapshot(fixture)
        let again = try fixture.store.importArchive(dryRun: false) { importer in
            let result5 = try importer.add(records.0)
            #expect(result5 == .unchanged)
            let result6 = try importer.add(records.1).outcome
            #expect(result6 == .unchanged)
            let result7 = try importer.add(records.2).outcome
            #expect(result7 == .unchanged)
            let result8 = try importer.add(records.3).outcome
            #expect(result8 == .unchanged)
        }
        #expect(again.unchanged == 4 && again.added.total == 0 && again.updated.total == 0 && again.conflicts == 0)
        #expect(try snapshot(fixture) == before)
    }

    @Test func aFailureMidImportLeavesTheVaultExactlyAsItWas() throws {
        let fixture = try makeFixture()
        defer { fixture.directory.remove() }
        let existing = try newBook("Already here", clock: fixture.clock)
        try fixture.store.write { tables throws(StoreError) in try tables.books.add(existing) }
        let addedNote3 = try newNote(existing, clock: fixture.clock)
        try fixture.store.write { tables throws(StoreError) in try tables.annotations.add(addedNote3) }
        let before = try snapshot(fixture)
        // The whole vault in the file (the import folds the WAL in before it writes).
        try fixture.store.database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        let databaseBefore = try databaseBytesIgnoringChangeCounter(fixture.path)
        let book = try newBook(clock: fixture.clock)
        #expect(throws: InjectedFailure.self) {
            _ = try fixture.store.importArchive(dryRun: false) { importer in
                _ = try importer.add(book)
                for index in 0..<50 { _ = try importer.add(try newNote(book, "note \(index)", clock: fixture.clock)) }
                var edited = try fixture.store.read { tables throws(StoreError) in try tables.books.book(existing.id) }
                edited.progress = 90
                _ = try importer.add(edited)
                throw InjectedFailure()
            }
        }
        #expect(try snapshot(fixture) == before)
        #expect(try fixture.reopen().read { tables throws(StoreError) in try tables.records.counts() }.notes == 1)
        #expect(try databaseBytesIgnoringChangeCounter(fixture.path) == databaseBefore)
    }

    @Test func aDryRunReportsEverythingAndKeepsNothing() throws {
        let fixture = try makeFixture()
        defer { fixture.directory.remove() }
        let book = try newBook(clock: fixture.clock)
        let before = try snapshot(fixture)
        let summary = try fixture.store.importArchive(dryRun: true) { importer in
            _ = try importer.add(book)
            _ = try importer.add(try newNote(book, clock: fixture.clock))
        }
        #expect(summary.added.books == 1 && summary.added.notes == 1)
        #expect(try snapshot(fixture) == before)
    }

    @Test func aDifferentTextKeepsBothAndIsCountedAsAConflictOnce() throws {
        let fixture = try makeFixture()
        defer { fixture.directory.remove() }
        let book = try newBook(clock: fixture.clock)
        try fixture.store.write { tables throws(StoreError) in try tables.books.add(book) }
        let note = try newNote(book, "the original", clock: fixture.clock)
        try fixture.store.write { tables throws(StoreError) in try tables.annotations.add(note) }
        fixture.clock.advance(seconds: 60)
        try fixture.store.write { tables throws(StoreError) in try tables.annotations.edit(note.id, body: "edited in the vault", locator: nil) }
        var archived = note
        archived.body = "edited in the archive"
        for round in 0..<2 {
            let summary = try fixture.store.importArchive(dryRun: false) { importer in
                let result9 = try importer.add(archived).outcome
                #expect(result9 == (round == 0 ? .conflict : .unchanged))
            }
            #expect(summary.conflicts == (round == 0 ? 1 : 0))
        }
        #expect(try fixture.store.read { tables throws(StoreError) in try tables.annotations.annotation(note.id) }.body == "edited in the vault")
        let copies = try fixture.store.read { tables throws(StoreError) in try tables.annotations.conflicts() }.compactMap { try? $0.get() }
        #expect(copies.count == 1)
        #expect(copies.first?.body == "edited in the archive" && copies.first?.conflictOf == note.id && copies.first?.conflictReason == .bothEdited)
    }

    @Test func anEditOfTheVaultsOwnVersionIsAnUpdate() throws {
        let fixture = try makeFixture()
        defer { fixture.directory.remove() }
        let book = try newBook(clock: fixture.clock)
        try fixture.store.write { tables throws(StoreError) in try tables.books.add(book) }
        let quote = try newQuote(book, "as exported", clock: fixture.clock)
        try fixture.store.write { tables throws(StoreError) in try tables.annotations.add(quote) }
        var edited = quote
        edited.body = "edited in the Markdown"
        edited.locator = try Locator("p. 503")
        let operations = try fixture.store.outboxRows().count
        let summary = try fixture.store.importArchive(dryRun: false) { importer in
            let result10 = try importer.add(edited).outcome
            #expect(result10 == .updated)
        }
        #expect(summary.updated.quotes == 1 && summary.conflicts == 0)
        let stored = try fixture.store.read { tables throws(StoreError) in try tables.annotations.annotation(quote.id) }
        #expect(stored.body == "edited in the Markdown" && stored.locator?.text == "p. 503" && stored.version == 2)
        let rows = try fixture.store.outboxRows()
        #expect(rows.count == operations + 1 && rows.last?.action == "update" && rows.last?.baseVersion == 1)
    }

    @Test func deletionsFollowTheNoteAndQuotePolicy() throws {
        let fixture = try makeFixture()
        defer { fixture.directory.remove() }
        let book = try newBook(clock: fixture.clock)
        try fixture.store.write { tables throws(StoreError) in try tables.books.add(book) }
        let stale = try newNote(book, "deleted since the export", clock: fixture.clock)
        let changed = try newNote(book, "deleted here, changed in the archive", clock: fixture.clock)
        let tombstoned = try newNote(book, "deleted in the archive", clock: fixture.clock)
        for note in [stale, changed, tombstoned] { try fixture.store.write { tables throws(StoreError) in try tables.annotations.add(note) } }
        fixture.clock.advance(seconds: 5)
        try fixture.store.write { tables throws(StoreError) in try tables.annotations.delete(stale.id) }
        try fixture.store.write { tables throws(StoreError) in try tables.annotations.delete(changed.id) }
        var changedInArchive = changed
        changedInArchive.body = "deleted here, changed in the archive (and edited)"
        var deletedInArchive = tombstoned
        deletedInArchive.version = 2
        deletedInArchive.deletedAt = fixture.clock.now()
        let summary = try fixture.store.importArchive(dryRun: false) { importer in
            let result11 = try importer.add(stale).outcome              // an older live copy does not undelete
            #expect(result11 == .unchanged)
            let result12 = try importer.add(changedInArchive).outcome    // a different text comes back, marked
            #expect(result12 == .conflict)
            let result13 = try importer.add(deletedInArchive).outcome     // a later tombstone deletes
            #expect(result13 == .updated)
        }
        #expect(summary.conflicts == 1)
        #expect(try fixture.store.read { tables throws(StoreError) in try tables.annotations.annotation(stale.id) }.deletedAt != nil)
        let revived = try fixture.store.read { tables throws(StoreError) in try tables.annotations.annotation(changed.id) }
        #expect(revived.deletedAt == nil && revived.conflictReason == .editedAfterDelete && revived.body == changedInArchive.body)
        #expect(try fixture.store.read { tables throws(StoreError) in try tables.annotations.annotation(tombstoned.id) }.deletedAt != nil)
    }

    @Test func booksTakeTheLaterMetadataAndTheFurthestProgress() throws {
        let fixture = try makeFixture()
        defer { fixture.directory.remove() }
        let book = try newBook("Old title", clock: fixture.clock)
        try fixture.store.write { tables throws(StoreError) in try tables.books.add(book) }
        fixture.clock.advance(seconds: 10)
        try fixture.store.write { tables throws(StoreError) in try tables.books.setProgress(of: book.id, to: 60) }
        var older = book
        older.title = "Older archive title"
        older.progress = 80
        var newer = book
        newer.title = "Newer archive title"
        newer.progress = 10
        newer.updatedAt = Timestamp(millisecondsSince1970: fixture.clock.now().millisecondsSince1970 + 60_000)
        newer.version = 5
        _ = try fixture.store.importArchive(dryRun: false) { importer in
            let result14 = try importer.add(older)
            #expect(result14 == .updated)
        }
        var stored = try fixture.store.read { tables throws(StoreError) in try tables.books.book(book.id) }
        #expect(stored.title == "Old title" && stored.progress == 80)
        _ = try fixture.store.importArchive(dryRun: false) { importer in
            let result15 = try importer.add(newer)
            #expect(result15 == .updated)
        }
        stored = try fixture.store.read { tables throws(StoreError) in try tables.books.book(book.id) }
        #expect(stored.title == "Newer archive title" && stored.progress == 80)
    }

    @Test func anArchiveHoldingOneIdTwiceIsCaught() throws {
        let fixture = try makeFixture()
        defer { fixture.directory.remove() }
        let book = try newBook(clock: fixture.clock)
        let note = try newNote(book, clock: fixture.clock)
        _ = try fixture.store.importArchive(dryRun: true) { importer in
            _ = try importer.add(book)
            let result16 = try importer.add(note).outcome
            #expect(result16 == .added)
            let result17 = try importer.add(note).outcome
            #expect(result17 == .duplicate)
            let result18 = try importer.add(book)
            #expect(result18 == .duplicate)
        }
    }

    @Test func additionsAreAddedOnceByText() throws {
        let fixture = try makeFixture()
        defer { fixture.directory.remove() }
        let book = try newBook(clock: fixture.clock)
        try fixture.store.write { tables throws(StoreError) in try tables.books.add(book) }
        for round in 0..<2 {
            let fresh = try newNote(book, "a paragraph written in the Markdown", clock: fixture.clock)
            _ = try fixture.store.importArchive(dryRun: false) { importer in
                let result19 = try importer.addIfNew(fresh).outcome
                #expect(result19 == (round == 0 ? .added : .unchanged))
            }
        }
        #expect(try fixture.store.read { tables throws(StoreError) in try tables.records.counts() }.notes == 1)
    }

    private func journalMode(_ store: Store) throws -> String {
        var mode = ""
        try store.database.forEachRow("PRAGMA journal_mode") { row in mode = row.text(0) }
        return mode
    }

    /// Alone with the vault, an import writes with a rollback journal (each new page once)
    /// and leaves the vault in WAL mode; a dry run never leaves WAL mode.
    @Test func anImportAloneWithTheVaultUsesARollbackJournalAndReturnsToTheWAL() throws {
        let fixture = try makeFixture()
        defer { fixture.directory.remove() }
        let book = try newBook(clock: fixture.clock)
        var modes: [String] = []
        _ = try fixture.store.importArchive(dryRun: true) { importer in
            modes.append(try journalMode(fixture.store))
            _ = try importer.add(book)
        }
        _ = try fixture.store.importArchive(dryRun: false) { importer in
            modes.append(try journalMode(fixture.store))
            _ = try importer.add(book)
        }
        #expect(modes == ["wal", "delete"])
        #expect(try journalMode(fixture.store) == "wal")
        #expect(try fixture.reopen().read { tables throws(StoreError) in try tables.books.book(book.id) } == book)
        #expect(!FileManager.default.fileExists(atPath: fixture.path + "-journal"))
    }

    /// With another connection open (another bmvault process reading), the import keeps
    /// the WAL, so that reader goes on undisturbed, and the import still commits.
    @Test func anImportBesideAnotherConnectionKeepsTheWAL() throws {
        let fixture = try makeFixture()
        defer { fixture.directory.remove() }
        let other = try fixture.reopen()
        _ = try other.read { tables throws(StoreError) in try tables.outbox.counts() }
        let book = try newBook(clock: fixture.clock)
        var mode = ""
        _ = try fixture.store.importArchive(dryRun: false) { importer in
            mode = try journalMode(fixture.store)
            _ = try importer.add(book)
        }
        #expect(mode == "wal")
        #expect(try other.read { tables throws(StoreError) in try tables.books.book(book.id) } == book)
    }

    /// Every connection syncs as `EXTRA`: in WAL mode what `FULL` does, and with a rollback
    /// journal (an import's, or one a killed import left) the directory after the commit.
    @Test func everyConnectionSyncsTheDirectoryAfterARollbackJournal() throws {
        let fixture = try makeFixture()
        defer { fixture.directory.remove() }
        for store in [fixture.store, try fixture.reopen()] {
            var level: Int64 = -1
            try store.database.forEachRow("PRAGMA synchronous") { row in level = row.int64(0) }
            #expect(level == 3, "synchronous is \(level), not EXTRA")
        }
    }

    /// A vault left with a rollback journal (an import killed before it could switch back)
    /// is in WAL mode again after the next open.
    @Test func theNextOpenPutsTheWALBack() throws {
        let fixture = try makeFixture()
        defer { fixture.directory.remove() }
        try fixture.store.database.execute("PRAGMA journal_mode = DELETE")
        let reopened = try fixture.reopen()
        #expect(try journalMode(reopened) == "wal")
    }
}
