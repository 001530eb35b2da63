import Foundation
#if canImport(Glibc)
import Glibc
#endif

extension TimeZone {
    /// The time zone local times are read in: the one the C library reads from `TZ` (else
    /// /etc/localtime), in which ``LocalTimeText`` prints them. Foundation's `.current` takes
    /// `TZ` only when it is a zone's name (`Europe/Paris`) and falls back to UTC for the other
    /// forms POSIX allows (`:Europe/Paris`, a path into the zone database, a rule such as
    /// `CET-1CEST,M3.5.0,M10.5.0/3`), so times typed and times shown disagreed by hours. A
    /// rule Foundation cannot hold becomes the offset the C library gives it now (exact for
    /// a rule without summer time; an hour off across a change for one with it).
    public static var process: TimeZone {
        guard let value = getenv("TZ") else { return .current }
        var name = String(cString: value)
        if name.hasPrefix(":") { name.removeFirst() }
        if name.hasPrefix("/"), let database = name.range(of: "/zoneinfo/") { name = String(name[database.upperBound...]) }
        if !name.isEmpty, let zone = TimeZone(identifier: name) { return zone }
        tzset()
        var now = time(nil)
        var parts = tm()
        guard localtime_r(&now, &parts) != nil, let zone = TimeZone(secondsFromGMT: Int(parts.tm_gmtoff)) else { return .current }
        return zone
    }
}
