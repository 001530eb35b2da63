/// Reading sessions are append-only facts ("I read 30 pages on Tuesday"): sessions from
/// every device are kept, merged as a union by id. The same id twice is the same session.
public struct SessionUnionPolicy: ConflictPolicy {
    public typealias Value = ReadingSession

    public init() {}

    public func resolve(local: Side<ReadingSession>, remote: Side<ReadingSession>, divergence: Divergence) -> Resolution<ReadingSession> {
        .winner(local.value, why: "sessions are never edited: the same id is the same session")
    }
}
