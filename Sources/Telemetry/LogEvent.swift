/// One thing that happened: a level, a stable dotted name (`store.upgrade.finished`), and
/// typed fields. Names are part of the format: tests and readers search for them.
public struct LogEvent: Sendable {
    public let millisecondsSince1970: Int64
    public let level: LogLevel
    public let name: String
    public let fields: [(key: String, value: LogValue)]

    public init(millisecondsSince1970: Int64, level: LogLevel, name: String, fields: [(key: String, value: LogValue)]) {
        self.millisecondsSince1970 = millisecondsSince1970
        self.level = level
        self.name = name
        self.fields = fields
    }
}
