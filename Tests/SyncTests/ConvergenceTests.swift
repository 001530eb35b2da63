import Applier
import Foundation
import Testing
import Journal
@testable import Sync
@testable import VaultStore
import VaultCrypto

/// Two or three devices sharing one folder remote: every scenario ends with the same
/// journal on every device, read back through the Store.
@Suite struct ConvergenceTests {
    /// Two devices that already share a book and a note.
    static func pair(note body: String = "first text") throws -> (Cluster, Device, Device, Book, Annotation) {
        let cluster = try Cluster()
        let a = try cluster.addDevice("a", deviceID: deviceID("a"))
        let b = try cluster.addDevice("b", deviceID: deviceID("b"))
        let book = try a.addBook("Shared Book")
        let note = try a.addNote(body, to: book)
        try a.sync()
        try b.sync()
        try expectConverged([a, b], "after the first sync")
        return (cluster, a, b, book, note)
    }

    @Test func createsOnBothDevicesBothSurvive() throws {
        let (_, a, b, book, _) = try Self.pair()
        let fromA = try a.addNote("written on A", to: book)
        let fromB = try b.addNote("written on B", to: book)
        let quoteB = try b.addQuote("a quote from B", at: "p. 4", toBook: book.id)
        let bookB = try b.addBook("Only on B")
        try a.sync(); try b.sync(); try a.sync()
        try expectConverged([a, b])
        let ids = Set(try a.liveAnnotations().map(\.id))
        #expect(ids.isSuperset(of: [fromA.id, fromB.id, quoteB.id]))
        #expect(try a.store.read { tables throws(StoreError) in try tables.books.book(bookB.id) }.title == "Only on B")
        #expect(try a.waitingOperations().isEmpty && b.waitingOperations().isEmpty)
        #expect(try a.conflictIDs().isEmpty && b.conflictIDs().isEmpty)
    }

    /// Row (b) of the reference table: both changed since the last sync. Exactly one conflict copy, with
    /// the same id on both devices; the later edit (by clock) in the note; both texts kept;
    /// listed by conflicts() on both.
    @Test(arguments: [false, true])
    func editEditMakesExactlyOneConflictCopy(bSyncsFirst: Bool) throws {
        let (_, a, b, _, note) = try Self.pair()
        a.clock.advance(seconds: 5)
        try a.edit(note.id, "A's edit")
        b.clock.advance(seconds: 10)            // B's edit is later by clock
        try b.edit(note.id, "B's edit")
        if bSyncsFirst { try b.sync(); try a.sync(); try b.sync() } else { try a.sync(); try b.sync(); try a.sync() }
        try expectConverged([a, b])

        for device in [a, b] {
            #expect(try device.note(note.id).body == "B's edit", "\(device.name): the later edit stays in the note")
            let copies = try device.liveAnnotations().filter { $0.conflictOf == note.id }
            #expect(copies.count == 1, "\(device.name): exactly one conflict copy")
            #expect(copies.first?.body == "A's edit")
            #expect(copies.first?.conflictReason == .bothEdited)
            #expect(try device.conflictIDs() == copies.map(\.id), "\(device.name): conflicts() lists the copy")
        }
        #expect(try a.conflictIDs() == b.conflictIDs())
        #expect(try a.waitingOperations().isEmpty && b.waitingOperations().isEmpty)
        // Syncing again changes nothing.
        let before = try a.state()
        try a.sync(); try b.sync()
        #expect(try a.state() == before)
        try expectConverged([a, b])
    }

    /// A kept version that no longer opens (a damaged `annotation_version` row) makes the
    /// note unreadable to the merge, like a damaged row: the next version from elsewhere
    /// replaces it, instead of failing every sync at that operation.
    @Test func aDamagedKeptVersionIsReplacedByTheNextVersionFromElsewhere() throws {
        let (_, a, b, _, note) = try Self.pair()
        try a.edit(note.id, "A's edit")
        b.clock.advance(seconds: 10)
        try b.edit(note.id, "B's edit")
        try a.sync(); try b.sync(); try a.sync()
        var kept = 0
        try a.store.database.forEachRow("SELECT count(*) FROM annotation_version WHERE annotation_id = ?", [.text(note.id.rawValue)]) {
            kept = Int($0.int64(0))
        }
        #expect(kept == 2)
        try a.store.database.run("UPDATE annotation_version SET body = X'00' WHERE annotation_id = ?", [.text(note.id.rawValue)])
        b.clock.advance(seconds: 10)
        try b.edit(note.id, "B, after seeing both")
        try b.sync()
        let summary = try a.sync()
        #expect(summary.failures == 0 && summary.rejected == 0 && summary.deferred == 0)
        #expect(try a.note(note.id).body == "B, after seeing both")
        try syncUntilQuiet([a, b])
        try expectConverged([a, b])
    }

    /// The decision SYNC.md states plainly: on the device whose edit was OLDER, its own
    /// text leaves the note and becomes the conflict copy (for convergence), instead of the
    /// reference policy's "local stays on screen". Nothing is lost either way.
    @Test func onTheDeviceWithTheOlderEditItsOwnTextMovesToTheCopy() throws {
        let (_, a, b, _, note) = try Self.pair()
        b.clock.advance(seconds: 10)
        try b.edit(note.id, "B, later by clock")
        try b.sync()
        a.clock.advance(seconds: 5)            // A has not synced: its edit's clock is earlier
        try a.edit(note.id, "A, typed here, earlier by clock")
        #expect(try #require(try a.store.recordClock(table: "annotation", id: note.id))
                < (try #require(try b.store.recordClock(table: "annotation", id: note.id))))
        try a.sync()
        // On A, the note now shows B's text; A's own words are in the conflict copy.
        #expect(try a.note(note.id).body == "B, later by clock")
        let copy = try #require(try a.liveAnnotations().first { $0.conflictOf == note.id })
        #expect(copy.body == "A, typed here, earlier by clock")
        #expect(try a.conflictIDs() == [copy.id])
        try b.sync()
        try expectConverged([a, b])
    }

    @Test func bothChangedToTheSameTextIsNoConflict() throws {
        let (_, a, b, _, note) = try Self.pair()
        try a.edit(note.id, "the same words")
        b.clock.advance(seconds: 1)
        try b.edit(note.id, "the same words")
        try a.sync(); try b.sync(); try a.sync()
        try expectConverged([a, b])
        #expect(try a.conflictIDs().isEmpty)
        #expect(try a.liveAnnotations().count == 1)
    }

    /// Delete here, edit there (both orders of syncing, both orders of clocks): the edit
    /// survives, flagged editedAfterDelete on both devices.
    @Test(arguments: [(deleteOnA: true, deleteIsLater: false), (true, true), (false, false), (false, true)])
    func deleteAgainstEditKeepsTheEdit(deleteOnA: Bool, deleteIsLater: Bool) throws {
        let (_, a, b, _, note) = try Self.pair()
        let (deleter, editor) = deleteOnA ? (a, b) : (b, a)
        if deleteIsLater {
            editor.clock.advance(seconds: 1); try editor.edit(note.id, "edited while deleted elsewhere")
            deleter.clock.advance(seconds: 5); try deleter.delete(note.id)
        } else {
            deleter.clock.advance(seconds: 1); try deleter.delete(note.id)
            editor.clock.advance(seconds: 5); try editor.edit(note.id, "edited while deleted elsewhere")
        }
        try deleter.sync(); try editor.sync(); try deleter.sync()
        try expectConverged([a, b])
        for device in [a, b] {
            let survivor = try device.note(note.id)
            #expect(survivor.deletedAt == nil, "\(device.name): the edit survives")
            #expect(survivor.body == "edited while deleted elsewhere")
            #expect(survivor.conflictReason == .editedAfterDelete, "\(device.name): flagged")
            #expect(try device.conflictIDs() == [note.id])
        }
    }

    /// Deleted on both devices: no conflict, and the tombstones converge too.
    @Test func deletedOnBothConverges() throws {
        let (_, a, b, _, note) = try Self.pair()
        a.clock.advance(seconds: 1); try a.delete(note.id)
        b.clock.advance(seconds: 2); try b.delete(note.id)
        try a.sync(); try b.sync(); try a.sync()
        #expect(try a.note(note.id).deletedAt != nil && b.note(note.id).deletedAt != nil)
        #expect(try a.conflictIDs().isEmpty && b.conflictIDs().isEmpty)
        try expectConverged([a, b])
    }

    // MARK: - Progress

    static func progressPair() throws -> (Cluster, Device, Device, Book) {
        let cluster = try Cluster()
        let a = try cluster.addDevice("a", deviceID: deviceID("a"))
        let b = try cluster.addDevice("b", deviceID: deviceID("b"))
        let book = try a.addBook("Progress Book")
        try a.sync(); try b.sync()
        return (cluster, a, b, book)
    }

    @Test func progressMovedOnBothFurthestWins() throws {
        let (_, a, b, book) = try Self.progressPair()
        a.clock.advance(seconds: 1); try a.store.write { tables throws(StoreError) in try tables.books.setProgress(of: book.id, to: 60) }
        b.clock.advance(seconds: 2); try b.store.write { tables throws(StoreError) in try tables.books.setProgress(of: book.id, to: 35) }   // later, but behind
        try a.sync(); try b.sync(); try a.sync()
        try expectConverged([a, b])
        #expect(try a.store.read { tables throws(StoreError) in try tables.books.book(book.id) }.progress == 60)
        #expect(try b.store.read { tables throws(StoreError) in try tables.books.book(book.id) }.progress == 60)
    }

    @Test func aNewerRewindWinsThenALaterPositionWinsAgain() throws {
        let (_, a, b, book) = try Self.progressPair()
        a.clock.advance(seconds: 1); try a.store.write { tables throws(StoreError) in try tables.books.setProgress(of: book.id, to: 80) }
        b.clock.advance(seconds: 2); try b.store.write { tables throws(StoreError) in try tables.books.setProgress(of: book.id, to: 20, rewind: true) }
        try a.sync(); try b.sync(); try a.sync()
        try expectConverged([a, b])
        #expect(try a.store.read { tables throws(StoreError) in try tables.books.book(book.id) }.progress == 20, "the newer rewind wins over the older, further position")

        // An older rewind does not beat a newer position.
        a.clock.advance(seconds: 10); try a.store.write { tables throws(StoreError) in try tables.books.setProgress(of: book.id, to: 30) }
        try a.sync(); try b.sync()
        try expectConverged([a, b])
        #expect(try b.store.read { tables throws(StoreError) in try tables.books.book(book.id) }.progress == 30, "a position after the rewind wins again")

        // Concurrent: a rewind older than a concurrent further position loses.
        b.clock.advance(seconds: 20); try b.store.write { tables throws(StoreError) in try tables.books.setProgress(of: book.id, to: 10, rewind: true) }
        a.clock.advance(seconds: 30); try a.store.write { tables throws(StoreError) in try tables.books.setProgress(of: book.id, to: 50) }
        try b.sync(); try a.sync(); try b.sync()
        try expectConverged([a, b])
        #expect(try a.store.read { tables throws(StoreError) in try tables.books.book(book.id) }.progress == 50)
    }

    /// A reader moves back on one device after having synced the further position. A plain
    /// position cannot move back (the other device could never tell it from a stale one, and
    /// the devices would disagree); with --rewind it is taken everywhere.
    @Test func aMoveBackwardsAfterSyncingNeedsRewindAndThenConverges() throws {
        let (_, a, b, book) = try Self.progressPair()
        a.clock.advance(seconds: 1); try a.store.write { tables throws(StoreError) in try tables.books.setProgress(of: book.id, to: 50) }
        try a.sync(); try b.sync()
        #expect(try b.store.read { tables throws(StoreError) in try tables.books.book(book.id) }.progress == 50)
        b.clock.advance(seconds: 5)
        #expect(throws: StoreError.progressBehind(current: 50)) { try b.store.write { tables throws(StoreError) in try tables.books.setProgress(of: book.id, to: 45) } }
        #expect(try b.waitingOperations().isEmpty, "the refused position wrote nothing")
        try b.store.write { tables throws(StoreError) in try tables.books.setProgress(of: book.id, to: 45, rewind: true) }
        try b.sync(); try a.sync(); try b.sync()
        #expect(try a.store.read { tables throws(StoreError) in try tables.books.book(book.id) }.progress == 45)
        try expectConverged([a, b])
    }

    /// After a rewind has synced, a position below the rewound one is a rewind again.
    @Test func aPositionBelowASyncedRewindIsARewindToo() throws {
        let (_, a, b, book) = try Self.progressPair()
        a.clock.advance(seconds: 1); try a.store.write { tables throws(StoreError) in try tables.books.setProgress(of: book.id, to: 80) }
        a.clock.advance(seconds: 1); try a.store.write { tables throws(StoreError) in try tables.books.setProgress(of: book.id, to: 30, rewind: true) }
        try a.sync(); try b.sync()
        b.clock.advance(seconds: 5)
        #expect(throws: StoreError.progressBehind(current: 30)) { try b.store.write { tables throws(StoreError) in try tables.books.setProgress(of: book.id, to: 25) } }
        try b.store.write { tables throws(StoreError) in try tables.books.setProgress(of: book.id, to: 25, rewind: true) }
        try b.sync(); try a.sync(); try b.sync()
        #expect(try a.store.read { tables throws(StoreError) in try tables.books.book(book.id) }.progress == 25)
        try expectConverged([a, b])
    }

    // MARK: - Sessions and books

    @Test func sessionsOnBothAreAUnion() throws {
        let (_, a, b, book) = try Self.progressPair()
        let sa1 = try a.addSession(to: book.id, pages: 10)
        let sa2 = try a.addSession(to: book.id, pages: 11)
        let sb1 = try b.addSession(to: book.id, pages: 20)
        try a.sync(); try b.sync(); try a.sync()
        try expectConverged([a, b])
        #expect(Set(try a.store.read { tables throws(StoreError) in try tables.sessions.live(of: book.id) }.map(\.id)) == [sa1.id, sa2.id, sb1.id])
        #expect(try b.store.read { tables throws(StoreError) in try tables.sessions.live(of: book.id) }.count == 3)
    }

    /// A session an import recorded (`source: koreader`) reaches the other device with its
    /// source, an edit there keeps it, and a deletion on the first reaches both; a typed one
    /// stays without.
    @Test func anImportedSessionSyncsWithItsSourceThroughAnEditAndADeletion() throws {
        let (_, a, b, book) = try Self.progressPair()
        let now = a.clock.now()
        let imported = ReadingSession(id: .generate(at: now), bookID: book.id,
                                      startedAt: Timestamp(millisecondsSince1970: now.millisecondsSince1970 - 600_000), endedAt: now,
                                      pagesRead: 14, source: "koreader")
        try a.store.write { tables throws(StoreError) in _ = try tables.sessions.add(imported) }
        let typed = try a.addSession(to: book.id, pages: 5)
        try a.sync(); try b.sync()
        func session(_ device: Device, _ id: EntityID) throws -> ReadingSession? {
            try device.store.read { tables throws(StoreError) in try tables.sessions.version(id) }?.session
        }
        #expect(try session(b, imported.id)?.source == "koreader" && session(b, imported.id)?.pagesRead == 14)
        #expect(try session(b, typed.id)?.source == nil)

        b.clock.advance(seconds: 5)
        try b.store.write { tables throws(StoreError) in
            _ = try tables.sessions.edit(imported.id) { (session) throws(JournalError) in
                try session.edited(startedAt: nil, endedAt: nil, pagesRead: 16, at: b.clock.now())
            }
        }
        try b.sync(); try a.sync()
        #expect(try session(a, imported.id)?.pagesRead == 16 && session(a, imported.id)?.source == "koreader")
        try expectConverged([a, b])

        a.clock.advance(seconds: 10)
        _ = try a.store.write { tables throws(StoreError) in try tables.trash.delete([RecordReference(id: imported.id, kind: .session)]) }
        try a.sync(); try b.sync()
        #expect(try session(b, imported.id)?.deletedAt != nil && session(b, imported.id)?.source == "koreader")
        try expectConverged([a, b])
    }

    @Test(arguments: [false, true])
    func bookTitleChangedOnBothLastWriterWins(aIsLater: Bool) throws {
        let (_, a, b, book) = try Self.progressPair()
        if aIsLater {
            b.clock.advance(seconds: 1); try b.store.retitleBookForTest(book.id, to: "Title from B")
            a.clock.advance(seconds: 5); try a.store.retitleBookForTest(book.id, to: "Title from A")
        } else {
            a.clock.advance(seconds: 1); try a.store.retitleBookForTest(book.id, to: "Title from A")
            b.clock.advance(seconds: 5); try b.store.retitleBookForTest(book.id, to: "Title from B")
        }
        try a.sync(); try b.sync(); try a.sync()
        try expectConverged([a, b])
        #expect(try a.store.read { tables throws(StoreError) in try tables.books.book(book.id) }.title == (aIsLater ? "Title from A" : "Title from B"))
    }

    /// Once SYNC.md's defect 7: title and progress were merged by one clock for the whole
    /// book, so a later progress change on B that never touched the title undid A's retitle.
    /// Metadata and progress now have a clock each.
    @Test func aRetitleSurvivesALaterProgressChangeElsewhere() throws {
        let (_, a, b, book) = try Self.progressPair()
        a.clock.advance(seconds: 1); try a.store.retitleBookForTest(book.id, to: "The Corrected Title")
        b.clock.advance(seconds: 5); try b.store.write { tables throws(StoreError) in try tables.books.setProgress(of: book.id, to: 40) }
        try a.sync(); try b.sync(); try a.sync()
        try expectConverged([a, b])
        #expect(try a.store.read { tables throws(StoreError) in try tables.books.book(book.id) }.progress == 40)
        #expect(try a.store.read { tables throws(StoreError) in try tables.books.book(book.id) }.title == "The Corrected Title")
    }

    /// A deletes a book (after deleting its only note); B adds a note to it meanwhile.
    @Test func aBookDeletedHereWhileANoteIsAddedThereConverges() throws {
        let cluster = try Cluster()
        let a = try cluster.addDevice("a", deviceID: deviceID("a"))
        let b = try cluster.addDevice("b", deviceID: deviceID("b"))
        let book = try a.addBook("Book")
        try a.sync(); try b.sync()
        a.clock.advance(seconds: 1); try a.store.write { tables throws(StoreError) in try tables.books.delete(book.id) }
        b.clock.advance(seconds: 2); let late = try b.addNote("a note added while the book was deleted elsewhere", to: book)
        try a.sync(); try b.sync(); try a.sync()
        // No text lost: the note is live on both.
        #expect(try a.note(late.id).deletedAt == nil && b.note(late.id).deletedAt == nil)
        try expectConverged([a, b])
        #expect(try a.store.read { tables throws(StoreError) in try tables.books.book(book.id) }.deletedAt == nil)
    }

    // MARK: - Three devices

    @Test(arguments: 0..<6)
    func threeDevicesInAnyOrderConverge(order: Int) throws {
        let cluster = try Cluster()
        let a = try cluster.addDevice("a", deviceID: deviceID("a"))
        let b = try cluster.addDevice("b", deviceID: deviceID("b"))
        let c = try cluster.addDevice("c", deviceID: deviceID("c"))
        let book = try a.addBook("Three")
        let note = try a.addNote("base", to: book)
        let other = try a.addNote("other", to: book)
        try syncUntilQuiet([a, b, c])
        try expectConverged([a, b, c], "setup")

        a.clock.advance(seconds: 1); try a.edit(note.id, "from A")
        b.clock.advance(seconds: 2); try b.edit(note.id, "from B")
        c.clock.advance(seconds: 3); try c.edit(note.id, "from C")
        c.clock.advance(seconds: 1); try c.delete(other.id)
        a.clock.advance(seconds: 4); try a.edit(other.id, "other, edited on A")
        b.clock.advance(seconds: 4); try b.store.write { tables throws(StoreError) in try tables.books.setProgress(of: book.id, to: 70) }
        c.clock.advance(seconds: 4); try c.store.write { tables throws(StoreError) in try tables.books.setProgress(of: book.id, to: 40) }
        try a.addSession(to: book.id, pages: 3); try c.addSession(to: book.id, pages: 4)

        let permutations = [[a, b, c], [a, c, b], [b, a, c], [b, c, a], [c, a, b], [c, b, a]]
        for device in permutations[order] { try device.sync() }
        try syncUntilQuiet(permutations[order])
        try expectConverged([a, b, c], "order \(permutations[order].map(\.name))")
        for device in [a, b, c] {
            #expect(try device.note(note.id).body == "from C")
            let copies = try device.liveAnnotations().filter { $0.conflictOf == note.id }.map(\.body).sorted()
            #expect(copies == ["from A", "from B"], "\(device.name)")
            #expect(try device.note(other.id).body == "other, edited on A")
            #expect(try device.note(other.id).conflictReason == .editedAfterDelete)
            #expect(try device.store.read { tables throws(StoreError) in try tables.books.book(book.id) }.progress == 70)
            #expect(try device.store.read { tables throws(StoreError) in try tables.sessions.live(of: book.id) }.count == 2)
        }
    }

    /// A device edits the same note twice between syncs while another device edits it
    /// once, with the other edit's clock between the two.
    @Test func twoEditsHereAgainstOneThereWithTheClockBetweenConverge() throws {
        let (_, a, b, _, note) = try Self.pair()
        a.clock.advance(seconds: 1); try a.edit(note.id, "A first")
        b.clock.advance(seconds: 2); try b.edit(note.id, "B only")
        a.clock.advance(seconds: 3); try a.edit(note.id, "A second")
        try a.sync(); try b.sync(); try a.sync()
        // Nothing typed and kept is lost: B's text and A's last text are on both.
        for device in [a, b] {
            let bodies = Set(try device.liveAnnotations().map(\.body))
            #expect(bodies.isSuperset(of: ["A second", "B only"]), "\(device.name): \(bodies)")
        }
        try expectConverged([a, b])
    }

    /// Found by the random schedules (seed 1010 with 2 devices), once data loss: A's offline
    /// edit loses a conflict to B's later edit and becomes a copy on A; A edits the note
    /// again. Meanwhile B deleted the note. B takes A's first edit as an edit after its
    /// delete; the survivor used to get A's (older) clock, so A's second edit looked "not
    /// concurrent" and overwrote it, and A's first words were gone on B.
    @Test func anEditThatLostAConflictIsNotOverwrittenOnTheDeviceThatDeleted() throws {
        let (_, a, b, _, note) = try Self.pair(note: "v1")
        a.clock.advance(seconds: 1); try a.edit(note.id, "A's first words")          // a1, not synced yet
        b.clock.advance(seconds: 2); try b.edit(note.id, "B's words")                // b1 > a1
        try b.sync()
        try a.sync()                                                                  // conflict: B's words win, A's first words → copy
        #expect(try a.note(note.id).body == "B's words")
        #expect(try a.liveAnnotations().contains { $0.body == "A's first words" })
        b.clock.advance(seconds: 3); try b.delete(note.id)                           // b2, not synced yet
        a.clock.advance(seconds: 4); try a.edit(note.id, "A's second words")         // a3, based on b1
        try a.sync()
        try b.sync()
        try a.sync()
        for device in [a, b] {
            let bodies = try device.liveAnnotations().map(\.body)
            #expect(bodies.contains("A's first words") && bodies.contains("A's second words"), "\(device.name): \(bodies)")
        }
        // Survivors and copies travel, so once the devices have exchanged them they agree.
        try syncUntilQuiet([a, b])
        try expectConverged([a, b])
        // Once SYNC.md's defect 3: the survivor of B's deletion was a new version, so A's
        // earlier first words sat in the note and its later second words in a copy. A version
        // keeps the clock it was typed at: the later typing is shown on both.
        let bodies = try [a, b].map { try $0.note(note.id).body }
        #expect(bodies == ["A's second words", "A's second words"])
    }

    /// Delete on A, two edits on B: the survivor's editedAfterDelete flag must be the same on both.
    @Test func deleteHereTwoEditsThereKeepTheFlagOnBoth() throws {
        let (_, a, b, _, note) = try Self.pair()
        a.clock.advance(seconds: 1); try a.delete(note.id)
        b.clock.advance(seconds: 2); try b.edit(note.id, "B one")
        b.clock.advance(seconds: 2); try b.edit(note.id, "B two")
        try a.sync(); try b.sync(); try a.sync()
        for device in [a, b] {
            #expect(try device.note(note.id).body == "B two")
            #expect(try device.note(note.id).deletedAt == nil)
        }
        // The survivors travel: once exchanged, both devices keep the flag.
        try syncUntilQuiet([a, b])
        try expectConverged([a, b])
        #expect(try a.note(note.id).conflictReason == .editedAfterDelete)
    }

    // MARK: - Resolving

    @Test(arguments: [ConflictChoice.note, .other, .both])
    func resolvingAConflictThenSyncingGivesTheSameResultEverywhere(choice: ConflictChoice) throws {
        let (_, a, b, _, note) = try Self.pair()
        a.clock.advance(seconds: 1); try a.edit(note.id, "older edit")
        b.clock.advance(seconds: 2); try b.edit(note.id, "newer edit")
        try a.sync(); try b.sync(); try a.sync()
        let copyID = try #require(try a.conflictIDs().first)
        #expect(try b.conflictIDs() == [copyID])

        try b.store.write { tables throws(StoreError) in try tables.annotations.resolveConflict(copyID, keepingSide: choice) }
        #expect(try b.conflictIDs().isEmpty)
        try b.sync(); try a.sync()
        try expectConverged([a, b], "after resolving with \(choice)")
        #expect(try a.conflictIDs().isEmpty)
        let bodies = try a.liveAnnotations().map(\.body).sorted()
        switch choice {
        case .note: #expect(bodies == ["newer edit"])
        case .other: #expect(bodies == ["older edit"])
        case .both: #expect(bodies == ["newer edit", "older edit"])
        }
        #expect(try a.waitingOperations().isEmpty && b.waitingOperations().isEmpty)
    }

    @Test(arguments: [ConflictChoice.note, .other, .both])
    func resolvingADeleteEditConflictConverges(choice: ConflictChoice) throws {
        let (_, a, b, _, note) = try Self.pair()
        a.clock.advance(seconds: 1); try a.delete(note.id)
        b.clock.advance(seconds: 2); try b.edit(note.id, "edited")
        try a.sync(); try b.sync(); try a.sync()
        #expect(try a.conflictIDs() == [note.id])
        try a.store.write { tables throws(StoreError) in try tables.annotations.resolveConflict(note.id, keepingSide: choice) }
        try a.sync(); try b.sync()
        try expectConverged([a, b], "after resolving with \(choice)")
        #expect(try b.conflictIDs().isEmpty)
        #expect((try b.note(note.id).deletedAt != nil) == (choice == .other))
    }

    /// Found by the random schedules (seed 1207, 2 devices): a conflict copy whose note was
    /// deleted afterwards cannot be resolved with --keep remote ("put the copy's text in the
    /// note"): the Store throws recordNotFound for the NOTE's id, which is not the id the
    /// reader typed. --keep local and --keep both still work.
    @Test func keepRemoteWhenTheNoteWasDeletedSinceIsResolvable() throws {
        let (_, a, b, _, note) = try Self.pair()
        a.clock.advance(seconds: 1); try a.edit(note.id, "older edit")
        b.clock.advance(seconds: 2); try b.edit(note.id, "newer edit")
        try a.sync(); try b.sync(); try a.sync()
        let copyID = try #require(try a.conflictIDs().first)
        a.clock.advance(seconds: 1); try a.delete(note.id)
        // The reader chose the copy's text for the note: the note comes back with it.
        try a.store.write { tables throws(StoreError) in try tables.annotations.resolveConflict(copyID, keepingSide: .other) }
        #expect(try a.liveAnnotations().map(\.body) == ["older edit"])
        #expect(try a.conflictIDs().isEmpty)
        try a.sync(); try b.sync()
        try expectConverged([a, b])
    }

    /// Resolved differently on the two devices at once: still one answer everywhere, no text lost.
    @Test func resolvedDifferentlyOnBothDevicesConverges() throws {
        let (_, a, b, _, note) = try Self.pair()
        a.clock.advance(seconds: 1); try a.edit(note.id, "older edit")
        b.clock.advance(seconds: 2); try b.edit(note.id, "newer edit")
        try a.sync(); try b.sync(); try a.sync()
        let copyID = try #require(try a.conflictIDs().first)
        a.clock.advance(seconds: 1); try a.store.write { tables throws(StoreError) in try tables.annotations.resolveConflict(copyID, keepingSide: .both) }
        b.clock.advance(seconds: 2); try b.store.write { tables throws(StoreError) in try tables.annotations.resolveConflict(copyID, keepingSide: .note) }
        try syncUntilQuiet([a, b])
        try expectConverged([a, b])
        // B deleted the copy after A kept it: A's "both" is an edit that the deletion meets.
        let bodies = Set(try a.liveAnnotations().map(\.body))
        #expect(bodies.contains("newer edit"))
    }

    /// The reference table's four rows, through real syncs between two devices.
    @Test func theSeedsFourRowsThroughSync() throws {
        // (a) local dirty, remote older (nothing new about the note on the remote): local wins.
        do {
            let (_, a, b, _, note) = try Self.pair(note: "synced")
            try b.edit(note.id, "typed offline")
            try b.sync()                       // the remote holds only the version B started from
            #expect(try b.note(note.id).body == "typed offline")
            try a.sync()
            try expectConverged([a, b])
            #expect(try a.note(note.id).body == "typed offline")
        }
        // (b) local dirty, remote newer: needs the user, nothing lost.
        do {
            let (_, a, b, _, note) = try Self.pair(note: "synced")
            a.clock.advance(seconds: 1); try a.edit(note.id, "from server")
            try a.sync()
            b.clock.advance(seconds: 2); try b.edit(note.id, "typed offline")
            try b.sync(); try a.sync()
            try expectConverged([a, b])
            #expect(Set(try b.liveAnnotations().map(\.body)) == ["typed offline", "from server"])
            #expect(try b.conflictIDs().count == 1)
        }
        // (c) local clean, remote newer: remote wins.
        do {
            let (_, a, b, _, note) = try Self.pair(note: "synced")
            try a.edit(note.id, "from server")
            try a.sync(); try b.sync()
            #expect(try b.note(note.id).body == "from server")
            #expect(try b.conflictIDs().isEmpty)
        }
        // (d) local clean and current: local, untouched.
        do {
            let (_, a, b, _, note) = try Self.pair(note: "synced")
            let before = try b.state()
            try a.sync(); try b.sync()
            #expect(try b.state() == before)
            #expect(try b.note(note.id).body == "synced")
        }
    }
}

/// The reader's comment on a quote (bmvault 0.16) is part of its text: it syncs, and two
/// devices that change it differently keep both versions, as for the quote's words.
@Suite struct QuoteCommentConvergenceTests {
    @Test func aCommentSyncsAndTwoDifferentOnesBothStand() throws {
        let cluster = try Cluster(label: "comment")
        let a = try cluster.addDevice("a"), b = try cluster.addDevice("b")
        let book = try a.addBook("Dune")
        let quote = try a.addQuote("Fear is the mind-killer.", at: "p. 8", toBook: book.id)
        try a.store.write { tables throws(StoreError) in try tables.annotations.edit(quote.id, body: nil, locator: nil, comment: .some("the litany")) }
        try a.sync(); try b.sync()
        #expect(try b.note(quote.id).comment == "the litany")
        try expectConverged([a, b])

        a.clock.advance(seconds: 1)
        try a.store.write { tables throws(StoreError) in try tables.annotations.edit(quote.id, body: nil, locator: nil, comment: .some("said by Paul")) }
        b.clock.advance(seconds: 2)
        try b.store.write { tables throws(StoreError) in try tables.annotations.edit(quote.id, body: nil, locator: nil, comment: .some("said by Jessica")) }
        try a.sync(); try b.sync(); try a.sync()
        try expectConverged([a, b])
        let copies = try a.conflictIDs()
        #expect(copies.count == 1)
        let shown = try a.note(quote.id), copy = try a.note(try #require(copies.first))
        #expect(Set([shown.comment, copy.comment]) == ["said by Paul", "said by Jessica"])
        #expect(shown.body == copy.body && copy.conflictOf == quote.id)

        // Keeping the copy's side puts its comment, not only its words, in the quote.
        let copyID = try #require(copies.first)
        let kept = try a.note(copyID).comment
        try a.store.write { tables throws(StoreError) in try tables.annotations.resolveConflict(copyID, keepingSide: .other) }
        #expect(try a.note(quote.id).comment == kept && a.conflictIDs().isEmpty)
        try a.sync(); try b.sync(); try a.sync()
        try expectConverged([a, b])

        // Removing a comment is a change like any other.
        try a.store.write { tables throws(StoreError) in try tables.annotations.edit(quote.id, body: nil, locator: nil, comment: .some(nil)) }
        try a.sync(); try b.sync()
        #expect(try b.note(quote.id).comment == nil)
    }
}

/// What an import from another program brings carries its import key to every device: the
/// same file imported on another device after a sync adds nothing there.
@Suite struct ImportKeyConvergenceTests {
    static func importClipping(_ device: Device, body: String, key: String) throws -> ImportSummary {
        try device.store.importArchive(dryRun: false) { importer in
            let (book, _) = try importer.book(for: ImportedBook(title: "Dune", authors: ["Herbert, Frank"]))
            let now = device.clock.now()
            _ = try importer.addImported(Annotation(id: .generate(at: now), bookID: book, kind: .quote, body: body,
                                                    locator: try Locator("loc 12"), createdAt: now, updatedAt: now, deletedAt: nil,
                                                    version: 1, comment: "mine", importKey: key))
        }
    }

    @Test func aSyncedImportKeyKeepsAnotherDeviceFromImportingItAgain() throws {
        let cluster = try Cluster(label: "importkey")
        let a = try cluster.addDevice("a"), b = try cluster.addDevice("b")
        let key = "kindle:" + String(repeating: "ab", count: 32)
        #expect(try Self.importClipping(a, body: "Fear is the mind-killer.", key: key).added == JournalCounts(books: 1, quotes: 1))
        try a.sync(); try b.sync()
        try expectConverged([a, b])
        #expect(try b.liveAnnotations().first?.importKey == key)
        // On B: the book is found by title and authors, the quote by its key.
        let again = try Self.importClipping(b, body: "Fear is the mind-killer.", key: key)
        #expect(again.added == JournalCounts() && again.unchanged == 1)
        // Deleted on B, synced: A does not bring it back either.
        let quote = try #require(try b.liveAnnotations().first)
        _ = try b.delete(quote.id)
        try b.sync(); try a.sync()
        #expect(try Self.importClipping(a, body: "Fear is the mind-killer.", key: key).added == JournalCounts())
        #expect(try a.liveAnnotations().isEmpty)
    }
}

/// `book merge` on one device: every device ends with one book and everything both had; a
/// note another device wrote meanwhile in the merged book is never lost (it brings that book
/// back, as any note for a book deleted elsewhere does).
@Suite struct BookMergeConvergenceTests {
    /// A merge records the duplicate's sessions again on the kept book: one an import
    /// recorded stays `koreader` there, on every device; a typed one stays typed.
    @Test func aMergedBooksImportedSessionsKeepTheirSource() throws {
        let cluster = try Cluster(label: "merge-source")
        let a = try cluster.addDevice("a"), b = try cluster.addDevice("b")
        let kept = try a.addBook("Solaris"), duplicate = try a.addBook("Solaris (KOReader)")
        let now = a.clock.now()
        try a.store.write { tables throws(StoreError) in
            _ = try tables.sessions.add(ReadingSession(id: .generate(at: now), bookID: duplicate.id,
                                                       startedAt: Timestamp(millisecondsSince1970: now.millisecondsSince1970 - 600_000),
                                                       endedAt: now, pagesRead: 9, source: "koreader"))
        }
        _ = try a.addSession(to: duplicate.id, pages: 4)
        try a.sync(); try b.sync()
        _ = try a.store.write { tables throws(StoreError) in try tables.books.merge(duplicate.id, into: kept.id) }
        try a.sync(); try b.sync(); try a.sync()
        for device in [a, b] {
            let sessions = try device.store.read { tables throws(StoreError) in try tables.sessions.live(of: kept.id) }
            #expect(sessions.map(\.pagesRead).sorted() == [4, 9], "\(device.name)")
            #expect(sessions.first { $0.pagesRead == 9 }?.source == "koreader" && sessions.first { $0.pagesRead == 4 }?.source == nil,
                    "\(device.name)")
        }
        try expectConverged([a, b])
    }

    @Test func aMergeSyncsAndANoteWrittenMeanwhileIsKept() throws {
        let cluster = try Cluster(label: "merge")
        let a = try cluster.addDevice("a"), b = try cluster.addDevice("b")
        let kept = try a.addBook("Elantris"), duplicate = try a.addBook("Elantris (10th anniversary)")
        let quote = try a.addQuote("A quote.", at: "p. 3", toBook: duplicate.id)
        _ = try a.addSession(to: duplicate.id, pages: 12)
        try a.sync(); try b.sync()
        let summary = try a.store.write { tables throws(StoreError) in try tables.books.merge(duplicate.id, into: kept.id) }
        #expect(summary.annotations == 1 && summary.sessions == 1)
        try a.sync(); try b.sync(); try a.sync()
        try expectConverged([a, b])
        #expect(try b.note(quote.id).bookID == kept.id)
        #expect(try b.store.read { tables throws(StoreError) in try tables.sessions.live(of: kept.id) }.count == 1 && b.store.read { tables throws(StoreError) in try tables.sessions.live(of: duplicate.id) }.isEmpty)
        #expect(try b.store.read { tables throws(StoreError) in try tables.books.book(duplicate.id) }.deletedAt != nil)

        // Both finished on one day: one finish after the merge, not two.
        let day = Timestamp(millisecondsSince1970: 1_700_000_000_000)
        let third = try a.addBook("Elantris, a third time")
        _ = try a.store.write { tables throws(StoreError) in try tables.books.recordStatus(.finished, of: third.id, on: day) }
        _ = try a.store.write { tables throws(StoreError) in try tables.books.recordStatus(.finished, of: kept.id, on: day) }
        _ = try a.store.write { tables throws(StoreError) in try tables.books.merge(third.id, into: kept.id) }
        #expect(try a.store.read { tables throws(StoreError) in try tables.books.book(kept.id) }.readingLog.finishes == 1)

        // Merged again on A while B, not yet synced, writes in the book A merges.
        let second = try a.addBook("Elantris, again")
        try a.sync(); try b.sync()
        _ = try a.store.write { tables throws(StoreError) in try tables.books.merge(second.id, into: kept.id) }
        let written = try b.addNote("Written on B meanwhile.", toBook: second.id)
        try a.sync(); try b.sync(); try a.sync(); try b.sync()
        try expectConverged([a, b])
        #expect(try a.note(written.id).deletedAt == nil && a.note(written.id).body == "Written on B meanwhile.")
    }
}
