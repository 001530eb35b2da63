/// The time budget of one keystore operation (one `store`, `lookup` or `remove`): every
/// wait on the bus inside the operation counts against it, so the operation as a whole,
/// not each call, is bounded. A provider that owns the bus name but never answers costs
/// at most the timeout.
struct Deadline {
    let timeoutMilliseconds: Int
    private let end: ContinuousClock.Instant

    init(timeoutMilliseconds: Int) {
        self.timeoutMilliseconds = timeoutMilliseconds
        end = ContinuousClock.now + .milliseconds(timeoutMilliseconds)
    }

    /// Milliseconds left for `poll`, rounded up so a wait never ends early; throws
    /// `.timedOut` once none are left.
    func remainingMilliseconds() throws(KeystoreError) -> Int32 {
        let left = ContinuousClock.now.duration(to: end)
        guard left > .zero else { throw .timedOut(milliseconds: timeoutMilliseconds) }
        let (seconds, attoseconds) = left.components
        let milliseconds = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int32(clamping: max(1, milliseconds))
    }
}
