/// A rating another program's file gives: taken only by a book the reader has not rated
/// here. A rating given here is the reader's word in this journal; the file's is older or
/// elsewhere, and importing it again must not overrule it.
public struct ImportedRatingPolicy: ConflictPolicy {
    public typealias Value = Double?

    public init() {}

    public func resolve(local: Side<Double?>, remote: Side<Double?>, divergence: Divergence) -> Resolution<Double?> {
        local.value == nil && remote.value != nil
            ? .winner(remote.value, why: "the book has no rating here")
            : .winner(local.value, why: "a rating given here stands")
    }
}
