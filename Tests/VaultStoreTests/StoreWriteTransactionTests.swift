import Applier
import Foundation
import Testing
import Journal
@testable import VaultStore
import Sync
import SyncWire
import VaultCrypto
import TestSupport

/// Every public write of the journal records its outbox operation in the same transaction
/// as the change: driven one by one, each adds outbox rows; and with the outbox refusing
/// every row (a trigger), each fails and leaves the journal exactly as it was, so a change
/// can never be saved without the operation that carries it to other devices.
@Suite struct StoreWriteTransactionTests {
    /// One journal write, given the records set up for it.
    struct Write: CustomStringConvertible, Sendable {
        let description: String
        let run: @Sendable (Store, Setup) throws -> Void
    }

    struct Setup {
        let book: Book
        let note: Annotation
        /// A conflict copy, shown from another device's version of a second note.
        let copy: EntityID
        let clock: TestClock
    }

    static let writes: [Write] = [
        Write(description: "addBook") { store, setup in
            let book = try newBook("Another", clock: setup.clock)
            try store.write { tables throws(StoreError) in try tables.books.add(book) }
        },
        Write(description: "setProgress") { store, setup in _ = try store.write { tables throws(StoreError) in try tables.books.setProgress(of: setup.book.id, to: 50) } },
        Write(description: "setProgress --rewind") { store, setup in _ = try store.write { tables throws(StoreError) in try tables.books.setProgress(of: setup.book.id, to: 0, rewind: true) } },
        Write(description: "deleteBook") { store, setup in
            let added = try newBook("Empty", clock: setup.clock)
            try store.write { tables throws(StoreError) in try tables.books.add(added) }
            let empty = try #require(try store.read { tables throws(StoreError) in try tables.books.all() }.compactMap { try? $0.get() }.first { $0.title == "Empty" })
            try store.write { tables throws(StoreError) in try tables.books.delete(empty.id) }
        },
        Write(description: "addSession") { store, setup in
            let session = try newSession(setup.book, clock: setup.clock)
            try store.write { tables throws(StoreError) in _ = try tables.sessions.add(session) }
        },
        Write(description: "addAnnotation") { store, setup in
            let note = try newNote(setup.book, "more", clock: setup.clock)
            try store.write { tables throws(StoreError) in try tables.annotations.add(note) }
        },
        Write(description: "editAnnotation") { store, setup in _ = try store.write { tables throws(StoreError) in try tables.annotations.edit(setup.note.id, body: "changed", locator: nil) } },
        Write(description: "deleteAnnotation") { store, setup in _ = try store.write { tables throws(StoreError) in try tables.annotations.delete(setup.note.id) } },
        Write(description: "insert(batch)") { store, setup in
            let batch = JournalBatch(books: [try newBook("Batch", clock: setup.clock)])
            try store.write { tables throws(StoreError) in try batch.insert(into: tables) }
        },
        Write(description: "importArchive") { store, setup in
            _ = try store.importArchive(dryRun: false) { importer in
                _ = try importer.add(try newBook("Imported", clock: setup.clock))
            }
        },
    ] + ConflictChoice.allCases.map { choice in
        Write(description: "resolveConflict --keep \(choice)") { store, setup in try store.write { tables throws(StoreError) in try tables.annotations.resolveConflict(setup.copy, keepingSide: choice) } }
    }

    /// A version of `note` from another device that did not see this one's: the two stand
    /// together, the other text shown as a conflict copy (derived). Returns the copy's id.
    static func makeConflict(_ store: Store, note: Annotation, clock: TestClock) throws -> EntityID {
        var theirs = note
        theirs.body = "their words"
        theirs.version = 2
        let other = HybridTimestamp(wallMilliseconds: clock.now().millisecondsSince1970 + 1, counter: 0, deviceID: "other-device")
        let version = AnnotationVersion(theirs, clock: other, history: VersionVector(other))
        _ = try StoreSyncJournal(store).applyInOneTransaction { (transaction) throws(StoreError) in
            try JournalMerge.vault.apply(.annotation(version), to: transaction)
        }
        return try #require(try store.read { tables throws(StoreError) in try tables.annotations.conflicts() }.compactMap { try? $0.get() }.first?.id)
    }

    static func setUp(_ fixture: Fixture) throws -> Setup {
        let book = try newBook(clock: fixture.clock)
        try fixture.store.write { tables throws(StoreError) in try tables.books.add(book) }
        let note = try newNote(book, clock: fixture.clock)
        try fixture.store.write { tables throws(StoreError) in try tables.annotations.add(note) }
        let conflicted = try newNote(book, "our words", clock: fixture.clock)
        try fixture.store.write { tables throws(StoreError) in try tables.annotations.add(conflicted) }
        let copy = try makeConflict(fixture.store, note: conflicted, clock: fixture.clock)
        fixture.clock.advance(seconds: 5)
        return Setup(book: book, note: note, copy: copy, clock: fixture.clock)
    }

    @Test(arguments: writes)
    func theWriteAddsItsOperation(_ write: Write) throws {
        let fixture = try makeFixture()
        defer { fixture.directory.remove() }
        let setup = try Self.setUp(fixture)
        let before = try fixture.store.outboxRows().count
        try write.run(fixture.store, setup)
        #expect(try fixture.store.outboxRows().count > before, "\(write)")
    }

    @Test(arguments: writes)
    func theWriteFailsWholeWhenItsOperationCannotBeSaved(_ write: Write) throws {
        let fixture = try makeFixture()
        defer { fixture.directory.remove() }
        let setup = try Self.setUp(fixture)
        let store = fixture.store
        let journal = try store.journalDump()
        try store.database.execute("""
            CREATE TEMP TRIGGER refuse_outbox BEFORE INSERT ON main.outbox BEGIN SELECT RAISE(ABORT, 'outbox refused'); END;
            """)
        #expect("\(write)") { try write.run(store, setup) } throws: { error in
            guard case .database(_, let message)? = error as? StoreError else { return false }
            return message == "outbox refused"
        }
        try store.database.execute("DROP TRIGGER temp.refuse_outbox")
        #expect(try store.journalDump() == journal, "\(write) saved a change without its operation")
    }
}

extension Store {
    /// Every row of the journal's tables and the outbox, every column quoted, in row order.
    func journalDump() throws -> [String: [String]] {
        var dump: [String: [String]] = [:]
        for table in ["book", "reading_session", "annotation", "annotation_version", "outbox", "vault_meta"] {
            var columns: [String] = []
            try database.forEachRow("SELECT name FROM pragma_table_info(?)", [.text(table)]) { columns.append($0.text(0)) }
            try database.forEachRow("SELECT \(columns.map { "quote(\($0))" }.joined(separator: " || '|' || ")) FROM \(table) ORDER BY rowid") { row in
                dump[table, default: []].append(row.text(0))
            }
        }
        return dump
    }
}
