import Testing
import Sync

/// What a sync left undone, most pressing first: the CLI's exit status follows it.
@Suite struct SyncShortfallTests {
    @Test func aSyncThatDidEverythingHasNone() {
        var summary = SyncSummary()
        summary.pushed = 3
        summary.pulled = 2
        summary.conflicts = 1
        summary.purged = 4
        #expect(summary.shortfall == nil)
    }

    @Test func whatNeedsTheReaderComesBeforeASkippedRemoteAndARetry() {
        var summary = SyncSummary()
        summary.failures = 2
        summary.deferred = 1
        #expect(summary.shortfall == .leftToRetry(failures: 2, deferred: 1))
        summary.skipped = ["usb": "unreachable"]
        #expect(summary.shortfall == .remotesSkipped(["usb": "unreachable"]))
        summary.rejected = 1
        #expect(summary.shortfall == .needsAttention(failedForGood: 0, unreadable: 1, unsentRecords: 0, refusedFiles: 0))
        summary.failedForGood = 5
        #expect(summary.shortfall == .needsAttention(failedForGood: 5, unreadable: 1, unsentRecords: 0, refusedFiles: 0))
        // A book file refused on receipt alone is enough: the sync did not do what it was asked.
        var refused = SyncSummary()
        refused.filesReceived = 3
        refused.filesRefused = 1
        #expect(refused.shortfall == .needsAttention(failedForGood: 0, unreadable: 0, unsentRecords: 0, refusedFiles: 1))
    }

    @Test func operationsWaitingForTheirRecordsAreLeftToRetry() {
        var summary = SyncSummary()
        summary.deferred = 7
        #expect(summary.shortfall == .leftToRetry(failures: 0, deferred: 7))
    }
}
