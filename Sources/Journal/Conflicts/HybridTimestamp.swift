/// A hybrid logical clock reading (Kulkarni et al.): wall-clock milliseconds, a counter for
/// events in the same millisecond or behind a clock that ran ahead, and the device id as the
/// final tie-break. Two readings from different devices are never equal, so "last writer
/// wins" always names exactly one writer, even when the devices' clocks disagree.
public struct HybridTimestamp: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let wallMilliseconds: Int64
    public let counter: UInt32
    public let deviceID: String

    public init(wallMilliseconds: Int64, counter: UInt32, deviceID: String) {
        self.wallMilliseconds = wallMilliseconds
        self.counter = counter
        self.deviceID = deviceID
    }

    public static func < (lhs: HybridTimestamp, rhs: HybridTimestamp) -> Bool {
        (lhs.wallMilliseconds, lhs.counter, lhs.deviceID) < (rhs.wallMilliseconds, rhs.counter, rhs.deviceID)
    }

    /// The reading before every other: the clock of a change made before clocks were kept
    /// for its kind of record (a session recorded before schema v9), older than any change.
    public static let origin = HybridTimestamp(wallMilliseconds: 0, counter: 0, deviceID: "0")

    /// The latest wall-clock reading accepted from anywhere: 9999-12-31T23:59:59.999Z, the
    /// last time ISO 8601 writes with four digits. A reading parsed from outside beyond it is
    /// refused, so a hostile clock cannot bring the arithmetic below to its end.
    public static let latestWallMilliseconds: Int64 = 253_402_300_799_999

    /// The reading for a local event: after both the wall clock and every reading seen so far.
    /// A counter at its maximum carries into the next millisecond, which still sorts after.
    public static func next(after last: HybridTimestamp?, now: Timestamp, deviceID: String) -> HybridTimestamp {
        guard let last, last.wallMilliseconds >= now.millisecondsSince1970 else {
            return HybridTimestamp(wallMilliseconds: now.millisecondsSince1970, counter: 0, deviceID: deviceID)
        }
        guard last.counter < UInt32.max else {
            return HybridTimestamp(wallMilliseconds: last.wallMilliseconds + 1, counter: 0, deviceID: deviceID)
        }
        return HybridTimestamp(wallMilliseconds: last.wallMilliseconds, counter: last.counter + 1, deviceID: deviceID)
    }

    /// `0000019a2b3c4d5e-00000003-<device>`: sorts as text in the same order as the value,
    /// so it can be stored in a TEXT column and compared by SQLite.
    /// Written digit by digit into one buffer: every write stamps one or more of these.
    public var description: String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(26 + deviceID.utf8.count)
        Self.appendHex(UInt64(bitPattern: wallMilliseconds), digits: 16, to: &bytes)
        bytes.append(UInt8(ascii: "-"))
        Self.appendHex(UInt64(counter), digits: 8, to: &bytes)
        bytes.append(UInt8(ascii: "-"))
        bytes.append(contentsOf: deviceID.utf8)
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func appendHex(_ value: UInt64, digits: Int, to out: inout [UInt8]) {
        for shift in stride(from: (digits - 1) * 4, through: 0, by: -4) {
            let digit = UInt8((value >> UInt64(shift)) & 0xF)
            out.append(digit < 10 ? UInt8(ascii: "0") + digit : UInt8(ascii: "a") + digit - 10)
        }
    }

    /// Parses ``description``.
    public init(parsing text: String) throws(JournalError) {
        let parts = text.split(separator: "-", maxSplits: 2)
        guard parts.count == 3, parts[0].count == 16, parts[1].count == 8,
              let wall = UInt64(parts[0], radix: 16), let counter = UInt32(parts[1], radix: 16), !parts[2].isEmpty,
              wall <= UInt64(Self.latestWallMilliseconds) else {
            throw .invalidClock
        }
        self.init(wallMilliseconds: Int64(bitPattern: wall), counter: counter, deviceID: String(parts[2]))
    }
}
