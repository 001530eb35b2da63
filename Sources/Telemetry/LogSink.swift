/// Where scrubbed log lines go.
public protocol LogSink: Sendable {
    func write(_ line: String, level: LogLevel)
}
