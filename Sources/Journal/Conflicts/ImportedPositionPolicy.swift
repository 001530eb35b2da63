/// A position another program's file gives (KOReader's percent finished): it only moves a
/// book forward. The file says where the reader stood when it was written, not when; a
/// position here further on is the newer one, and a file imported again must not undo it.
public struct ImportedPositionPolicy: ConflictPolicy {
    public typealias Value = Double

    public init() {}

    public func resolve(local: Side<Double>, remote: Side<Double>, divergence: Divergence) -> Resolution<Double> {
        remote.value > local.value
            ? .winner(remote.value, why: "the imported position is further on")
            : .winner(local.value, why: "a position is never moved back by an import")
    }
}
