/// A status another program's file records: added to the book's log once, however often
/// the file is imported. The log already holding that status on that day (or at all, when
/// either day is not known) keeps it as it is; otherwise both logs' events stand, as every
/// status change does (``ReadingLogPolicy``).
public struct ImportedStatusPolicy: ConflictPolicy {
    public typealias Value = ReadingLog

    public init() {}

    public func resolve(local: Side<ReadingLog>, remote: Side<ReadingLog>, divergence: Divergence) -> Resolution<ReadingLog> {
        let missing = remote.value.events.filter { !local.value.holds($0) }
        return missing.isEmpty
            ? .winner(local.value, why: "the log records that status already")
            : .winner(local.value.union(ReadingLog(events: missing)), why: "the status is new to the log")
    }
}
