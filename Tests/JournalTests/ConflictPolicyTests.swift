import Testing
@testable import Journal

/// The conflict policies, one per kind of data, including the four rows of the reference `LocalEditsWin` table.
@Suite struct ConflictPolicyTests {
    static let book = EntityID.generate(at: Timestamp(millisecondsSince1970: 0))

    static func clock(_ wall: Int64, _ device: String = "local") -> HybridTimestamp {
        HybridTimestamp(wallMilliseconds: wall, counter: 0, deviceID: device)
    }

    static func note(_ body: String, id: EntityID = EntityID.generate(at: Timestamp(millisecondsSince1970: 1)), updated: Int64) -> Annotation {
        Annotation(id: id, bookID: book, kind: .note, body: body, locator: nil,
                   createdAt: Timestamp(millisecondsSince1970: 1), updatedAt: Timestamp(millisecondsSince1970: updated),
                   deletedAt: nil, version: 2)
    }

    /// The reference table: one note in four states, resolved against the server copy.
    /// "Newer" means the remote changed since the last sync; "dirty" means unsynced local edits.
    @Test func theSeedsFourRowsComeOutAsItsTableSays() {
        let policy = NoteAndQuoteTextPolicy()
        let id = EntityID.generate(at: Timestamp(millisecondsSince1970: 5))
        func run(localBody: String, localAt: Int64, dirty: Bool, remoteAt: Int64, lastSync: Int64) -> Resolution<Annotation> {
            policy.resolve(local: Side(Self.note(localBody, id: id, updated: localAt), clock: Self.clock(localAt)),
                           remote: Side(Self.note("from server", id: id, updated: remoteAt), clock: Self.clock(remoteAt, "server")),
                           divergence: Divergence(localChanged: dirty, remoteChanged: remoteAt > lastSync))
        }
        // a: local dirty, remote older → local wins.
        guard case .winner(let a, let whyA) = run(localBody: "typed offline", localAt: 1700, dirty: true, remoteAt: 1600, lastSync: 1650) else {
            Issue.record("a: expected a winner"); return
        }
        #expect(a.body == "typed offline")
        #expect(whyA == "local has unsynced edits, remote is older")
        // b: local dirty, remote newer → needs the user; nothing lost.
        guard case .needsUser(let local, let remote, let whyB) = run(localBody: "typed offline", localAt: 1700, dirty: true, remoteAt: 1900, lastSync: 1650) else {
            Issue.record("b: expected needsUser"); return
        }
        #expect(local.body == "typed offline")
        #expect(remote.body == "from server")
        #expect(whyB == "both changed since the last sync")
        // c: local clean, remote newer → remote wins.
        guard case .winner(let c, let whyC) = run(localBody: "synced", localAt: 1700, dirty: false, remoteAt: 1900, lastSync: 1700) else {
            Issue.record("c: expected a winner"); return
        }
        #expect(c.body == "from server")
        #expect(whyC == "remote is newer, local is clean")
        // d: local clean and current → local.
        guard case .winner(let d, let whyD) = run(localBody: "synced", localAt: 1900, dirty: false, remoteAt: 1700, lastSync: 1900) else {
            Issue.record("d: expected a winner"); return
        }
        #expect(d.body == "synced")
        #expect(whyD == "local is current")
    }

    /// The case a clock comparison alone gets wrong: the remote edit is older than the local
    /// one, but both happened after the last sync. Both texts must survive.
    @Test func twoEditsSinceTheLastSyncNeedTheUserWhateverTheirClocks() {
        let id = EntityID.generate(at: Timestamp(millisecondsSince1970: 5))
        let resolution = NoteAndQuoteTextPolicy().resolve(
            local: Side(Self.note("mine", id: id, updated: 1800), clock: Self.clock(1800)),
            remote: Side(Self.note("theirs", id: id, updated: 1750), clock: Self.clock(1750, "other")),
            divergence: Divergence(localChanged: true, remoteChanged: true))
        guard case .needsUser(let local, let remote, _) = resolution else {
            Issue.record("expected needsUser"); return
        }
        #expect(local.body == "mine" && remote.body == "theirs")
    }

    @Test func deleteAgainstEditKeepsTheEditAndTellsTheReader() {
        let id = EntityID.generate(at: Timestamp(millisecondsSince1970: 5))
        var deleted = Self.note("gone", id: id, updated: 1800)
        deleted.deletedAt = Timestamp(millisecondsSince1970: 1800)
        let policy = NoteAndQuoteTextPolicy()
        let deletedHere = policy.resolve(local: Side(deleted, clock: Self.clock(1800), isDeleted: true),
                                         remote: Side(Self.note("edited there", id: id, updated: 1700), clock: Self.clock(1700, "other")),
                                         divergence: Divergence(localChanged: true, remoteChanged: true))
        guard case .needsUser(_, let remote, let why) = deletedHere else { Issue.record("expected needsUser"); return }
        #expect(remote.body == "edited there")
        #expect(why == "deleted here, edited on another device")
        let deletedThere = policy.resolve(local: Side(Self.note("edited here", id: id, updated: 1700), clock: Self.clock(1700)),
                                          remote: Side(deleted, clock: Self.clock(1800, "other"), isDeleted: true),
                                          divergence: Divergence(localChanged: true, remoteChanged: true))
        guard case .needsUser(let local, _, let whyThere) = deletedThere else { Issue.record("expected needsUser"); return }
        #expect(local.body == "edited here")
        #expect(whyThere == "edited here, deleted on another device")
        // A deletion alone, with no local edit, propagates.
        let clean = policy.resolve(local: Side(Self.note("old", id: id, updated: 1000), clock: Self.clock(1000)),
                                   remote: Side(deleted, clock: Self.clock(1800, "other"), isDeleted: true),
                                   divergence: Divergence(localChanged: false, remoteChanged: true))
        guard case .winner(let winner, _) = clean else { Issue.record("expected a winner"); return }
        #expect(winner.deletedAt != nil)
    }

    @Test func identicalEditsOnBothSidesAreNotAConflict() {
        let id = EntityID.generate(at: Timestamp(millisecondsSince1970: 5))
        let resolution = NoteAndQuoteTextPolicy().resolve(
            local: Side(Self.note("same", id: id, updated: 1800), clock: Self.clock(1800)),
            remote: Side(Self.note("same", id: id, updated: 1900), clock: Self.clock(1900, "other")),
            divergence: Divergence(localChanged: true, remoteChanged: true))
        guard case .winner(let winner, _) = resolution else { Issue.record("expected a winner"); return }
        #expect(winner.body == "same")
    }

    @Test func bookMetadataIsLastWriterWinsWithTheDeviceAsTieBreak() throws {
        func book(_ title: String) throws -> Book { try Book.new(title: title, authors: [], at: Timestamp(millisecondsSince1970: 1)) }
        let policy = BookMetadataPolicy()
        let divergence = Divergence(localChanged: true, remoteChanged: true)
        guard case .winner(let later, _) = policy.resolve(local: Side(try book("Local"), clock: Self.clock(10)),
                                                          remote: Side(try book("Remote"), clock: Self.clock(20, "b")),
                                                          divergence: divergence) else { Issue.record("winner"); return }
        #expect(later.title == "Remote")
        // Same millisecond, same counter: the device id decides, the same way on both devices.
        let onA = policy.resolve(local: Side(try book("From A"), clock: Self.clock(10, "device-a")),
                                 remote: Side(try book("From B"), clock: Self.clock(10, "device-b")), divergence: divergence)
        let onB = policy.resolve(local: Side(try book("From B"), clock: Self.clock(10, "device-b")),
                                 remote: Side(try book("From A"), clock: Self.clock(10, "device-a")), divergence: divergence)
        guard case .winner(let a, _) = onA, case .winner(let b, _) = onB else { Issue.record("winners"); return }
        #expect(a.title == "From B" && b.title == "From B")
    }

    @Test func progressTakesTheFurthestUnlessANewerRewind() {
        let policy = ProgressPolicy()
        let divergence = Divergence(localChanged: true, remoteChanged: true)
        func resolve(_ local: (Double, Bool, Int64), _ remote: (Double, Bool, Int64)) -> Double? {
            let here = ProgressPolicy.Positions(percent: local.0, isRewind: local.1, clock: Self.clock(local.2))
            let there = ProgressPolicy.Positions(percent: remote.0, isRewind: remote.1, clock: Self.clock(remote.2, "other"))
            guard case .winner(let positions, _) = policy.resolve(local: Side(here, clock: Self.clock(local.2)),
                                                                  remote: Side(there, clock: Self.clock(remote.2, "other")),
                                                                  divergence: divergence) else { return nil }
            return positions.current.percent
        }
        #expect(resolve((40, false, 10), (60, false, 5)) == 60)   // furthest, whatever the clock
        #expect(resolve((60, false, 10), (40, false, 20)) == 60)
        #expect(resolve((80, false, 10), (20, true, 20)) == 20)   // a newer rewind wins
        #expect(resolve((20, true, 10), (80, false, 20)) == 80)   // a position after the rewind wins again
        #expect(resolve((90, false, 30), (20, true, 20)) == 90)   // a rewind loses to a newer position
    }

    /// Found by the random schedules: A records 76, C rewinds to 62 later, B records a plain
    /// 62 later still, none having seen the others. Every device must end at a plain 62,
    /// whatever order it meets them in: the rewind cuts A's 76, B's 62 comes after it.
    @Test func progressIsTheSameWhateverOrderThePositionsArriveIn() throws {
        let a = ProgressPolicy.Positions(percent: 76, isRewind: false, clock: Self.clock(10, "a"))
        let c = ProgressPolicy.Positions(percent: 62, isRewind: true, clock: Self.clock(20, "c"))
        let b = ProgressPolicy.Positions(percent: 62, isRewind: false, clock: Self.clock(30, "b"))
        for order in [[a, b, c], [a, c, b], [b, a, c], [b, c, a], [c, a, b], [c, b, a]] {
            let joined = order.dropFirst().reduce(order[0]) { $0.joined(with: $1) }
            #expect(joined.current.percent == 62 && !joined.current.isRewind, "\(order.map(\.text))")
            #expect(joined == a.joined(with: c).joined(with: b))
        }
        // Positions a later rewind could still leave standing are kept, and travel as text.
        let kept = a.joined(with: b)
        #expect(kept.plain.map(\.percent) == [76, 62] && kept.current.percent == 76)
        #expect(try ProgressPolicy.Positions(parsing: kept.text) == kept)
        #expect(kept.joined(with: ProgressPolicy.Positions(percent: 10, isRewind: true, clock: Self.clock(20, "c"))).current.percent == 62)
        #expect(throws: JournalError.invalidClock) { try ProgressPolicy.Positions(parsing: "") }
        #expect(throws: JournalError.progressOutOfRange) { try ProgressPolicy.Positions(parsing: "P@\(Self.clock(1))=101") }
    }

    /// Joining positions is commutative, associative and idempotent: random positions from
    /// three devices, joined in any order and grouping, give the same result.
    @Test(arguments: 0..<30)
    func joiningPositionsIsOrderFree(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        var marks: [ProgressPolicy.Positions] = []
        for index in 0..<8 {
            marks.append(ProgressPolicy.Positions(percent: Double(random.next() % 101), isRewind: random.next() % 3 == 0,
                                                  clock: Self.clock(Int64(index * 10 + Int(random.next() % 7)), ["a", "b", "c"][index % 3])))
        }
        let reference = marks.dropFirst().reduce(marks[0]) { $0.joined(with: $1) }
        for _ in 0..<5 {
            let shuffled = marks.shuffled(using: &random)
            let half = shuffled.count / 2
            let left = shuffled[..<half].dropFirst().reduce(shuffled[0]) { $0.joined(with: $1) }
            let right = shuffled[half...].dropFirst().reduce(shuffled[half]) { $0.joined(with: $1) }
            #expect(left.joined(with: right) == reference && right.joined(with: left).joined(with: left) == reference, "seed \(seed)")
        }
    }

    @Test func hybridClockIsMonotonicAndItsTextSortsLikeIt() throws {
        let first = HybridTimestamp.next(after: nil, now: Timestamp(millisecondsSince1970: 1000), deviceID: "d")
        let second = HybridTimestamp.next(after: first, now: Timestamp(millisecondsSince1970: 1000), deviceID: "d")
        let behind = HybridTimestamp.next(after: second, now: Timestamp(millisecondsSince1970: 900), deviceID: "d")
        let ahead = HybridTimestamp.next(after: behind, now: Timestamp(millisecondsSince1970: 2000), deviceID: "d")
        #expect(first < second && second < behind && behind < ahead)
        #expect(behind.wallMilliseconds == 1000 && behind.counter == 2)
        let readings = [first, second, behind, ahead, Self.clock(1000, "e")]
        #expect(readings.map(\.description).sorted() == readings.sorted().map(\.description))
        for reading in readings { #expect(try HybridTimestamp(parsing: reading.description) == reading) }
        #expect(HybridTimestamp(wallMilliseconds: 0x19a2b3c4d5e, counter: 0xab, deviceID: "dev").description
            == "0000019a2b3c4d5e-000000ab-dev")
        #expect(HybridTimestamp(wallMilliseconds: -1, counter: .max, deviceID: "d").description == "ffffffffffffffff-ffffffff-d")
        #expect(throws: JournalError.invalidClock) { try HybridTimestamp(parsing: "nonsense") }
    }
}
