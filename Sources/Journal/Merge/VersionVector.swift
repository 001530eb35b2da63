/// Which versions of one record a version has seen: for each device that ever wrote the
/// record, the clock of the latest of its versions that is included.
///
/// Every write supersedes all the versions its device holds of the record, so a device's
/// versions are included up to a clock, with no gaps, and one clock per device says
/// exactly what was seen (a version vector whose entries are hybrid logical clocks rather
/// than counters). Two versions neither of which includes the other were written
/// concurrently: that is what a conflict is.
public struct VersionVector: Hashable, Sendable, CustomStringConvertible {
    /// One clock per device, sorted by device id.
    public private(set) var clocks: [HybridTimestamp]

    /// The history of a version that supersedes nothing.
    public init(_ clock: HybridTimestamp) {
        clocks = [clock]
    }

    public init<Clocks: Sequence>(_ clocks: Clocks) where Clocks.Element == HybridTimestamp {
        self.clocks = []
        for clock in clocks { insert(clock) }
    }

    /// Whether the version written at `clock` is in this history.
    public func includes(_ clock: HybridTimestamp) -> Bool {
        guard let entry = clocks.first(where: { $0.deviceID == clock.deviceID }) else { return false }
        return entry >= clock
    }

    /// Adds the version written at `clock` (and, by the rule above, its device's earlier ones).
    public mutating func insert(_ clock: HybridTimestamp) {
        if let index = clocks.firstIndex(where: { $0.deviceID == clock.deviceID }) {
            if clocks[index] < clock { clocks[index] = clock }
            return
        }
        let index = clocks.firstIndex { $0.deviceID > clock.deviceID } ?? clocks.endIndex
        clocks.insert(clock, at: index)
    }

    public mutating func formUnion(_ other: VersionVector) {
        for clock in other.clocks { insert(clock) }
    }

    public func union(_ other: VersionVector) -> VersionVector {
        var result = self
        result.formUnion(other)
        return result
    }

    /// The clocks, comma-separated in device order: the stored and the transmitted form.
    public var description: String {
        clocks.map(\.description).joined(separator: ",")
    }

    /// Parses ``description``. Refuses an empty text and two clocks of one device.
    public init(parsing text: String) throws(JournalError) {
        var clocks: [HybridTimestamp] = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            clocks.append(try HybridTimestamp(parsing: String(part)))
        }
        guard !clocks.isEmpty, Set(clocks.map(\.deviceID)).count == clocks.count else { throw .invalidClock }
        self.init(clocks)
    }
}
