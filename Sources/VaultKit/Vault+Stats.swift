import Foundation
public import Journal
import VaultStore

/// `stats`: the numbers, with the titles a reader needs to read the per-book totals.
public struct StatsReport: Sendable {
    public let stats: ReadingStats
    /// Live books' titles by id; a book whose title cannot be read is absent.
    public let titles: [EntityID: String]
}

extension Vault {
    /// Statistics of the live sessions of live books that started at or after `from` and
    /// before `before` (either may be nil), and of the finishes dated then, in local days.
    /// Sessions and status changes are in the clear; only the titles are decrypted.
    public func stats(from: Timestamp?, before: Timestamp?, timeZone: TimeZone = .process) throws(VaultError) -> StatsReport {
        let store = try unlockedStore()
        let (sessions, logs) = try store.reading { tables throws(StoreError) in (try tables.sessions.live(book: nil, startedSince: from), try tables.books.readingLogs()) }
        let stats = ReadingStats(sessions: sessions, logs: logs, from: from, before: before, now: clock.now(), timeZone: timeZone)
        return StatsReport(stats: stats, titles: try bookTitles())
    }
}
