/// Notes and quotes: the reader's own words, so no edit is ever dropped silently.
///
/// The seed's `LocalEditsWin`, with "newer" meaning "changed since the last sync":
/// (a) local has unsynced edits, remote unchanged → local wins;
/// (b) both changed → needs the user: local stays on screen, remote becomes a conflict copy;
/// (c) local clean, remote changed → remote wins;
/// (d) neither changed → local is current.
/// Delete against edit: the edit survives (a deleted note comes back) and the reader is told.
public struct NoteAndQuoteTextPolicy: ConflictPolicy {
    public typealias Value = Annotation

    public init() {}

    public func resolve(local: Side<Annotation>, remote: Side<Annotation>, divergence: Divergence) -> Resolution<Annotation> {
        switch (divergence.localChanged, divergence.remoteChanged) {
        case (true, true):
            if local.isDeleted && remote.isDeleted {
                // The later tombstone, on every device, so both keep the same one.
                return .winner(local.clock >= remote.clock ? local.value : remote.value, why: "deleted on both devices")
            }
            if local.isDeleted {
                return .needsUser(local: local.value, remote: remote.value, why: "deleted here, edited on another device")
            }
            if remote.isDeleted {
                return .needsUser(local: local.value, remote: remote.value, why: "edited here, deleted on another device")
            }
            if local.value.body == remote.value.body && local.value.locator == remote.value.locator {
                return .winner(local.clock >= remote.clock ? local.value : remote.value, why: "both changed to the same text")
            }
            return .needsUser(local: local.value, remote: remote.value, why: "both changed since the last sync")
        case (true, false):
            return .winner(local.value, why: "local has unsynced edits, remote is older")
        case (false, true):
            return .winner(remote.value, why: "remote is newer, local is clean")
        case (false, false):
            return .winner(local.value, why: "local is current")
        }
    }
}
