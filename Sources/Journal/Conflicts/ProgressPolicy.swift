/// How far through a book the reader is. Readers rarely go back on purpose, so the furthest
/// position wins, unless a device recorded an explicit move backwards (`progress --rewind`):
/// a rewind wins over every position recorded before it, and a position recorded after it
/// competes with it again (the further wins; of two equal, the later).
///
/// Every device keeps, besides the position it shows, what a later rewind from elsewhere
/// could still leave standing (``Positions``), so two devices that have seen the same
/// positions show the same one whatever order they came in.
public struct ProgressPolicy: ConflictPolicy {
    /// One recorded position: where, and when (its clock says by which device).
    public struct Mark: Hashable, Sendable {
        public let percent: Double
        public let clock: HybridTimestamp

        public init(percent: Double, clock: HybridTimestamp) {
            self.percent = percent
            self.clock = clock
        }
    }

    /// A book's recorded positions, as much of them as can still matter: the newest rewind,
    /// and the plain positions recorded after it, each further than every one after it (a
    /// position with a further one after it can never win: any rewind that leaves it
    /// standing leaves the further one too).
    public struct Positions: Hashable, Sendable {
        public private(set) var rewind: Mark?
        /// Oldest first; percents fall as clocks rise.
        public private(set) var plain: [Mark]

        /// The single position of a book, as every bmvault before 0.6 recorded it.
        public init(percent: Double, isRewind: Bool, clock: HybridTimestamp) {
            let mark = Mark(percent: percent, clock: clock)
            rewind = isRewind ? mark : nil
            plain = isRewind ? [] : [mark]
        }

        init(rewind: Mark?, plain: [Mark]) {
            self.rewind = rewind
            self.plain = Self.standing(plain.filter { mark in rewind.map { mark.clock > $0.clock } ?? true })
        }

        /// The position shown: the furthest plain position recorded after the rewind, or the
        /// rewind when it is further (a plain one as far is later, so it is shown).
        public var current: (percent: Double, isRewind: Bool, clock: HybridTimestamp) {
            if let furthest = plain.first, rewind.map({ furthest.percent >= $0.percent }) ?? true {
                return (furthest.percent, false, furthest.clock)
            }
            guard let rewind else { preconditionFailure("a book has at least one recorded position") }
            return (rewind.percent, true, rewind.clock)
        }

        /// A position recorded here. A rewind leaves nothing before it; a plain position,
        /// never behind the current one (the Store refuses that), leaves nothing else.
        public func recording(_ percent: Double, rewind isRewind: Bool, at clock: HybridTimestamp) -> Positions {
            let mark = Mark(percent: percent, clock: clock)
            return isRewind ? Positions(rewind: mark, plain: []) : Positions(rewind: rewind, plain: plain + [mark])
        }

        /// Everything recorded on either side: the newer rewind, and the plain positions after
        /// it that can still matter. Commutative, associative and idempotent.
        public func joined(with other: Positions) -> Positions {
            let rewinds = [rewind, other.rewind].compactMap { $0 }
            return Positions(rewind: rewinds.max { $0.clock < $1.clock }, plain: plain + other.plain)
        }

        /// The marks that can still matter, oldest first: each further than every later one.
        private static func standing(_ marks: [Mark]) -> [Mark] {
            var kept: [Mark] = []
            for mark in Set(marks).sorted(by: { $0.clock > $1.clock }) where kept.last.map({ mark.percent > $0.percent }) ?? true {
                kept.append(mark)
            }
            return kept.reversed()
        }

        /// The stored and transmitted form: `R@<clock>=<percent>` for the rewind, then
        /// `P@<clock>=<percent>` for each plain position, comma-separated.
        public var text: String {
            (rewind.map { ["R@\($0.clock)=\($0.percent)"] } ?? []).joined(separator: ",")
                + (rewind != nil && !plain.isEmpty ? "," : "")
                + plain.map { "P@\($0.clock)=\($0.percent)" }.joined(separator: ",")
        }

        /// Parses ``text``; refuses a text with no position, two rewinds, or a percent out of range.
        public init(parsing text: String) throws(JournalError) {
            var rewind: Mark?
            var plain: [Mark] = []
            for part in text.split(separator: ",") {
                let pieces = part.split(separator: "=", maxSplits: 1)
                guard pieces.count == 2, pieces[0].count > 2, let percent = Double(pieces[1]) else { throw .invalidClock }
                let mark = Mark(percent: try Book.checkedProgress(percent),
                                clock: try HybridTimestamp(parsing: String(pieces[0].dropFirst(2))))
                switch pieces[0].prefix(2) {
                case "R@" where rewind == nil: rewind = mark
                case "P@": plain.append(mark)
                default: throw .invalidClock
                }
            }
            guard rewind != nil || !plain.isEmpty else { throw .invalidClock }
            self.init(rewind: rewind, plain: plain)
        }
    }

    public typealias Value = Positions

    public init() {}

    /// Both sides' positions, joined: the clocks inside them decide, not the sides' own.
    public func resolve(local: Side<Positions>, remote: Side<Positions>, divergence: Divergence) -> Resolution<Positions> {
        let joined = local.value.joined(with: remote.value)
        let why = joined.current.isRewind ? "an explicit rewind wins over the positions recorded before it"
                                          : "the furthest position recorded since the last rewind wins"
        return .winner(joined, why: why)
    }
}
