/// How far through a book the reader is. Readers rarely go back on purpose, so the furthest
/// position wins, unless a device recorded an explicit move backwards (`progress --rewind`):
/// a rewind wins over any position recorded before it. A plain position never moves back
/// (the Store refuses one without `--rewind`), so without rewinds this is a maximum, the
/// same whatever order the devices meet in.
public struct ProgressPolicy: ConflictPolicy {
    /// A position, and whether it was set as an explicit rewind.
    public struct Position: Sendable, Equatable {
        public let percent: Double
        public let isRewind: Bool

        public init(percent: Double, isRewind: Bool) {
            self.percent = percent
            self.isRewind = isRewind
        }
    }

    public typealias Value = Position

    public init() {}

    public func resolve(local: Side<Position>, remote: Side<Position>, divergence: Divergence) -> Resolution<Position> {
        let newer = remote.clock > local.clock ? remote : local
        if newer.value.isRewind {
            return .winner(newer.value, why: "an explicit rewind wins over older positions")
        }
        if remote.value.percent == local.value.percent {
            // The same place, one of them marked a rewind: the newer says which, on every device.
            return .winner(newer.value, why: "the same position; the newer record of it")
        }
        return .winner(remote.value.percent > local.value.percent ? remote.value : local.value, why: "the furthest position wins")
    }
}
