/// How far through a book the reader is. Readers rarely go back on purpose, so the furthest
/// position wins, unless a device recorded an explicit move backwards (`progress --rewind`):
/// a rewind wins over any position recorded before it. A move made here after this device
/// took the other's position is not a conflict at all: the newer position is simply taken,
/// wherever it is (the seed's row (c): local clean, remote newer → remote wins).
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
        if !divergence.localChanged {
            return .winner(remote.value, why: "a later move on another device, nothing new here")
        }
        if !divergence.remoteChanged {
            return .winner(local.value, why: "a later move here, nothing new on the other device")
        }
        let newer = remote.clock > local.clock ? remote : local
        if newer.value.isRewind {
            return .winner(newer.value, why: "an explicit rewind wins over older positions")
        }
        return .winner(remote.value.percent > local.value.percent ? remote.value : local.value, why: "the furthest position wins")
    }
}
