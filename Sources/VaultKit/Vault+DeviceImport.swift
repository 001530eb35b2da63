import Applier
public import Importers
import Journal

/// What an import of a reading device's folder did (or, a dry run, would do): each file it
/// holds counted on its own, as importing that file alone would count it, and the whole.
public struct DeviceImportReport: Sendable {
    /// One file of the device (KOReader's sidecars: all of them) and what its import did.
    public struct Source: Sendable {
        /// Its place in the device's folder (`documents/My Clippings.txt`); nil for KOReader's
        /// sidecars, which are many files (``OtherProgramImportReport/files``).
        public let place: String?
        public let report: OtherProgramImportReport
    }

    public let dryRun: Bool
    /// In the order they were imported (``ReadingDevice/files``); empty when the device holds
    /// nothing bmvault reads.
    public internal(set) var sources: [Source] = []
    /// The Store's count of every change of the one transaction.
    public internal(set) var summary = ImportSummary()

    /// The device as one report (format ``ImportFormat/device``): every source's books, the
    /// transaction's summary, and what each holds and was only counted, added up.
    public var whole: OtherProgramImportReport {
        var whole = OtherProgramImportReport(format: .device, dryRun: dryRun)
        whole.summary = summary
        whole.files = 0
        for source in sources.map(\.report) {
            whole.books += source.books
            whole.merged += source.merged
            whole.bookmarks += source.bookmarks
            whole.placeholders += source.placeholders
            whole.empty += source.empty
            whole.files += source.files
            whole.removed += source.removed
            whole.ownShelves += source.ownShelves
            whole.pageTurns += source.pageTurns
            whole.tooShort += source.tooShort
            whole.inFuture += source.inFuture
            whole.unopened += source.unopened
        }
        return whole
    }
}

extension Vault {
    /// Imports everything the reading device's folder at `path` holds (``ReadingDevice``: a
    /// Kobo's database, KOReader's sidecars and statistics, a Kindle's clippings) in ONE
    /// transaction, each file as ``importOtherProgram(at:format:dryRun:book:sessions:progress:)``
    /// imports it: all or nothing (every file is read before anything is written, and a
    /// file that is not what its place says fails the whole import, naming its format). A
    /// `dryRun` does the same work and rolls it back. `progress` hears how many of the
    /// device's highlights, notes and sessions were taken in, of how many.
    public func importDevice(at path: String, dryRun: Bool, sessions rules: KOReaderStatistics.Rules = .standard,
                             progress: (_ done: Int, _ total: Int) -> Void = { _, _ in }) throws(VaultError) -> DeviceImportReport {
        let store = try unlockedStore()
        guard let device = ReadingDevice(at: path) else { throw .notADevice(path: path) }
        var files: [(place: String?, file: OtherProgramFile)] = []
        for entry in device.files {
            do {
                let file = try OtherProgramFile.read(at: entry.place.map { path + "/" + $0 } ?? path, format: entry.format,
                                                     sidecars: entry.format == .koreader ? device.sidecars : nil, rules: rules)
                files.append((entry.place, file))
            } catch {
                throw .onDevice(format: entry.format, error)
            }
        }
        var report = DeviceImportReport(dryRun: dryRun)
        var reports = files.map { OtherProgramImportReport(format: $0.file.format, dryRun: dryRun) }
        let total = files.reduce(0) { $0 + $1.file.total }
        let now = clock.now()
        report.summary = try Self.archiveOrStoreCall {
            try store.importArchive(dryRun: dryRun) { importer in
                var done = 0
                for (index, (_, file)) in files.enumerated() {
                    let before = importer.summary
                    try file.importBooks(into: importer, report: &reports[index], at: now) { progress(done + $0, total) }
                    reports[index].summary = importer.summary.since(before)
                    done += file.total
                }
            }
        }
        report.sources = zip(files, reports).map { DeviceImportReport.Source(place: $0.place, report: $1) }
        return report
    }
}

extension ImportSummary {
    /// What was counted since `before`, a count of the same import: one file's share of a
    /// device's transaction.
    func since(_ before: ImportSummary) -> ImportSummary {
        func minus(_ a: JournalCounts, _ b: JournalCounts) -> JournalCounts {
            JournalCounts(books: a.books - b.books, sessions: a.sessions - b.sessions, notes: a.notes - b.notes, quotes: a.quotes - b.quotes)
        }
        var share = ImportSummary()
        share.added = minus(added, before.added)
        share.updated = minus(updated, before.updated)
        share.unchanged = unchanged - before.unchanged
        share.conflicts = conflicts - before.conflicts
        share.tagsGiven = tagsGiven - before.tagsGiven
        share.filesAttached = filesAttached - before.filesAttached
        share.filesStored = filesStored - before.filesStored
        share.filesNotCarried = filesNotCarried - before.filesNotCarried
        return share
    }
}
