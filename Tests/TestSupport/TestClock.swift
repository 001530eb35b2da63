import Synchronization
public import Journal

/// A clock that says what the test tells it to, and moves only when told.
public final class TestClock: Journal.Clock {
    public static let start: Int64 = 1_767_225_600_000 // 2026-01-01T00:00:00Z

    private let milliseconds: Mutex<Int64>

    public init(_ start: Int64 = TestClock.start) {
        milliseconds = Mutex(start)
    }

    public func now() -> Timestamp {
        Timestamp(millisecondsSince1970: milliseconds.withLock { $0 })
    }

    public func advance(milliseconds delta: Int64) {
        milliseconds.withLock { $0 += delta }
    }

    public func advance(seconds: Int64) {
        advance(milliseconds: seconds * 1000)
    }
}
