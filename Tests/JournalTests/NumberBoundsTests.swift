import Testing
import Journal

/// Numbers that grow (versions, clock counters) and numbers read from outside stay where
/// arithmetic on them cannot trap (issue 23).
@Suite struct NumberBoundsTests {
    @Test func aVersionGrowsByOneUpToTheEndOfItsRange() throws {
        #expect(try VersionNumber.next(after: 1) == 2)
        #expect(try VersionNumber.next(after: VersionNumber.range.upperBound - 1) == VersionNumber.range.upperBound)
        #expect(throws: JournalError.versionOutOfRange) { try VersionNumber.next(after: VersionNumber.range.upperBound) }
        #expect(throws: JournalError.versionOutOfRange) { try VersionNumber.next(after: .max) }
        #expect(throws: JournalError.versionOutOfRange) { try VersionNumber.next(after: 0) }
        #expect(VersionNumber.range.upperBound == (1 << 53) - 1)
    }

    @Test func aClockCounterAtItsMaximumCarriesIntoTheNextMillisecond() {
        let full = HybridTimestamp(wallMilliseconds: 5_000, counter: .max, deviceID: "other")
        let next = HybridTimestamp.next(after: full, now: Timestamp(millisecondsSince1970: 1_000), deviceID: "here")
        #expect(next == HybridTimestamp(wallMilliseconds: 5_001, counter: 0, deviceID: "here"))
        #expect(next > full)
    }

    @Test func aClockReadFromOutsideMustBeBeforeTheYear10000() throws {
        let last = HybridTimestamp(wallMilliseconds: HybridTimestamp.latestWallMilliseconds, counter: 7, deviceID: "d")
        #expect(try HybridTimestamp(parsing: last.description) == last)
        let beyond = HybridTimestamp(wallMilliseconds: HybridTimestamp.latestWallMilliseconds + 1, counter: 0, deviceID: "d")
        #expect(throws: JournalError.invalidClock) { try HybridTimestamp(parsing: beyond.description) }
        #expect(throws: JournalError.invalidClock) { try HybridTimestamp(parsing: "7fffffffffffffff-ffffffff-d") }
    }
}
