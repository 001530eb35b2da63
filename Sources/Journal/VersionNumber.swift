/// The version number every book, note and quote carries: 1 when it is made, one more at
/// every change. A number read from outside (an archive, another device) must lie in
/// ``range``, and a change past its end fails with an error: no stored number can grow into
/// an arithmetic trap, on this device or on any device it syncs with.
public enum VersionNumber {
    /// 1 ... 2^53 − 1 (9,007,199,254,740,991): exact in every JSON reader, JavaScript's
    /// included, and far more changes than a record will ever see.
    public static let range: ClosedRange<Int64> = 1...9_007_199_254_740_991

    /// The version after `current`.
    public static func next(after current: Int64) throws(JournalError) -> Int64 {
        guard range.contains(current), current < range.upperBound else { throw .versionOutOfRange }
        return current + 1
    }
}
