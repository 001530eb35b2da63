/// A book's status changes (want to read, started, finished, abandoned): each is a fact
/// about the reader's life, so nothing recorded on any device is dropped. Two logs merge by
/// union; the status shown is the latest event by its day, then by when it was recorded.
/// So "finished" on one device and "abandoned" on the other, for the same day, both stay in
/// the log, and every device shows the one recorded last; `book show` lists both.
public struct ReadingLogPolicy: ConflictPolicy {
    public typealias Value = ReadingLog

    public init() {}

    public func resolve(local: Side<ReadingLog>, remote: Side<ReadingLog>, divergence: Divergence) -> Resolution<ReadingLog> {
        .winner(local.value.union(remote.value), why: "every status change is kept")
    }
}
