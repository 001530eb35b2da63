/// A tag on a book, note or quote. Each tagging is decided on its own: its last change
/// (given, taken away, given again) wins, by its own clock. Giving a tag makes a new
/// tagging unless the record has the same tag taken away here, which is given back; taking
/// a tag away takes away every tagging of that name this device knows. So two devices that
/// give the same tag each add one, shown once; a tag taken away on one device while the
/// other gave it again (without having seen the removal) stays: no tag the reader gave is
/// lost to a change they could not see.
public struct TagPolicy: ConflictPolicy {
    public typealias Value = Tagging

    public init() {}

    public func resolve(local: Side<Tagging>, remote: Side<Tagging>, divergence: Divergence) -> Resolution<Tagging> {
        remote.clock > local.clock
            ? .winner(remote.value, why: "remote's tag was changed last")
            : .winner(local.value, why: "local's tag was changed last")
    }
}
