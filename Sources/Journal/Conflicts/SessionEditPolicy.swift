/// Reading sessions are facts ("I read 30 pages on Tuesday") with no text of the reader's:
/// sessions from every device are kept, a union by id, and when one session was corrected
/// or deleted on two devices, the later change wins, by hybrid logical clock, with the
/// device id breaking ties. A deletion is a change like any other: an edit made after it
/// (on a device that had not seen it) brings the session back with the edit.
/// The version kept is the winner's whole, clock included, so every device ends with the
/// same clock too. A session never changed since it was recorded has the origin clock
/// (``HybridTimestamp/origin``): any change wins over it, and a recording (from an archive,
/// or a device that arrives late) never undoes one.
/// Where the session came from (``ReadingSession/source``) is set once, when it was
/// recorded, and no change takes it away: a winner without one (changed on a device that
/// had the session without it, from an archive read by an older bmvault) keeps the other's.
public struct SessionEditPolicy: ConflictPolicy {
    public typealias Value = SessionVersion

    public init() {}

    public func resolve(local: Side<SessionVersion>, remote: Side<SessionVersion>, divergence: Divergence) -> Resolution<SessionVersion> {
        let remoteWins = remote.clock > local.clock
        var winner = remoteWins ? remote.value : local.value
        winner.session.source = winner.session.source ?? (remoteWins ? local.value : remote.value).session.source
        return .winner(winner, why: remoteWins ? "remote was changed last" : "local was changed last")
    }
}
