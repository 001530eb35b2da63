import Foundation
import Testing
import Journal
@testable import VaultStore
import Sync
import SyncWire
import VaultCrypto

/// Every mutation writes its entity and exactly one outbox operation, sealed.
@Suite struct StoreOutboxTests {
    /// Checks that `body` added exactly one outbox row, with the expected columns, a sealed
    /// payload that holds none of `plaintexts`, and returns it with its opened payload.
    @discardableResult
    func expectOneOperation(_ fixture: Fixture, entity: OutboxEntity, id: EntityID, action: OutboxAction,
                            baseVersion: Int64, plaintexts: [String],
                            sourceLocation: SourceLocation = #_sourceLocation,
                            _ body: () throws -> Void) throws -> (row: OutboxRow, payload: [String: Any]) {
        let before = try fixture.store.outboxRows()
        try body()
        let after = try fixture.store.outboxRows()
        #expect(after.count == before.count + 1, "expected one new outbox row", sourceLocation: sourceLocation)
        #expect(Array(after.prefix(before.count)) == before, "earlier outbox rows changed", sourceLocation: sourceLocation)
        let row = try #require(after.last, sourceLocation: sourceLocation)
        #expect(row.entity == entity.rawValue, sourceLocation: sourceLocation)
        #expect(row.entityID == id.rawValue, sourceLocation: sourceLocation)
        #expect(row.action == action.rawValue, sourceLocation: sourceLocation)
        #expect(row.baseVersion == baseVersion, sourceLocation: sourceLocation)
        #expect(row.state == "pending", sourceLocation: sourceLocation)
        #expect(row.attemptCount == 0, sourceLocation: sourceLocation)
        #expect(row.createdAt == fixture.clock.now().millisecondsSince1970, sourceLocation: sourceLocation)
        #expect((try? EntityID(validating: row.idempotencyKey)) != nil, "idempotency key is not an id", sourceLocation: sourceLocation)
        #expect(!before.contains { $0.idempotencyKey == row.idempotencyKey }, "idempotency key reused", sourceLocation: sourceLocation)
        for text in plaintexts {
            #expect(!contains(row.payload, Array(text.utf8)), "payload holds plaintext", sourceLocation: sourceLocation)
        }
        let payload = try openPayload(row, key: fixture.key, vaultID: fixture.metadata.vaultID)
        #expect(payload["v"] as? Int == 2, sourceLocation: sourceLocation)
        return (row, payload)
    }

    @Test func withNoRemoteEachChangeReplacesTheOperationsOfTheOneBefore() throws {
        let fixture = try makeFixture(remote: false)
        defer { fixture.directory.remove() }
        let book = try newBook(clock: fixture.clock)
        try fixture.store.write { tables throws(StoreError) in try tables.books.add(book) }
        let first = try fixture.store.outboxRows()
        #expect(first.count == 1 && first[0].state == "done", "nowhere to send it: done")
        let addedNote = try newNote(book, clock: fixture.clock)
        try fixture.store.write { tables throws(StoreError) in try tables.annotations.add(addedNote) }
        let second = try fixture.store.outboxRows()
        #expect(second.count == 1 && second[0].entity == "annotation" && second[0].state == "done")
        // A change that fails removes nothing.
        #expect(storeError { () throws(StoreError) in try fixture.store.write { tables throws(StoreError) in try tables.books.add(book) } } != nil)
        #expect(try fixture.store.outboxRows() == second)
        // The first remote owes a snapshot of the two records; nothing older is kept for it.
        try fixture.store.write { tables throws(StoreError) in try tables.remotes.add(name: "shared", kind: .folder, location: fixture.directory.file("remote")) }
        #expect(try fixture.store.outboxRows().isEmpty)
        #expect(try fixture.store.read { tables throws(StoreError) in try tables.remotes.needingSnapshot() } == ["shared"])
        #expect(try fixture.store.write { tables throws(StoreError) in try tables.outbox.enqueueSnapshot(for: "shared") } == {
            var report = SnapshotReport()
            report.operations = 2
            return report
        }())
        #expect(try fixture.store.read { tables throws(StoreError) in try tables.outbox.counts() }[.pending] == 2)
    }

    @Test func everyMutationAddsExactlyOneSealedPendingOperation() throws {
        let fixture = try makeFixture()
        defer { fixture.directory.remove() }
        let store = fixture.store
        let clock = fixture.clock

        // addBook
        let book = try newBook("Canary Title Qx7", authors: ["Canary Author Qx7"], clock: clock)
        var result = try expectOneOperation(fixture, entity: .book, id: book.id, action: .create, baseVersion: 0,
                                            plaintexts: ["Canary Title Qx7", "Canary Author Qx7"]) {
            try store.write { tables throws(StoreError) in try tables.books.add(book) }
        }
        var snapshot = try #require(result.payload["book"] as? [String: Any])
        #expect(snapshot["title"] as? String == "Canary Title Qx7")
        #expect(snapshot["authors"] as? [String] == ["Canary Author Qx7"])
        #expect(snapshot["version"] as? Int == 1)

        // setProgress
        clock.advance(seconds: 10)
        result = try expectOneOperation(fixture, entity: .book, id: book.id, action: .update, baseVersion: 1,
                                        plaintexts: ["Canary Title Qx7"]) {
            let updated = try store.write { tables throws(StoreError) in try tables.books.setProgress(of: book.id, to: 42.5) }
            #expect(updated.progress == 42.5)
            #expect(updated.version == 2)
        }
        snapshot = try #require(result.payload["book"] as? [String: Any])
        #expect(snapshot["progress"] as? Double == 42.5)
        #expect(snapshot["version"] as? Int == 2)
        let progressed = try store.read { tables throws(StoreError) in try tables.books.book(book.id) }
        #expect(progressed.progress == 42.5)
        #expect(progressed.version == 2)
        #expect(progressed.updatedAt == clock.now())

        // addAnnotation
        clock.advance(seconds: 10)
        let note = try newNote(book, "Canary Body Qx7", locator: "Canary Locator Qx7", clock: clock)
        result = try expectOneOperation(fixture, entity: .annotation, id: note.id, action: .create, baseVersion: 0,
                                        plaintexts: ["Canary Body Qx7", "Canary Locator Qx7"]) {
            try store.write { tables throws(StoreError) in try tables.annotations.add(note) }
        }
        snapshot = try #require(result.payload["annotation"] as? [String: Any])
        #expect(snapshot["body"] as? String == "Canary Body Qx7")
        #expect(snapshot["locator"] as? String == "Canary Locator Qx7")
        #expect(snapshot["bookId"] as? String == book.id.rawValue)

        // addSession
        clock.advance(seconds: 10)
        let session = try newSession(book, pages: 33, clock: clock)
        result = try expectOneOperation(fixture, entity: .session, id: session.id, action: .create, baseVersion: 0, plaintexts: []) {
            try store.write { tables throws(StoreError) in _ = try tables.sessions.add(session) }
        }
        snapshot = try #require(result.payload["session"] as? [String: Any])
        #expect(snapshot["pagesRead"] as? Int == 33)
        #expect(try store.read { tables throws(StoreError) in try tables.sessions.session(session.id) } == session)

        // editAnnotation
        clock.advance(seconds: 10)
        result = try expectOneOperation(fixture, entity: .annotation, id: note.id, action: .update, baseVersion: 1,
                                        plaintexts: ["Edited Canary Qx7", "Canary Body Qx7"]) {
            let edited = try store.write { tables throws(StoreError) in try tables.annotations.edit(note.id, body: "Edited Canary Qx7", locator: nil) }
            #expect(edited.version == 2)
            #expect(edited.body == "Edited Canary Qx7")
            #expect(edited.locator == note.locator)
            #expect(edited.updatedAt == clock.now())
            #expect(edited.createdAt == note.createdAt)
        }
        snapshot = try #require(result.payload["annotation"] as? [String: Any])
        #expect(snapshot["version"] as? Int == 2)
        #expect(snapshot["body"] as? String == "Edited Canary Qx7")
        #expect(snapshot["deletedAt"] == nil)

        // deleteAnnotation
        clock.advance(seconds: 10)
        result = try expectOneOperation(fixture, entity: .annotation, id: note.id, action: .delete, baseVersion: 2,
                                        plaintexts: ["Edited Canary Qx7"]) {
            let deleted = try store.write { tables throws(StoreError) in try tables.annotations.delete(note.id) }
            #expect(deleted.deletedAt == clock.now())
            #expect(deleted.version == 3)
        }
        snapshot = try #require(result.payload["annotation"] as? [String: Any])
        #expect(snapshot["deletedAt"] as? Int == Int(clock.now().millisecondsSince1970))
        #expect(snapshot["version"] as? Int == 3)

        // deleteBook
        clock.advance(seconds: 10)
        result = try expectOneOperation(fixture, entity: .book, id: book.id, action: .delete, baseVersion: 2,
                                        plaintexts: ["Canary Title Qx7"]) {
            try store.write { tables throws(StoreError) in try tables.books.delete(book.id) }
        }
        snapshot = try #require(result.payload["book"] as? [String: Any])
        #expect(snapshot["deletedAt"] as? Int == Int(clock.now().millisecondsSince1970))
        #expect(snapshot["version"] as? Int == 3)

        let rows = try store.outboxRows()
        #expect(rows.count == 7)
        #expect(Set(rows.map(\.idempotencyKey)).count == 7)
        #expect(try store.read { tables throws(StoreError) in try tables.outbox.counts() } == [.pending: 7, .inFlight: 0, .done: 0, .failed: 0])
    }

    @Test func editCanReplaceAndClearTheLocator() throws {
        let fixture = try makeFixture()
        defer { fixture.directory.remove() }
        let book = try newBook(clock: fixture.clock)
        let note = try newNote(book, locator: "p. 1", clock: fixture.clock)
        try fixture.store.write { tables throws(StoreError) in try tables.books.add(book) }
        try fixture.store.write { tables throws(StoreError) in try tables.annotations.add(note) }

        let newLocator = try Locator("ch. 9")
        let moved = try fixture.store.write { tables throws(StoreError) in try tables.annotations.edit(note.id, body: nil, locator: .some(newLocator)) }
        #expect(moved.locator?.text == "ch. 9")
        #expect(moved.body == note.body)
        let cleared = try fixture.store.write { tables throws(StoreError) in try tables.annotations.edit(note.id, body: nil, locator: .some(nil)) }
        #expect(cleared.locator == nil)
        #expect(cleared.version == 3)
        let read = try fixture.store.read { tables throws(StoreError) in try tables.annotations.annotation(note.id) }
        #expect(read == cleared)
        #expect(try fixture.store.integer("SELECT locator IS NULL FROM annotation") == 1)
        #expect(try fixture.store.outboxRows().map(\.baseVersion) == [0, 0, 1, 2])
    }

    @Test func payloadIsBoundToItsIdempotencyKey() throws {
        let fixture = try makeFixture()
        defer { fixture.directory.remove() }
        let first = try newBook("First", clock: fixture.clock)
        let second = try newBook("Second", clock: fixture.clock)
        try fixture.store.write { tables throws(StoreError) in try tables.books.add(first) }
        try fixture.store.write { tables throws(StoreError) in try tables.books.add(second) }
        let rows = try fixture.store.outboxRows()
        let sealer = FieldSealer(key: fixture.key, vaultID: fixture.metadata.vaultID)
        #expect(throws: CryptoError.authenticationFailed) {
            try sealer.open(rows[0].payload, table: "outbox", recordID: rows[1].idempotencyKey, field: "payload")
        }
        #expect(throws: CryptoError.authenticationFailed) {
            try sealer.open(rows[0].payload, table: "book", recordID: rows[0].idempotencyKey, field: "payload")
        }
    }

    @Test func failedMutationsWriteNoOperation() throws {
        let fixture = try makeFixture()
        defer { fixture.directory.remove() }
        let book = try newBook(clock: fixture.clock)
        try fixture.store.write { tables throws(StoreError) in try tables.books.add(book) }
        let note = try newNote(book, clock: fixture.clock)
        try fixture.store.write { tables throws(StoreError) in try tables.annotations.add(note) }
        let before = try fixture.store.outboxRows()

        // Duplicate id, unknown ids, tombstoned targets, a book that still has notes.
        #expect(storeError { () throws(StoreError) in try fixture.store.write { tables throws(StoreError) in try tables.books.add(book) } } != nil)
        let unknown = EntityID.generate(at: fixture.clock.now())
        #expect(storeError { () throws(StoreError) in try fixture.store.write { tables throws(StoreError) in try tables.annotations.edit(unknown, body: "x", locator: nil) } }
                == .recordNotFound(id: unknown.rawValue))
        #expect(storeError { () throws(StoreError) in try fixture.store.write { tables throws(StoreError) in try tables.books.setProgress(of: unknown, to: 1) } }
                == .recordNotFound(id: unknown.rawValue))
        #expect(storeError { () throws(StoreError) in try fixture.store.write { tables throws(StoreError) in try tables.books.delete(unknown) } }
                == .recordNotFound(id: unknown.rawValue))
        #expect(storeError { () throws(StoreError) in try fixture.store.write { tables throws(StoreError) in try tables.books.delete(book.id) } }
                == .bookHasAnnotations(id: book.id.rawValue, count: 1))
        #expect(storeError { () throws(StoreError) in try fixture.store.write { tables throws(StoreError) in try tables.books.setProgress(of: book.id, to: 101) } } != nil)
        #expect(try fixture.store.outboxRows() == before)
        #expect(try fixture.store.read { tables throws(StoreError) in try tables.books.book(book.id) } == book)
        #expect(!fixture.store.database.isInTransaction)
    }
}
