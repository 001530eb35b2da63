/// A book's rating: one opinion, given again when it changes, so the last one given wins,
/// by its own clock (a retitle or a position elsewhere never undoes it). Taking a rating
/// away is a change like any other.
public struct RatingPolicy: ConflictPolicy {
    public typealias Value = Double?

    public init() {}

    public func resolve(local: Side<Double?>, remote: Side<Double?>, divergence: Divergence) -> Resolution<Double?> {
        remote.clock > local.clock
            ? .winner(remote.value, why: "remote was rated last")
            : .winner(local.value, why: "local was rated last")
    }
}
