#if canImport(Glibc)
import Glibc
#endif

/// Times and durations as a person reads them: in the local time zone (`TZ`, else
/// /etc/localtime), through libc. Shared by the terminal's listings and the archive's
/// Markdown, which show the same times the same way.
///
/// why not DateFormatter: making one loads ICU's calendar and locale data, about 1 M
/// instructions, once per note in a listing.
public enum LocalTimeText {
    /// `2026-12-02 10:07`.
    public static func minute(_ timestamp: Timestamp) -> String {
        guard let parts = local(timestamp) else { return "?" }
        let year = String(parts.tm_year + 1900)
        return String(repeating: "0", count: max(0, 4 - year.count)) + year + "-" + twoDigits(parts.tm_mon + 1) + "-"
            + twoDigits(parts.tm_mday) + " " + twoDigits(parts.tm_hour) + ":" + twoDigits(parts.tm_min)
    }

    /// `2026-12-02`: the local day.
    public static func day(_ timestamp: Timestamp) -> String {
        String(minute(timestamp).prefix(10))
    }

    /// `42.5%`, `49%`: progress to a tenth of a percent, as a person reads it (the record
    /// keeps every digit).
    public static func percent(_ value: Double) -> String {
        let tenths = (value * 10).rounded() / 10
        return tenths.rounded() == tenths ? "\(Int(tenths))%" : "\(tenths)%"
    }

    /// `+01:00`, `-05:00`, `+05:30`: local time's offset from UTC at `timestamp`.
    public static func offset(_ timestamp: Timestamp) -> String {
        guard let parts = local(timestamp) else { return "?" }
        let minutes = Int(parts.tm_gmtoff) / 60
        return (minutes < 0 ? "-" : "+") + twoDigits(Int32(abs(minutes) / 60)) + ":" + twoDigits(Int32(abs(minutes) % 60))
    }

    /// `1 h 30 min`, `45 min`, or `0 min`: whole minutes from `start` to `end`.
    public static func duration(from start: Timestamp, to end: Timestamp) -> String {
        duration(minutes: Int(max(0, end.millisecondsSince1970 - start.millisecondsSince1970) / 60_000))
    }

    /// `1 h 30 min`, `45 min`.
    public static func duration(minutes: Int) -> String {
        minutes >= 60 ? "\(minutes / 60) h \(minutes % 60) min" : "\(minutes) min"
    }

    /// The moment a local date and time names (another program's `2024-03-01 21:05:09`),
    /// in the same time zone the listings show; nil for a date that does not exist (the
    /// 31st of April) or a year outside 1..9999. A time skipped by a clock change reads as
    /// libc's `mktime` takes it.
    public static func timestamp(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) -> Timestamp? {
        guard (1...9999).contains(year), (1...12).contains(month), (1...31).contains(day), (0...23).contains(hour),
              (0...59).contains(minute), (0...60).contains(second) else { return nil }
        var parts = tm()
        (parts.tm_year, parts.tm_mon, parts.tm_mday) = (Int32(year - 1900), Int32(month - 1), Int32(day))
        (parts.tm_hour, parts.tm_min, parts.tm_sec, parts.tm_isdst) = (Int32(hour), Int32(minute), Int32(min(second, 59)), -1)
        let seconds = mktime(&parts)
        // mktime carries an impossible day into the next month: refused, not moved.
        guard seconds != -1 || parts.tm_year == 69, parts.tm_mday == Int32(day), parts.tm_mon == Int32(month - 1) else { return nil }
        return Timestamp(millisecondsSince1970: Int64(seconds) * 1000)
    }

    private static func local(_ timestamp: Timestamp) -> tm? {
        let milliseconds = timestamp.millisecondsSince1970
        var seconds = time_t(milliseconds / 1000 - (milliseconds % 1000 < 0 ? 1 : 0))
        var parts = tm()
        return localtime_r(&seconds, &parts) != nil ? parts : nil
    }

    private static func twoDigits(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
}
