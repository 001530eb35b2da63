import Foundation
#if canImport(Glibc)
import Glibc
#endif

extension TimeZone {
    /// The time zone local times are read in: the one the C library reads from `TZ` (else
    /// /etc/localtime), in which ``LocalTimeText`` prints them. Foundation's `.current` takes
    /// `TZ` only when it is a zone's name (`Europe/Paris`) and falls back to UTC for the other
    /// forms POSIX allows (`:Europe/Paris`, a path into the zone database, a rule such as
    /// `CET-1CEST,M3.5.0,M10.5.0/3`), so times typed and times shown disagreed by hours.
    /// Whatever Foundation makes of it is checked against the C library's offset now; where
    /// they differ (a rule Foundation cannot hold, a name the two read apart), the C
    /// library's offset now is taken: exact for a zone without summer time, an hour off
    /// across a clock change for one with it. Read once per process: `TZ` does not change.
    public static let process: TimeZone = {
        tzset()
        var now = time(nil)
        var parts = tm()
        guard localtime_r(&now, &parts) != nil else { return .current }
        let offset = Int(parts.tm_gmtoff), moment = Date(timeIntervalSince1970: TimeInterval(now))
        var name = getenv("TZ").map { String(cString: $0) }
        if name?.hasPrefix(":") == true { name?.removeFirst() }
        if let path = name, path.hasPrefix("/"), let database = path.range(of: "/zoneinfo/") { name = String(path[database.upperBound...]) }
        let named = name.map { $0.isEmpty ? nil : TimeZone(identifier: $0) } ?? .current
        if let named, named.secondsFromGMT(for: moment) == offset { return named }
        return TimeZone(secondsFromGMT: offset) ?? .current
    }()
}
