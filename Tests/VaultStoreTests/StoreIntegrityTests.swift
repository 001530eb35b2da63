import Foundation
import Testing
import Journal
@testable import VaultStore
import VaultCrypto
import TestSupport

/// Atomicity, tamper evidence, no plaintext at rest, a full disk, and two connections.
@Suite struct StoreIntegrityTests {
    static let injectFailure = "CREATE TRIGGER fail_outbox BEFORE INSERT ON outbox BEGIN SELECT RAISE(ABORT, 'injected'); END;"

    // MARK: - Atomicity

    @Test func addAnnotationWithoutItsOutboxRowLeavesNothing() throws {
        let fixture = try makeFixture()
        defer { fixture.directory.remove() }
        let store = fixture.store
        let book = try newBook(clock: fixture.clock)
        try store.write { tables throws(StoreError) in try tables.books.add(book) }
        let addedNote = try newNote(book, "already there", clock: fixture.clock)
        try store.write { tables throws(StoreError) in try tables.annotations.add(addedNote) }
        let annotationsBefore = try store.rawAnnotationRows()
        let outboxBefore = try store.outboxRows()
        try store.database.execute(Self.injectFailure)

        let note = try newNote(book, "must not survive", clock: fixture.clock)
        let error = storeError { () throws(StoreError) in try store.write { tables throws(StoreError) in try tables.annotations.add(note) } }
        guard case .database(_, let message)? = error else {
            Issue.record("expected a database error, got \(String(describing: error))")
            return
        }
        #expect(message.contains("injected"))
        #expect(!store.database.isInTransaction)
        #expect(try store.rawAnnotationRows() == annotationsBefore)
        #expect(try store.outboxRows() == outboxBefore)
        #expect(storeError { () throws(StoreError) in try store.read { tables throws(StoreError) in try tables.annotations.annotation(note.id) } } == .recordNotFound(id: note.id.rawValue))

        // The same on another connection: nothing half-written reached the file.
        let other = try fixture.reopen()
        #expect(try other.rawAnnotationRows() == annotationsBefore)
    }

    @Test func editAndDeleteWithoutTheirOutboxRowsLeaveTheAnnotationAsItWas() throws {
        let fixture = try makeFixture()
        defer { fixture.directory.remove() }
        let store = fixture.store
        let book = try newBook(clock: fixture.clock)
        try store.write { tables throws(StoreError) in try tables.books.add(book) }
        let note = try newNote(book, "original words", locator: "p. 3", clock: fixture.clock)
        try store.write { tables throws(StoreError) in try tables.annotations.add(note) }
        let annotationsBefore = try store.rawAnnotationRows()
        let booksBefore = try store.rawRows("SELECT id, hex(title), hex(authors), progress, created_at, updated_at, deleted_at, version, 0 FROM book")
        let outboxBefore = try store.outboxRows()
        try store.database.execute(Self.injectFailure)
        fixture.clock.advance(seconds: 30)

        #expect(storeError { () throws(StoreError) in try store.write { tables throws(StoreError) in try tables.annotations.edit(note.id, body: "rewritten", locator: nil) } } != nil)
        #expect(!store.database.isInTransaction)
        #expect(try store.rawAnnotationRows() == annotationsBefore)
        #expect(try store.read { tables throws(StoreError) in try tables.annotations.annotation(note.id) } == note)

        #expect(storeError { () throws(StoreError) in try store.write { tables throws(StoreError) in try tables.annotations.delete(note.id) } } != nil)
        #expect(try store.rawAnnotationRows() == annotationsBefore)

        #expect(storeError { () throws(StoreError) in try store.write { tables throws(StoreError) in try tables.books.setProgress(of: book.id, to: 80) } } != nil)
        let addedSession = try newSessionOrFail(book, clock: fixture.clock)
        #expect(storeError { () throws(StoreError) in try store.write { tables throws(StoreError) in try tables.sessions.add(addedSession) } } != nil)
        #expect(try store.rawRows("SELECT id, hex(title), hex(authors), progress, created_at, updated_at, deleted_at, version, 0 FROM book") == booksBefore)
        #expect(try store.integer("SELECT count(*) FROM reading_session") == 0)
        #expect(try store.outboxRows() == outboxBefore)

        // Once the fault is gone, the same edit goes through with its operation.
        try store.database.execute("DROP TRIGGER fail_outbox")
        let edited = try store.write { tables throws(StoreError) in try tables.annotations.edit(note.id, body: "rewritten", locator: nil) }
        #expect(edited.version == 2)
        #expect(try store.outboxRows().count == outboxBefore.count + 1)
    }

    @Test func addBookWithoutItsOutboxRowLeavesNoBook() throws {
        let fixture = try makeFixture()
        defer { fixture.directory.remove() }
        try fixture.store.database.execute(Self.injectFailure)
        let book = try newBook(clock: fixture.clock)
        #expect(storeError { () throws(StoreError) in try fixture.store.write { tables throws(StoreError) in try tables.books.add(book) } } != nil)
        #expect(try fixture.store.integer("SELECT count(*) FROM book") == 0)
    }

    @Test func tombstonesWithoutTheirOutboxRowsAreNotWritten() throws {
        let fixture = try makeFixture()
        defer { fixture.directory.remove() }
        let store = fixture.store
        let empty = try newBook("Empty", clock: fixture.clock)
        try store.write { tables throws(StoreError) in try tables.books.add(empty) }
        try store.database.execute(Self.injectFailure)
        #expect(storeError { () throws(StoreError) in try store.write { tables throws(StoreError) in try tables.books.delete(empty.id) } } != nil)
        #expect(try store.read { tables throws(StoreError) in try tables.books.book(empty.id) }.deletedAt == nil)
        #expect(try store.read { tables throws(StoreError) in try tables.records.counts() }.books == 1)
        #expect(!store.database.isInTransaction)
    }

    // MARK: - Tampering

    @Test func flippedByteMakesOnlyThatAnnotationUnreadable() throws {
        let fixture = try makeFixture()
        defer { fixture.directory.remove() }
        let store = fixture.store
        let book = try newBook(clock: fixture.clock)
        try store.write { tables throws(StoreError) in try tables.books.add(book) }
        var notes: [Annotation] = []
        for index in 0..<5 {
            fixture.clock.advance(milliseconds: 1)
            let note = try newNote(book, "note number \(index)", clock: fixture.clock)
            try store.write { tables throws(StoreError) in try tables.annotations.add(note) }
            notes.append(note)
        }
        let victim = notes[2]
        var body = try store.blob("body", of: "annotation", id: victim.id.rawValue)
        body[body.count - 20] ^= 0x01 // inside the ciphertext
        try store.setBlob("body", of: "annotation", id: victim.id.rawValue, to: body)

        let results = try store.liveAnnotations()
        #expect(results.count == 5)
        for (note, result) in zip(notes, results) {
            if note.id == victim.id {
                #expect(throws: UnreadableRecord(id: victim.id.rawValue, field: "body")) { try result.get() }
            } else {
                #expect(try result.get() == note)
            }
        }
        #expect(storeError { () throws(StoreError) in try store.read { tables throws(StoreError) in try tables.annotations.annotation(victim.id) } }
                == .recordUnreadable(id: victim.id.rawValue, field: "body"))
        // An unreadable annotation cannot be edited blind, and nothing is enqueued.
        let outbox = try store.outboxRows().count
        #expect(storeError { () throws(StoreError) in try store.write { tables throws(StoreError) in try tables.annotations.edit(victim.id, body: "overwrite", locator: nil) } }
                == .recordUnreadable(id: victim.id.rawValue, field: "body"))
        #expect(try store.outboxRows().count == outbox)
    }

    @Test(arguments: [0, 1, 9, 33, -1])
    func anyFlippedByteOfTheEnvelopeIsDetected(offset: Int) throws {
        let fixture = try makeFixture()
        defer { fixture.directory.remove() }
        let book = try newBook(clock: fixture.clock)
        try fixture.store.write { tables throws(StoreError) in try tables.books.add(book) }
        let note = try newNote(book, "envelope", locator: "p. 7", clock: fixture.clock)
        try fixture.store.write { tables throws(StoreError) in try tables.annotations.add(note) }
        var locator = try fixture.store.blob("locator", of: "annotation", id: note.id.rawValue)
        locator[offset >= 0 ? offset : locator.count + offset] ^= 0x80
        try fixture.store.setBlob("locator", of: "annotation", id: note.id.rawValue, to: locator)
        #expect(storeError { () throws(StoreError) in try fixture.store.read { tables throws(StoreError) in try tables.annotations.annotation(note.id) } }
                == .recordUnreadable(id: note.id.rawValue, field: "locator"))
    }

    @Test func bodyCopiedOntoAnotherAnnotationIsRefused() throws {
        let fixture = try makeFixture()
        defer { fixture.directory.remove() }
        let store = fixture.store
        let book = try newBook(clock: fixture.clock)
        try store.write { tables throws(StoreError) in try tables.books.add(book) }
        let a = try newNote(book, "words of A", locator: "p. 1", clock: fixture.clock)
        let b = try newNote(book, "words of B", locator: "p. 2", clock: fixture.clock)
        try store.write { tables throws(StoreError) in try tables.annotations.add(a) }
        try store.write { tables throws(StoreError) in try tables.annotations.add(b) }

        try store.setBlob("body", of: "annotation", id: b.id.rawValue, to: try store.blob("body", of: "annotation", id: a.id.rawValue))
        #expect(try store.read { tables throws(StoreError) in try tables.annotations.annotation(a.id) } == a)
        #expect(storeError { () throws(StoreError) in try store.read { tables throws(StoreError) in try tables.annotations.annotation(b.id) } } == .recordUnreadable(id: b.id.rawValue, field: "body"))
        let byID = Dictionary(uniqueKeysWithValues: try store.liveAnnotations().map { result in
            switch result {
            case .success(let annotation): (annotation.id.rawValue, true)
            case .failure(let unreadable): (unreadable.id, false)
            }
        })
        #expect(byID == [a.id.rawValue: true, b.id.rawValue: false])
    }

    @Test func searchReportsDamagedBodiesAndLocatorsAndStillFindsTheRest() throws {
        let fixture = try makeFixture()
        defer { fixture.directory.remove() }
        let store = fixture.store
        let book = try newBook(clock: fixture.clock)
        try store.write { tables throws(StoreError) in try tables.books.add(book) }
        let match = try newNote(book, "the spice must flow", locator: "p. 1", clock: fixture.clock)
        let other = try newNote(book, "nothing to see", locator: "p. 2", clock: fixture.clock)
        let damagedBody = try newNote(book, "spice too", locator: "p. 3", clock: fixture.clock)
        let damagedLocator = try newNote(book, "no match in the body", locator: "p. 4", clock: fixture.clock)
        for note in [match, other, damagedBody, damagedLocator] { try store.write { tables throws(StoreError) in try tables.annotations.add(note) } }
        for (note, column) in [(damagedBody, "body"), (damagedLocator, "locator")] {
            var sealed = try store.blob(column, of: "annotation", id: note.id.rawValue)
            sealed[sealed.count - 1] ^= 0x80
            try store.setBlob(column, of: "annotation", id: note.id.rawValue, to: sealed)
        }

        var found: [String] = []
        var unreadable: [String: String] = [:]
        let spiceQuery = try SearchQuery("SPICE")
        try store.read { tables throws(StoreError) in try tables.annotations.forEach(matching: spiceQuery, in: AnnotationFilter(), bookTerms: [:]) { result in
            switch result {
            case .success(let annotation): found.append(annotation.body)
            case .failure(let failure): unreadable[failure.id] = failure.field
            }
        } }
        #expect(found == ["the spice must flow"])
        #expect(unreadable == [damagedBody.id.rawValue: "body", damagedLocator.id.rawValue: "locator"])

        // A book whose title matched brings all its readable notes, matching or not.
        var inBook: [String] = []
        let zeppelinQuery = try SearchQuery("zeppelin")
        try store.read { tables throws(StoreError) in try tables.annotations.forEach(matching: zeppelinQuery, in: AnnotationFilter(), bookTerms: [book.id: 1]) { result in
            if case .success(let annotation) = result { inBook.append(annotation.body) }
        } }
        #expect(inBook.sorted() == ["nothing to see", "the spice must flow"])

        // A book that covers one word of two: its notes must hold the other, in body or locator.
        var covered: [String] = []
        let zeppelinQuery2 = try SearchQuery("zeppelin SPICE")
        try store.read { tables throws(StoreError) in try tables.annotations.forEach(matching: zeppelinQuery2, in: AnnotationFilter(), bookTerms: [book.id: 0b01]) { result in
            if case .success(let annotation) = result { covered.append(annotation.body) }
        } }
        #expect(covered == ["the spice must flow"])
    }

    /// More notes than one batch of the scan, so that the helper thread opens some of them:
    /// every match and every damaged value is found, whichever thread opened it.
    @Test func searchFindsTheSameAcrossTheScanBatches() throws {
        let fixture = try makeFixture()
        defer { fixture.directory.remove() }
        let store = fixture.store
        let book = try newBook(clock: fixture.clock)
        let count = SearchScan.batchSize * 3 + SearchScan.batchSize / 2
        var notes: [Annotation] = []
        for index in 0..<count {
            notes.append(try newNote(book, index.isMultiple(of: 7) ? "note \(index) with spice" : "note \(index)",
                                     locator: index.isMultiple(of: 11) ? "spice rack \(index)" : nil, clock: fixture.clock))
        }
        try store.write { tables throws(StoreError) in try JournalBatch(books: [book], annotations: notes).insert(into: tables) }
        // One damaged body in each batch, the last (partial) one too.
        let damaged = stride(from: 400, to: count, by: SearchScan.batchSize).map { notes[$0] }
        for note in damaged {
            var sealed = try store.blob("body", of: "annotation", id: note.id.rawValue)
            sealed[sealed.count - 1] ^= 0x80
            try store.setBlob("body", of: "annotation", id: note.id.rawValue, to: sealed)
        }

        var found = Set<String>()
        var unreadable = Set<String>()
        let spiceQuery2 = try SearchQuery("Spice")
        try store.read { tables throws(StoreError) in try tables.annotations.forEach(matching: spiceQuery2, in: AnnotationFilter(), bookTerms: [:]) { result in
            switch result {
            case .success(let annotation): found.insert(annotation.id.rawValue)
            case .failure(let failure): unreadable.insert(failure.id)
            }
        } }
        let damagedIDs = Set(damaged.map(\.id.rawValue))
        let expected = (0..<count).filter { $0.isMultiple(of: 7) || $0.isMultiple(of: 11) }.map { notes[$0].id.rawValue }
        #expect(found == Set(expected).subtracting(damagedIDs))
        #expect(unreadable == damagedIDs)
    }

    @Test func swappedRecordIDsMakeBothUnreadable() throws {
        let fixture = try makeFixture()
        defer { fixture.directory.remove() }
        let store = fixture.store
        let book = try newBook(clock: fixture.clock)
        try store.write { tables throws(StoreError) in try tables.books.add(book) }
        let a = try newNote(book, "words of A", clock: fixture.clock)
        let b = try newNote(book, "words of B", clock: fixture.clock)
        try store.write { tables throws(StoreError) in try tables.annotations.add(a) }
        try store.write { tables throws(StoreError) in try tables.annotations.add(b) }
        try store.database.execute("""
            UPDATE annotation SET id = 'swap' WHERE id = '\(a.id.rawValue)';
            UPDATE annotation SET id = '\(a.id.rawValue)' WHERE id = '\(b.id.rawValue)';
            UPDATE annotation SET id = '\(b.id.rawValue)' WHERE id = 'swap';
            """)
        #expect(storeError { () throws(StoreError) in try store.read { tables throws(StoreError) in try tables.annotations.annotation(a.id) } } == .recordUnreadable(id: a.id.rawValue, field: "body"))
        #expect(storeError { () throws(StoreError) in try store.read { tables throws(StoreError) in try tables.annotations.annotation(b.id) } } == .recordUnreadable(id: b.id.rawValue, field: "body"))
    }

    @Test func sealedValuesDoNotMoveBetweenFieldsOrTables() throws {
        let fixture = try makeFixture()
        defer { fixture.directory.remove() }
        let store = fixture.store
        let book = try newBook(clock: fixture.clock)
        try store.write { tables throws(StoreError) in try tables.books.add(book) }
        let note = try newNote(book, "body text", locator: "p. 9", clock: fixture.clock)
        let other = try newNote(book, "other body", clock: fixture.clock)
        try store.write { tables throws(StoreError) in try tables.annotations.add(note) }
        try store.write { tables throws(StoreError) in try tables.annotations.add(other) }

        // A book title pasted into an annotation body.
        try store.setBlob("body", of: "annotation", id: other.id.rawValue, to: try store.blob("title", of: "book", id: book.id.rawValue))
        #expect(storeError { () throws(StoreError) in try store.read { tables throws(StoreError) in try tables.annotations.annotation(other.id) } } == .recordUnreadable(id: other.id.rawValue, field: "body"))

        // The same record's locator pasted into its body.
        try store.setBlob("body", of: "annotation", id: note.id.rawValue, to: try store.blob("locator", of: "annotation", id: note.id.rawValue))
        #expect(storeError { () throws(StoreError) in try store.read { tables throws(StoreError) in try tables.annotations.annotation(note.id) } } == .recordUnreadable(id: note.id.rawValue, field: "body"))

        // A book's authors pasted into its title.
        try store.setBlob("title", of: "book", id: book.id.rawValue, to: try store.blob("authors", of: "book", id: book.id.rawValue))
        #expect(storeError { () throws(StoreError) in try store.read { tables throws(StoreError) in try tables.books.book(book.id) } } == .recordUnreadable(id: book.id.rawValue, field: "title"))
        let books = try store.read { tables throws(StoreError) in try tables.books.all() }
        #expect(books.count == 1)
        #expect(throws: UnreadableRecord(id: book.id.rawValue, field: "title")) { try books[0].get() }
    }

    @Test func sealedValuesDoNotMoveBetweenVaults() throws {
        let first = try makeFixture()
        defer { first.directory.remove() }
        // A second vault that happens to share the key (a copied key, or a restored backup).
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let second = try Store.create(at: directory.databasePath,
                                      metadata: VaultMetadata(vaultID: UUID().uuidString.lowercased(), keyID: first.key.id,
                                                              createdAt: first.clock.now()),
                                      keyslots: try placeholderKeyslots(), clock: first.clock, generatorVersion: testGeneratorVersion)
        try second.attach(first.key)
        let book = try newBook(clock: first.clock)
        try first.store.write { tables throws(StoreError) in try tables.books.add(book) }
        try second.write { tables throws(StoreError) in try tables.books.add(book) }
        try second.setBlob("title", of: "book", id: book.id.rawValue, to: try first.store.blob("title", of: "book", id: book.id.rawValue))
        #expect(storeError { () throws(StoreError) in try second.read { tables throws(StoreError) in try tables.books.book(book.id) } } == .recordUnreadable(id: book.id.rawValue, field: "title"))
        #expect(try first.store.read { tables throws(StoreError) in try tables.books.book(book.id) } == book)
    }

    // MARK: - No plaintext at rest

    @Test func noPlaintextReachesAnyFileOfTheVault() throws {
        let canary = "zq-CANARY-\(UUID().uuidString)"
        let needle = Array(canary.utf8)
        let directory: TemporaryDirectory
        do {
            let fixture = try makeFixture()
            directory = fixture.directory
            let store = fixture.store
            let book = try newBook("Title \(canary)", authors: ["Author \(canary)"], clock: fixture.clock)
            try store.write { tables throws(StoreError) in try tables.books.add(book) }
            let addedNote2 = try newNote(book, "Note \(canary)", locator: "Loc \(canary)", clock: fixture.clock)
            try store.write { tables throws(StoreError) in try tables.annotations.add(addedNote2) }
            let quote = try newQuote(book, "Quote \(canary)", locator: "Quote loc \(canary)", clock: fixture.clock)
            try store.write { tables throws(StoreError) in try tables.annotations.add(quote) }
            let session = try newSession(book, clock: fixture.clock)
            try store.write { tables throws(StoreError) in _ = try tables.sessions.add(session) }
            try store.write { tables throws(StoreError) in try tables.books.setProgress(of: book.id, to: 50) }
            let newLocator = try Locator("Edited loc \(canary)")
            try store.write { tables throws(StoreError) in try tables.annotations.edit(quote.id, body: "Edited \(canary)", locator: .some(newLocator)) }
            try store.write { tables throws(StoreError) in try tables.annotations.delete(quote.id) }

            // While open: the main file, the WAL and the shared-memory index.
            let files = try directory.files()
            #expect(files.contains(directory.databasePath + "-wal"), "expected a WAL while open: \(files)")
            for file in files {
                #expect(!contains(try fileBytes(file), needle), "plaintext in \(file) while open")
            }
            // And the error a failing write reports does not echo it either.
            let duplicate = storeError { () throws(StoreError) in try store.write { tables throws(StoreError) in try tables.books.add(book) } }
            #expect(duplicate != nil)
            #expect(!String(describing: duplicate).contains(canary))
        } // closed: the WAL is folded into vault.db
        defer { directory.remove() }
        let files = try directory.files()
        #expect(files.contains(directory.databasePath))
        for file in files {
            #expect(!contains(try fileBytes(file), needle), "plaintext in \(file) after close")
        }
        // The search itself works: the canary is findable when it is there.
        #expect(contains(Array("xx\(canary)yy".utf8), needle))
    }

    // MARK: - A full disk

    @Test func fullDiskIsReportedAndRolledBack() throws {
        let fixture = try makeFixture()
        defer { fixture.directory.remove() }
        let store = fixture.store
        let book = try newBook(clock: fixture.clock)
        try store.write { tables throws(StoreError) in try tables.books.add(book) }
        let pages = try store.integer("PRAGMA page_count")
        try store.database.execute("PRAGMA max_page_count = \(pages + 40)")

        var added: [Annotation] = []
        var failure: StoreError?
        let chunk = String(repeating: "lorem ipsum dolor sit amet ", count: 1200) // ~32 KiB, 8+ pages
        for index in 0..<200 {
            fixture.clock.advance(milliseconds: 1)
            let note = try newNote(book, "\(index) \(chunk)", clock: fixture.clock)
            if let error = storeError({ () throws(StoreError) in try store.write { tables throws(StoreError) in try tables.annotations.add(note) } }) {
                failure = error
                break
            }
            added.append(note)
        }
        #expect(failure == .diskFull)
        #expect(!added.isEmpty, "the limit left no room at all; the test proves nothing")
        #expect(!store.database.isInTransaction)
        let read = try store.liveAnnotations().map { try $0.get() }
        // Compared by id and digest: a failure message holding 30 KiB bodies helps no one.
        #expect(read.map(\.id) == added.map(\.id))
        #expect(read.map { SHA256.hex(of: Array($0.body.utf8)) } == added.map { SHA256.hex(of: Array($0.body.utf8)) })
        #expect(read.map(\.version) == added.map(\.version))
        #expect(try store.outboxRows().count == 1 + added.count)
        var integrity = ""
        try store.database.forEachRow("PRAGMA integrity_check") { row in integrity = row.text(0) }
        #expect(integrity == "ok")

        // With room again, writing works.
        try store.database.execute("PRAGMA max_page_count = 1073741823")
        let addedNote3 = try newNote(book, "after", clock: fixture.clock)
        try store.write { tables throws(StoreError) in try tables.annotations.add(addedNote3) }
        #expect(try store.liveAnnotations().count == added.count + 1)
        #expect(try fixture.reopen().liveAnnotations().count == added.count + 1)
    }

    // MARK: - Two connections

    @Test func twoStoresOnOneFileInterleaveWrites() throws {
        let fixture = try makeFixture()
        defer { fixture.directory.remove() }
        let first = fixture.store
        let second = try fixture.reopen()
        let book = try newBook(clock: fixture.clock)
        try first.write { tables throws(StoreError) in try tables.books.add(book) }

        var expected: [Annotation] = []
        for index in 0..<10 {
            fixture.clock.advance(milliseconds: 1)
            let writer = index.isMultiple(of: 2) ? first : second
            let note = try newNote(book, "written by \(index.isMultiple(of: 2) ? "first" : "second") #\(index)", clock: fixture.clock)
            try writer.write { tables throws(StoreError) in try tables.annotations.add(note) }
            expected.append(note)
            // Each sees the other's writes at once.
            #expect(try first.liveAnnotations().map { try $0.get() } == expected)
            #expect(try second.liveAnnotations().map { try $0.get() } == expected)
        }
        fixture.clock.advance(seconds: 1)
        let edited = try second.write { tables throws(StoreError) in try tables.annotations.edit(expected[0].id, body: "edited by second", locator: nil) }
        #expect(try first.read { tables throws(StoreError) in try tables.annotations.annotation(expected[0].id) } == edited)
        // An edit from the first connection builds on the second's version, not a stale one.
        let again = try first.write { tables throws(StoreError) in try tables.annotations.edit(expected[0].id, body: "edited by first", locator: nil) }
        #expect(again.version == 3)
        #expect(try second.read { tables throws(StoreError) in try tables.annotations.annotation(expected[0].id) }.version == 3)
        try second.write { tables throws(StoreError) in try tables.books.setProgress(of: book.id, to: 12) }
        #expect(try first.read { tables throws(StoreError) in try tables.books.book(book.id) }.progress == 12)

        #expect(try first.read { tables throws(StoreError) in try tables.records.counts() } == JournalCounts(books: 1, sessions: 0, notes: 10, quotes: 0))
        #expect(try second.read { tables throws(StoreError) in try tables.records.counts() } == JournalCounts(books: 1, sessions: 0, notes: 10, quotes: 0))
        let outbox = try first.outboxRows()
        #expect(outbox.count == 1 + 10 + 2 + 1)
        #expect(outbox == (try second.outboxRows()))
        #expect(outbox.filter { $0.entityID == expected[0].id.rawValue }.map(\.baseVersion) == [0, 1, 2])
    }
}
