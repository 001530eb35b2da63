/// Reading sessions are facts ("I read 30 pages on Tuesday") with no text of the reader's:
/// sessions from every device are kept, a union by id, and when one session was corrected
/// or deleted on two devices, the later change wins, by hybrid logical clock, with the
/// device id breaking ties. A deletion is a change like any other: an edit made after it
/// (on a device that had not seen it) brings the session back with the edit.
public struct SessionEditPolicy: ConflictPolicy {
    public typealias Value = ReadingSession

    public init() {}

    public func resolve(local: Side<ReadingSession>, remote: Side<ReadingSession>, divergence: Divergence) -> Resolution<ReadingSession> {
        remote.clock > local.clock
            ? .winner(remote.value, why: "remote was changed last")
            : .winner(local.value, why: "local was changed last")
    }
}
