import Foundation
import Synchronization

/// The one logging facility of bmvault.
///
/// Call sites name an event and give typed fields; every string is private unless declared
/// `.public` right there (the swift-log SLG-0004 / os_log idea). The ``Scrubber`` renders
/// each event to one line before any sink sees it, so no sink can leak what a call site
/// marked private, and its backstop removes recently decrypted text even if a call site
/// got it wrong.
public final class Logger: Sendable {
    /// The process-wide logger. Until ``configure(threshold:sinks:scrubber:)`` runs, events
    /// go nowhere (library code and unit tests log into the void).
    public static let shared = Logger()

    private struct State {
        var threshold: LogLevel = .notice
        var sinks: [any LogSink] = []
        var scrubber = Scrubber()
    }

    private let state = Mutex(State())

    public init() {}

    /// Sets where events go and from which level up.
    public func configure(threshold: LogLevel, sinks: [any LogSink], scrubber: Scrubber = Scrubber()) {
        state.withLock { $0 = State(threshold: threshold, sinks: sinks, scrubber: scrubber) }
    }

    /// Lets private values appear as short tags keyed to the open vault.
    public func setTagger(_ tagger: (@Sendable (String) -> String)?) {
        state.withLock { $0.scrubber.tagger = tagger }
    }

    public var threshold: LogLevel { state.withLock { $0.threshold } }

    public func log(_ level: LogLevel, _ name: String, _ fields: KeyValuePairs<String, LogValue> = [:]) {
        let (threshold, sinks, scrubber) = state.withLock { ($0.threshold, $0.sinks, $0.scrubber) }
        guard level >= threshold, !sinks.isEmpty else { return }
        let event = LogEvent(millisecondsSince1970: Int64((Date().timeIntervalSince1970 * 1000).rounded()), level: level, name: name,
                             fields: fields.map { (key: $0.key, value: $0.value) })
        let line = scrubber.line(for: event)
        for sink in sinks { sink.write(line, level: level) }
    }

    public func debug(_ name: String, _ fields: KeyValuePairs<String, LogValue> = [:]) { log(.debug, name, fields) }
    public func info(_ name: String, _ fields: KeyValuePairs<String, LogValue> = [:]) { log(.info, name, fields) }
    public func notice(_ name: String, _ fields: KeyValuePairs<String, LogValue> = [:]) { log(.notice, name, fields) }
    public func warning(_ name: String, _ fields: KeyValuePairs<String, LogValue> = [:]) { log(.warning, name, fields) }
    public func error(_ name: String, _ fields: KeyValuePairs<String, LogValue> = [:]) { log(.error, name, fields) }
}

/// The logger every module uses: `log.notice("store.opened", ["schemaVersion": .integer(2)])`.
public let log = Logger.shared
