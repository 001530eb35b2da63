/// How much a log event matters. The log file records `notice` and above by default;
/// `--verbose` lowers the threshold to `info`, `--debug` to `debug`. The level changes how
/// many events are written, never what an event may contain.
public enum LogLevel: Int, Comparable, Sendable, CaseIterable, CustomStringConvertible {
    case debug
    case info
    case notice
    case warning
    case error

    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String {
        switch self {
        case .debug: "debug"
        case .info: "info"
        case .notice: "notice"
        case .warning: "warning"
        case .error: "error"
        }
    }
}
