/// A book's edition (ISBN, year, pages): facts the reader corrects as a whole, so the last
/// correction wins, by the edition's own clock (a retitle, a position or a rating elsewhere
/// never undoes it, nor it them). A device that does not know editions sends none with the
/// origin clock, and so takes none away.
public struct EditionPolicy: ConflictPolicy {
    public typealias Value = Edition

    public init() {}

    public func resolve(local: Side<Edition>, remote: Side<Edition>, divergence: Divergence) -> Resolution<Edition> {
        remote.clock > local.clock
            ? .winner(remote.value, why: "remote's edition was changed last")
            : .winner(local.value, why: "local's edition was changed last")
    }
}
