#if canImport(Glibc)
import Glibc
#endif

/// Where "now" comes from, so tests can fix it.
public protocol Clock: Sendable {
    func now() -> Timestamp
}

/// The system's real-time clock.
public struct SystemClock: Clock {
    public init() {}

    public func now() -> Timestamp {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Timestamp(millisecondsSince1970: Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000)
    }
}
