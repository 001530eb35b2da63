import Testing
@testable import Journal

/// Reading status and rating (issue 21): the reading log's text, its union and status,
/// ratings in half stars, and both merged between devices by their policies.
@Suite struct ShelfTests {
    static func clock(_ wall: Int64, _ device: String) -> HybridTimestamp {
        HybridTimestamp(wallMilliseconds: wall, counter: 0, deviceID: device)
    }

    static func event(_ status: ReadingStatus, on day: Int64, _ wall: Int64, _ device: String) -> ReadingEvent {
        ReadingEvent(status: status, on: ms(day), clock: clock(wall, device))
    }

    @Test func theStatusIsTheLatestEventByDayThenByWhenItWasRecorded() {
        let log = ReadingLog(events: [Self.event(.finished, on: 300, 10, "a"), Self.event(.reading, on: 100, 20, "a")])
        #expect(log.status == .finished && log.statusSince == ms(300))
        // Recorded later about an earlier day: the order is by day.
        #expect(log.events.map(\.status) == [.reading, .finished])
        // The same day on two devices: the one recorded last decides, on every device.
        let both = log.adding(Self.event(.abandoned, on: 300, 30, "b"))
        #expect(both.status == .abandoned)
        #expect(ReadingLog.empty.status == nil && ReadingLog.empty.isEmpty)
    }

    @Test func reReadsKeepEveryFinish() {
        var log = ReadingLog.empty
        for (day, status) in [(1, ReadingStatus.reading), (2, .finished), (3, .reading), (4, .finished)] {
            log = log.adding(Self.event(status, on: Int64(day), Int64(day * 10), "a"))
        }
        #expect(log.finishedOn == [ms(2), ms(4)])
    }

    /// A change another program recorded without its day (bmvault 0.16): placed by its
    /// stand-in day, never shown or counted as the day; written with a `~`.
    @Test func aDayNotKnownIsKeptApartFromTheDays() throws {
        let unknown = ReadingEvent(status: .finished, on: ms(50), clock: Self.clock(5, "g"), dayKnown: false)
        let log = ReadingLog(events: [Self.event(.reading, on: 10, 1, "a"), unknown, Self.event(.finished, on: 20, 2, "a")])
        #expect(log.status == .finished && log.statusSince == nil, "the latest is the one without a day")
        #expect(log.finishedOn == [ms(20)] && log.finishes == 2)
        // Held, as an import sees it: the same status that day, or at all when a day is not known.
        #expect(log.holds(Self.event(.reading, on: 10, 9, "z")) && !log.holds(Self.event(.reading, on: 11, 9, "z")))
        #expect(log.holds(Self.event(.finished, on: 21, 9, "z")), "a finish without its day holds every finish")
        #expect(log.holds(ReadingEvent(status: .reading, on: ms(99), clock: Self.clock(9, "z"), dayKnown: false)))
        #expect(!log.holds(Self.event(.abandoned, on: 10, 9, "z")))
        #expect(log.text.contains("finished ~50 "))
        #expect(try ReadingLog(parsing: log.text) == log)
        for bad in ["finished ~ \(Self.clock(1, "a"))", "finished ~~5 \(Self.clock(1, "a"))", "finished 5~ \(Self.clock(1, "a"))"] {
            #expect(throws: JournalError.invalidReadingLog, "\(bad)") { try ReadingLog(parsing: bad) }
        }
    }

    @Test func theLogReadsBackFromItsTextAndRefusesAnythingElse() throws {
        let log = ReadingLog(events: [Self.event(.wantToRead, on: 5, 1, "a"), Self.event(.abandoned, on: -86_400_000, 2, "b")])
        #expect(try ReadingLog(parsing: log.text) == log)
        #expect(try ReadingLog(parsing: "") == .empty)
        for bad in ["finished", "finished 12", "done 12 \(Self.clock(1, "a"))", "finished x \(Self.clock(1, "a"))",
                    "finished 12 not-a-clock", "finished 12 \(Self.clock(1, "a")) extra"] {
            #expect(throws: JournalError.invalidReadingLog, "\(bad)") { try ReadingLog(parsing: bad) }
        }
    }

    @Test("Ratings are 1 to 5 in half stars", arguments: [(1.0, true), (4.5, true), (5, true), (0.5, false), (5.5, false),
                                                         (3.25, false), (Double.nan, false), (.infinity, false)])
    func ratings(stars: Double, valid: Bool) {
        #expect(((try? Rating.checked(stars)) != nil) == valid)
    }

    static func book(rating: Double?, ratedAt: HybridTimestamp, log: ReadingLog, clock: HybridTimestamp) -> BookVersion {
        let start = Self.clock(1, "a")
        return BookVersion(Book(id: someBookID, title: "T", authors: [], progress: 0, createdAt: ms(1), updatedAt: ms(clock.wallMilliseconds),
                                deletedAt: nil, version: 2, readingLog: log, rating: rating),
                           clock: clock, metadataClock: start, positions: .init(percent: 0, isRewind: false, clock: start),
                           ratingClock: ratedAt)
    }

    /// The issue's case: finished on one device, abandoned on the other. Both stay in the
    /// log and both devices show the same status, whichever order they merge in; the
    /// rating given last wins everywhere, and a version that never knew ratings (a device
    /// of bmvault 0.9: no rating, the origin clock) takes none away.
    @Test func twoDevicesConvergeOnStatusAndRating() {
        let merge = JournalMerge(conflictCopyID: { id, _ in id })
        let finished = Self.book(rating: 4, ratedAt: Self.clock(50, "a"), log: ReadingLog(events: [Self.event(.finished, on: 1000, 60, "a")]),
                                 clock: Self.clock(60, "a"))
        let abandoned = Self.book(rating: 2.5, ratedAt: Self.clock(70, "b"), log: ReadingLog(events: [Self.event(.abandoned, on: 1000, 40, "b")]),
                                  clock: Self.clock(70, "b"))
        var results: [BookVersion] = []
        for (here, incoming) in [(finished, abandoned), (abandoned, finished)] {
            guard case .update(let merged) = merge.merge(incoming, into: .book(here, liveAnnotations: 0)) else {
                Issue.record("expected a change"); continue
            }
            results.append(merged)
        }
        #expect(results.count == 2 && results[0] == results[1])
        #expect(results.first?.book.readingLog.events.count == 2)
        #expect(results.first?.book.readingLog.status == .finished, "recorded later, the same day")
        #expect(results.first?.book.rating == 2.5 && results.first?.ratingClock == Self.clock(70, "b"))

        let older = Self.book(rating: nil, ratedAt: .origin, log: .empty, clock: Self.clock(90, "c"))
        guard case .update(let kept) = merge.merge(older, into: .book(results[0], liveAnnotations: 0)) else {
            Issue.record("expected the clock to move"); return
        }
        #expect(kept.book.rating == 2.5 && kept.book.readingLog == results[0].book.readingLog)
        // Taking a rating away is a change like any other: later, it wins.
        let cleared = Self.book(rating: nil, ratedAt: Self.clock(95, "c"), log: .empty, clock: Self.clock(95, "c"))
        guard case .update(let unrated) = merge.merge(cleared, into: .book(results[0], liveAnnotations: 0)) else {
            Issue.record("expected a change"); return
        }
        #expect(unrated.book.rating == nil && unrated.book.readingLog.events.count == 2)
    }
}
