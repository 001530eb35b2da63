import Testing
@testable import Journal

/// The one merge, without storage: version vectors, the versions that stand together in a
/// note, how they are shown, and the merge's decisions for books, sessions and notes.
@Suite struct JournalMergeTests {
    static let merge = JournalMerge(conflictCopyID: { id, clock in
        // Any function of both does for these tests; the Store's is a hash.
        var generator = SplitMix64(seed: UInt64(bitPattern: clock.wallMilliseconds) &* 31 &+ UInt64(clock.counter)
                                   &+ UInt64(truncatingIfNeeded: (id.rawValue + clock.deviceID).hashValue))
        return EntityID.generate(at: ms(1), using: &generator)
    })
    static let noteID = EntityID.generate(at: ms(1_700_000_000_000))

    static func clock(_ wall: Int64, _ device: String) -> HybridTimestamp {
        HybridTimestamp(wallMilliseconds: wall, counter: 0, deviceID: device)
    }

    static func note(_ body: String, at wall: Int64, deleted: Bool = false, version: Int64 = 1) -> Annotation {
        Annotation(id: noteID, bookID: someBookID, kind: .note, body: body, locator: nil, createdAt: ms(1),
                   updatedAt: ms(wall), deletedAt: deleted ? ms(wall) : nil, version: version)
    }

    // MARK: - Version vectors

    @Test func aVersionVectorIncludesEveryEarlierVersionOfEachDevice() throws {
        var history = VersionVector(Self.clock(10, "a"))
        history.insert(Self.clock(20, "b"))
        history.insert(Self.clock(5, "a"))   // older: changes nothing
        #expect(history.includes(Self.clock(10, "a")) && history.includes(Self.clock(3, "a")))
        #expect(!history.includes(Self.clock(11, "a")) && !history.includes(Self.clock(1, "c")))
        #expect(history.includes(Self.clock(20, "b")) && !history.includes(Self.clock(21, "b")))
        #expect(try VersionVector(parsing: history.description) == history)
        #expect(history.description.components(separatedBy: ",").count == 2)
        #expect(throws: JournalError.invalidClock) { try VersionVector(parsing: "") }
        let twice = "\(Self.clock(1, "a")),\(Self.clock(2, "a"))"
        #expect(throws: JournalError.invalidClock) { try VersionVector(parsing: twice) }
    }

    // MARK: - The reference table, as versions

    /// The four rows of the reference `LocalEditsWin` table, each as it happens between two
    /// devices: what is here, and a version from the other device.
    @Test func theFourRowsOfTheReferenceTable() {
        let base = AnnotationVersion(Self.note("synced", at: 100), clock: Self.clock(100, "a"), history: VersionVector(Self.clock(100, "a")))
        let here = AnnotationVersions(base)
        // (a) local has unsynced edits, the remote version is older (one this device has seen).
        let edited = AnnotationVersions(here.write(Self.note("typed offline", at: 200, version: 2), at: Self.clock(200, "a")))
        guard case .unchanged = Self.merge.merge(base, into: .record(edited), book: .live) else {
            Issue.record("(a): the older version changes nothing"); return
        }
        // (b) both changed since the version they share: both stand, the reader is told.
        let theirs = AnnotationVersion(Self.note("from the other device", at: 300, version: 2), clock: Self.clock(300, "b"),
                                       history: base.history)
        guard case .store(let both, let shown, _, let conflicts) = Self.merge.merge(theirs, into: .record(edited), book: .live) else {
            Issue.record("(b): expected both to stand"); return
        }
        #expect(both.versions.count == 2 && conflicts == 1)
        #expect(shown.note.body == "from the other device")                 // the later text is shown...
        #expect(shown.copies.map(\.annotation.body) == ["typed offline"])              // ...the other is a copy
        #expect(shown.copies.first?.annotation.conflictOf == Self.noteID && shown.copies.first?.annotation.conflictReason == .bothEdited)
        #expect(shown.copies.first?.clock == Self.clock(200, "a"))
        // (c) local clean, the remote changed it: the remote version replaces it.
        guard case .store(let taken, let takenShown, _, 0) = Self.merge.merge(theirs, into: .record(here), book: .live) else {
            Issue.record("(c): expected the remote version"); return
        }
        #expect(taken.versions == [theirs] && takenShown.copies.isEmpty && takenShown.note.body == "from the other device")
        // (d) local clean and current: the same version again changes nothing.
        guard case .unchanged = Self.merge.merge(base, into: .record(here), book: .live) else {
            Issue.record("(d): expected nothing"); return
        }
    }

    @Test func anEditBeatsADeletionItDidNotSeeAndTheNoteIsMarked() {
        let base = AnnotationVersion(Self.note("v1", at: 100), clock: Self.clock(100, "a"), history: VersionVector(Self.clock(100, "a")))
        let deletion = AnnotationVersions(base).write(Self.note("v1", at: 300, deleted: true, version: 2), at: Self.clock(300, "a"))
        let edit = AnnotationVersions(base).write(Self.note("edited", at: 200, version: 2), at: Self.clock(200, "b"))
        var versions = AnnotationVersions(deletion)
        versions.receive(edit)
        let shown = Self.merge.present(versions)
        #expect(shown.note.body == "edited" && shown.note.deletedAt == nil && shown.note.conflictReason == .editedAfterDelete)
        #expect(shown.copies.isEmpty && shown.shown.clock == edit.clock)   // the edit keeps its own clock
        // A later write that saw both settles it: no mark, one version.
        var settled = versions
        settled.receive(versions.write(Self.note("edited", at: 400, version: 3), at: Self.clock(400, "a")))
        #expect(settled.versions.count == 1 && Self.merge.present(settled).note.conflictReason == nil)
    }

    @Test func bothDeletedOrTheSameTextIsNoConflict() {
        let base = AnnotationVersion(Self.note("v1", at: 100), clock: Self.clock(100, "a"), history: VersionVector(Self.clock(100, "a")))
        let sameA = AnnotationVersions(base).write(Self.note("same", at: 200, version: 2), at: Self.clock(200, "a"))
        let sameB = AnnotationVersions(base).write(Self.note("same", at: 300, version: 2), at: Self.clock(300, "b"))
        var same = AnnotationVersions(sameA)
        same.receive(sameB)
        #expect(Self.merge.present(same).copies.isEmpty && Self.merge.present(same).shown.clock == sameB.clock)
        let goneA = AnnotationVersions(base).write(Self.note("v1", at: 200, deleted: true, version: 2), at: Self.clock(200, "a"))
        let goneB = AnnotationVersions(base).write(Self.note("v1", at: 300, deleted: true, version: 2), at: Self.clock(300, "b"))
        var gone = AnnotationVersions(goneB)
        gone.receive(goneA)
        let shown = Self.merge.present(gone)
        #expect(shown.note.deletedAt == ms(300) && shown.note.conflictReason == nil && shown.copies.isEmpty)
    }

    /// Once SYNC.md's defect 3: a deletion's survivor got a fresh clock, so it beat an edit
    /// typed later elsewhere, and that later text went into a copy. Versions keep the clock
    /// the reader wrote them at: the later typing is shown.
    @Test func theLaterTypingIsShownWhenAnEditSurvivesADeletion() {
        let v1 = AnnotationVersion(Self.note("v1", at: 100), clock: Self.clock(100, "a"), history: VersionVector(Self.clock(100, "a")))
        let aFirst = AnnotationVersions(v1).write(Self.note("A's first words", at: 110, version: 2), at: Self.clock(110, "a"))
        let bWords = AnnotationVersions(v1).write(Self.note("B's words", at: 120, version: 2), at: Self.clock(120, "b"))
        // A meets B's words: both stand on A; B's (later) is shown, A's first words are a copy.
        var onA = AnnotationVersions(aFirst)
        onA.receive(bWords)
        // B deletes what it sees; A, which has its copy, writes its second words over the note.
        let bDelete = AnnotationVersions(bWords).write(Self.note("B's words", at: 130, deleted: true, version: 3), at: Self.clock(130, "b"))
        let aSecond = onA.write(Self.note("A's second words", at: 140, version: 3), at: Self.clock(140, "a"))
        // B receives A's first words, then A's second: whatever the order, the second is shown.
        for order in [[aFirst, aSecond], [aSecond, aFirst]] {
            var onB = AnnotationVersions(bDelete)
            for version in order { onB.receive(version) }
            let shown = Self.merge.present(onB)
            #expect(shown.note.body == "A's second words" && shown.note.conflictReason == .editedAfterDelete)
        }
    }

    /// The property sync rests on: devices that have received the same versions show the
    /// same note, copies and mark, whatever order the versions came in.
    @Test(arguments: 0..<40)
    func theSameVersionsInAnyOrderAreShownAlike(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        let devices = ["a", "b", "c"]
        var held = devices.map { _ in AnnotationVersions(AnnotationVersion(Self.note("v0", at: 1), clock: Self.clock(1, "a"),
                                                                            history: VersionVector(Self.clock(1, "a")))) }
        var written: [AnnotationVersion] = []
        var wall: Int64 = 10
        for step in 0..<30 {
            let device = Int(random.next() % 3)
            wall += Int64(random.next() % 5) + 1
            if random.next() % 3 == 0, let version = written.randomElement(using: &random) {
                held[device].receive(version)   // a delivery
                continue
            }
            let deleted = random.next() % 5 == 0
            let text = random.next() % 4 == 0 ? "shared text" : "text \(step) on \(devices[device])"
            let version = held[device].write(Self.note(text, at: wall, deleted: deleted, version: Int64(step + 2)),
                                             at: HybridTimestamp(wallMilliseconds: wall, counter: 0, deviceID: devices[device]))
            held[device].receive(version)
            written.append(version)
        }
        var reference: AnnotationPresentation?
        for _ in 0..<6 {
            var everything = AnnotationVersions(written[0])
            for version in written.shuffled(using: &random) { everything.receive(version) }
            let shown = Self.merge.present(everything)
            if let reference { #expect(shown == reference, "seed \(seed)") } else { reference = shown }
        }
        // Each device, given the rest in any order, ends the same.
        for index in held.indices {
            for version in written.shuffled(using: &random) { held[index].receive(version) }
            #expect(Self.merge.present(held[index]) == reference, "seed \(seed), device \(devices[index])")
        }
    }

    // MARK: - Books and sessions

    static func book(_ title: String, progress: Double, meta: HybridTimestamp, progressAt: HybridTimestamp,
                     rewind: Bool = false) -> BookVersion {
        BookVersion(Book(id: someBookID, title: title, authors: ["Someone"], progress: progress, createdAt: ms(1),
                         updatedAt: ms(max(meta.wallMilliseconds, progressAt.wallMilliseconds)), deletedAt: nil, version: 2),
                    clock: max(meta, progressAt), metadataClock: meta,
                    positions: ProgressPolicy.Positions(percent: progress, isRewind: rewind, clock: progressAt))
    }

    /// Once SYNC.md's defect 7: one clock for the whole book let a position set later
    /// elsewhere bring back the old title. Metadata and progress each have their own.
    @Test func aRetitleSurvivesALaterProgressChangeElsewhere() {
        let original = Self.clock(100, "a")
        let retitled = Self.book("The Corrected Title", progress: 10, meta: Self.clock(200, "a"), progressAt: original)
        let progressed = Self.book("Old Title", progress: 40, meta: original, progressAt: Self.clock(300, "b"))
        for (here, incoming) in [(retitled, progressed), (progressed, retitled)] {
            guard case .update(let merged) = Self.merge.merge(incoming, into: .book(here, liveAnnotations: 0)) else {
                Issue.record("expected a change"); continue
            }
            #expect(merged.book.title == "The Corrected Title" && merged.book.progress == 40)
            #expect(merged.metadataClock == Self.clock(200, "a") && merged.positions.current.clock == Self.clock(300, "b"))
        }
    }

    @Test func aBookIsNotDeletedUnderLiveNotesAndAPurgedDeletionKeepsTheTitle() {
        let here = Self.book("Kept", progress: 0, meta: Self.clock(100, "a"), progressAt: Self.clock(100, "a"))
        var deletion = Self.book("", progress: 0, meta: Self.clock(200, "b"), progressAt: Self.clock(100, "a"))
        deletion.book.authors = []
        deletion.book.deletedAt = ms(200)
        guard case .update(let underNotes) = Self.merge.merge(deletion, into: .book(here, liveAnnotations: 2)) else {
            Issue.record("expected the clocks to move"); return
        }
        #expect(underNotes.book.deletedAt == nil && underNotes.book.title == "Kept")
        guard case .update(let deleted) = Self.merge.merge(deletion, into: .book(here, liveAnnotations: 0)) else {
            Issue.record("expected the deletion"); return
        }
        #expect(deleted.book.deletedAt == ms(200) && deleted.book.title == "Kept")
    }

    @Test func sessionsAreAUnionAndWaitForTheirBook() {
        let session = SessionVersion(ReadingSession(id: EntityID.generate(at: ms(5)), bookID: someBookID, startedAt: ms(1), endedAt: ms(2), pagesRead: 3),
                                     clock: Self.clock(5, "a"))
        #expect(Self.merge.merge(session, into: nil, book: .missing) == .deferred)
        #expect(Self.merge.merge(session, into: nil, book: .live) == .store(session))
        #expect(Self.merge.merge(session, into: session, book: .live) == .unchanged)
    }

    static func bookFile(key: [UInt8]? = [1, 2, 3]) throws -> BookFileVersion {
        let content = BookFile.Content(id: EntityID.generate(at: ms(3)), format: "epub", size: 10, checksum: String(repeating: "ab", count: 32),
                                       metadata: "{}", deviceID: "a", sealedKey: key, createdAt: ms(3))
        return BookFileVersion(BookFile(id: EntityID.generate(at: ms(4)), bookID: someBookID, content: content, locator: try Locator("p. 1"),
                                        createdAt: ms(4), updatedAt: ms(4), removedAt: nil, version: 1),
                               clock: Self.clock(4, "a"), locatorClock: Self.clock(4, "a"))
    }

    @Test func aBookFileWaitsForItsBookAndGoesWithAPurgedOne() throws {
        let file = try Self.bookFile()
        #expect(Self.merge.merge(file, into: nil, book: .missing) == .deferred)
        #expect(Self.merge.merge(file, into: nil, book: .purged) == .unchanged)
        #expect(Self.merge.merge(file, into: nil, book: .deleted) == .store(file))
        #expect(Self.merge.merge(file, into: nil, book: .live) == .store(file))
        #expect(Self.merge.merge(file, into: file, book: .live) == .unchanged)
    }

    /// Attachment and place are decided apart, each by its own clock: a place recorded on
    /// one device after the file was removed on another moves the place, not the removal;
    /// a removal made after the place was recorded removes it.
    @Test func aBookFilesAttachmentAndPlaceFollowTheirOwnLaterChange() throws {
        let here = try Self.bookFile()
        var removedThere = here
        removedThere.file.removedAt = ms(50)
        removedThere.file.version = 2
        removedThere.clock = Self.clock(50, "b")
        var movedHere = here
        movedHere.file.locator = try Locator("p. 90")
        movedHere.file.version = 2
        movedHere.locatorClock = Self.clock(60, "a")

        guard case .store(let merged) = Self.merge.merge(removedThere, into: movedHere, book: .live) else {
            Issue.record("the removal is taken")
            return
        }
        let ninety = try Locator("p. 90")
        #expect(merged.file.isRemoved && merged.file.locator == ninety)
        #expect(merged.clock == Self.clock(50, "b") && merged.locatorClock == Self.clock(60, "a"))
        // The other order gives the same result: every device converges.
        #expect(Self.merge.merge(movedHere, into: removedThere, book: .live) == .store(merged))
        // An older place from elsewhere changes nothing.
        var olderThere = here
        olderThere.file.locator = try Locator("p. 2")
        olderThere.locatorClock = Self.clock(5, "b")
        #expect(Self.merge.merge(olderThere, into: movedHere, book: .live) == .unchanged)
        // Attached again after the removal: back.
        var attachedAgain = removedThere
        attachedAgain.file.removedAt = nil
        attachedAgain.clock = Self.clock(70, "a")
        guard case .store(let back) = Self.merge.merge(attachedAgain, into: merged, book: .live) else {
            Issue.record("attached again")
            return
        }
        #expect(!back.file.isRemoved)
    }

    /// A content's key, once given, is kept: one from elsewhere fills a content here that had
    /// none (it was only linked there when it first came), and never replaces one here.
    @Test func aBookFilesKeyIsTakenWhenMissingAndNeverReplaced() throws {
        let linked = try Self.bookFile(key: nil)
        var stored = linked
        stored.file.content.sealedKey = [9, 9]
        stored.file.version = 2
        guard case .store(let merged) = Self.merge.merge(stored, into: linked, book: .live) else {
            Issue.record("the key is taken")
            return
        }
        #expect(merged.file.content.sealedKey == [9, 9])
        var otherKey = stored
        otherKey.file.content.sealedKey = [7]
        #expect(Self.merge.merge(otherKey, into: stored, book: .live) == .unchanged)
    }

    /// Where a session came from is set once: the later change wins as a whole, but a winner
    /// without a source (changed on a device that had the session from an archive read by an
    /// older bmvault) keeps the other side's, either way round.
    @Test func aSessionsSourceIsKeptByTheLaterChange() {
        let recorded = SessionVersion(ReadingSession(id: EntityID.generate(at: ms(5)), bookID: someBookID, startedAt: ms(1), endedAt: ms(2),
                                                     pagesRead: 3, source: "koreader"), clock: .origin)
        var editedThere = recorded
        editedThere.session.pagesRead = 30
        editedThere.session.version = 2
        editedThere.clock = Self.clock(100, "b")
        #expect(Self.merge.merge(editedThere, into: recorded, book: .live) == .store(editedThere))
        var withoutSource = editedThere
        withoutSource.session.source = nil
        // The later change without a source: its numbers, the source here.
        #expect(Self.merge.merge(withoutSource, into: recorded, book: .live) == .store(editedThere))
        // The older change here without one: the later change's, with its source.
        var olderHere = withoutSource
        olderHere.clock = Self.clock(50, "a")
        #expect(Self.merge.merge(editedThere, into: olderHere, book: .live) == .store(editedThere))
        // The later change here without one takes the source from the older one there.
        var laterHere = withoutSource
        laterHere.clock = Self.clock(150, "a")
        var expected = laterHere
        expected.session.source = "koreader"
        #expect(Self.merge.merge(editedThere, into: laterHere, book: .live) == .store(expected))
        // Neither has one: a typed session stays typed.
        #expect(Self.merge.merge(olderHere, into: laterHere, book: .live) == .unchanged)
    }

    @Test func theLaterChangeOfASessionWinsDeletionsIncluded() {
        let recorded = SessionVersion(ReadingSession(id: EntityID.generate(at: ms(5)), bookID: someBookID, startedAt: ms(1), endedAt: ms(2), pagesRead: 3),
                                      clock: .origin)
        var editedThere = recorded
        editedThere.session.pagesRead = 30
        editedThere.session.version = 2
        editedThere.clock = Self.clock(100, "b")
        var deletedHere = recorded
        deletedHere.session.deletedAt = ms(50)
        deletedHere.session.version = 2
        deletedHere.clock = Self.clock(50, "a")

        // An edit made after the deletion (elsewhere, unseen) brings the session back with it.
        #expect(Self.merge.merge(editedThere, into: deletedHere, book: .live) == .store(editedThere))
        // The other way round, the older deletion changes nothing here.
        #expect(Self.merge.merge(deletedHere, into: editedThere, book: .live) == .unchanged)
        // A deletion made after an edit wins.
        var deletedLater = editedThere
        deletedLater.session.deletedAt = ms(200)
        deletedLater.session.version = 3
        deletedLater.clock = Self.clock(200, "a")
        #expect(Self.merge.merge(deletedLater, into: editedThere, book: .live) == .store(deletedLater))
        // The recording itself, arriving late, never undoes a change.
        #expect(Self.merge.merge(recorded, into: editedThere, book: .live) == .unchanged)
        // A tie of wall clocks is broken by device, the same on both sides.
        var tiedA = editedThere, tiedB = editedThere
        tiedA.session.pagesRead = 31
        tiedA.clock = Self.clock(100, "a")
        tiedB.session.pagesRead = 32
        #expect(Self.merge.merge(tiedB, into: tiedA, book: .live) == .store(tiedB))
        #expect(Self.merge.merge(tiedA, into: tiedB, book: .live) == .unchanged)
        // The same numbers with a later clock are taken too, so every device ends with the
        // same clock, and a change between the two clocks is decided alike everywhere.
        var sameLater = tiedA
        sameLater.clock = Self.clock(300, "c")
        #expect(Self.merge.merge(sameLater, into: tiedA, book: .live) == .store(sameLater))
    }

    @Test func aLiveNoteForADeletedBookBringsItBackUnlessItWasPurged() {
        let version = AnnotationVersion(Self.note("new", at: 100), clock: Self.clock(100, "b"), history: VersionVector(Self.clock(100, "b")))
        guard case .store(_, _, let revive, _) = Self.merge.merge(version, into: nil, book: .deleted) else { Issue.record("stored"); return }
        #expect(revive)
        guard case .store(_, _, let purged, _) = Self.merge.merge(version, into: nil, book: .purged) else { Issue.record("stored"); return }
        #expect(!purged)
        #expect(Self.merge.merge(version, into: nil, book: .missing) == .deferred)
        // A deletion waits for its book too, so the tombstone is kept here as everywhere.
        var deletion = version
        deletion.annotation.deletedAt = ms(100)
        #expect(Self.merge.merge(deletion, into: nil, book: .missing) == .deferred)
        // A note here moved (elsewhere) to a book that has not arrived waits for it too.
        let here = LocalAnnotation.record(AnnotationVersions(version))
        var moved = AnnotationVersion(Self.note("new", at: 200), clock: Self.clock(200, "c"), history: version.history)
        moved.annotation.bookID = EntityID.generate(at: ms(200))
        #expect(Self.merge.merge(moved, into: here, book: .missing) == .deferred)
        guard case .store(_, let shown, _, _) = Self.merge.merge(moved, into: here, book: .live) else { Issue.record("stored"); return }
        #expect(shown.note.bookID == moved.annotation.bookID)
    }

    // MARK: - From an archive

    static func archived(_ body: String, version: Int64, updated: Int64, deleted: Bool = false) -> Annotation {
        note(body, at: updated, deleted: deleted, version: version)
    }

    static func decide(_ incoming: Annotation, here: LocalAnnotation?, book: RecordPresence = .live,
                       holds: Bool = false) -> ArchivedAnnotationDecision {
        merge.merge(archived: incoming, into: here, book: book, newID: { noteID }, bookHolds: { _ in holds })
    }

    static func here(_ annotation: Annotation) -> LocalAnnotation {
        .record(AnnotationVersions(AnnotationVersion(annotation, clock: clock(annotation.updatedAt.millisecondsSince1970, "a"),
                                                     history: VersionVector(clock(annotation.updatedAt.millisecondsSince1970, "a")))))
    }

    /// An archive's record meets the vault's as the reader's own change: new notes are added
    /// (bringing a deleted book back, unless it was purged), an unreadable note is replaced,
    /// an edit of the vault's very version replaces it, and two different texts both stand.
    @Test func archiveRecordsAreDecidedAsTheReadersOwnChanges() {
        let incoming = Self.archived("from the archive", version: 2, updated: 200)
        #expect(Self.decide(incoming, here: nil, book: .deleted) == .insert(incoming, reviveBook: true))
        #expect(Self.decide(incoming, here: nil, book: .purged) == .insert(incoming, reviveBook: false))
        #expect(Self.decide(incoming, here: .unreadable) == .replaceUnreadable(incoming))
        // The archive holds another text at the vault's very version and time: an edit of it.
        let vault = Self.archived("in the vault", version: 2, updated: 200)
        #expect(Self.decide(incoming, here: Self.here(vault))
                == .change(AnnotationChange(body: "from the archive", locator: .some(nil), comment: .some(nil), isDeleted: nil,
                                            bookID: incoming.bookID, kind: incoming.kind),
                           isConflict: false, reviveBook: false))
        // Changed on both sides: both stand, the archive's as a copy, unless the book holds it.
        let changed = Self.archived("changed in the vault", version: 3, updated: 300)
        guard case .addCopy(let copy) = Self.decide(incoming, here: Self.here(changed)) else {
            Issue.record("expected a conflict copy"); return
        }
        #expect(copy.body == "from the archive" && copy.conflictOf == Self.noteID && copy.conflictReason == .bothEdited)
        #expect(Self.decide(incoming, here: Self.here(changed), holds: true) == .unchanged)
        // The same text: an older live copy does not bring a deleted note back.
        let deleted = Self.archived("from the archive", version: 3, updated: 300, deleted: true)
        #expect(Self.decide(incoming, here: Self.here(deleted)) == .unchanged)
    }

    /// A note deleted here that an archive holds with another text comes back, and its book,
    /// deleted after it, comes back with it (not a purged one): a live note is never left in
    /// a deleted book, as when a new note arrives.
    @Test func aNoteAnArchiveBringsBackBringsItsDeletedBookBack() {
        let incoming = Self.archived("kept in the backup", version: 2, updated: 200)
        let deletedHere = Self.here(Self.archived("written here", version: 3, updated: 300, deleted: true))
        for (book, revives) in [(RecordPresence.deleted, true), (.purged, false), (.live, false)] {
            guard case .change(let change, true, let revive) = Self.decide(incoming, here: deletedHere, book: book) else {
                Issue.record("expected the note back, marked"); continue
            }
            #expect(change.isDeleted == false && change.body == "kept in the backup")
            #expect(revive == revives, "\(book)")
        }
    }

    /// A position from an archive moves only the book's progress: its metadata clock stays,
    /// so a retitle made elsewhere and not yet seen here still wins when it arrives.
    @Test func aPositionFromAnArchiveLeavesTheMetadataAlone() {
        let here = Self.book("Title", progress: 10, meta: Self.clock(100, "a"), progressAt: Self.clock(100, "a"))
        var archived = here.book
        archived.progress = 60
        archived.updatedAt = ms(500)
        guard case .change(let progressOnly) = Self.merge.merge(archived: archived, into: .book(here, liveAnnotations: 1)) else {
            Issue.record("expected the position to move"); return
        }
        #expect(progressOnly.progressMoved && !progressOnly.metadataChanged && progressOnly.progress == 60)
        archived.title = "Another Title"
        guard case .change(let both) = Self.merge.merge(archived: archived, into: .book(here, liveAnnotations: 1)) else {
            Issue.record("expected a change"); return
        }
        #expect(both.progressMoved && both.metadataChanged && both.title == "Another Title")
    }
}
