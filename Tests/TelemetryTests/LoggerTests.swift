import Foundation
import Testing
@testable import Telemetry

/// The logger: one threshold, every sink gets the same scrubbed line.
@Suite struct LoggerTests {
    @Test func eventsBelowTheThresholdAreDropped() {
        let logger = Logger()
        let sink = CollectingSink()
        logger.configure(threshold: .notice, sinks: [sink], scrubber: Scrubber(recentContent: RecentContent()))
        #expect(logger.threshold == .notice)
        logger.debug("a.debug")
        logger.info("a.info")
        logger.notice("a.notice")
        logger.warning("a.warning")
        logger.error("a.error")
        logger.log(.info, "b.info")
        logger.log(.error, "b.error")
        #expect(sink.lines.map { $0.components(separatedBy: " ")[2] } == ["a.notice", "a.warning", "a.error", "b.error"])
        #expect(sink.levels == [.notice, .warning, .error, .error])

        logger.configure(threshold: .debug, sinks: [sink], scrubber: Scrubber(recentContent: RecentContent()))
        logger.debug("c.debug")
        #expect(sink.lines.last?.contains(" debug c.debug") == true)
    }

    @Test func everySinkGetsTheSameScrubbedLine() {
        let logger = Logger()
        let first = CollectingSink(), second = CollectingSink()
        let recent = RecentContent()
        let decrypted = makeCanary("decrypted-")
        recent.remember(decrypted)
        logger.configure(threshold: .info, sinks: [first, second], scrubber: Scrubber(recentContent: recent))
        let secret = makeCanary()
        logger.info("journal.book.resolved", ["book": .text(secret), "wrongly": .public(decrypted), "candidates": 2])
        #expect(first.lines.count == 1)
        #expect(first.lines == second.lines)
        let line = first.lines[0]
        #expect(line.hasSuffix(" info journal.book.resolved book=<redacted> wrongly=<redacted> candidates=2"), "\(line)")
        #expect(!line.contains(secret) && !line.contains(decrypted))
        // The timestamp is ISO 8601 in UTC with milliseconds.
        #expect(line.range(of: #"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z "#, options: .regularExpression) != nil, "\(line)")
    }

    @Test func withNoSinksNothingIsRenderedAnywhere() {
        let logger = Logger()
        let sink = CollectingSink()
        logger.configure(threshold: .debug, sinks: [], scrubber: Scrubber(recentContent: RecentContent()))
        logger.error("x")
        logger.configure(threshold: .debug, sinks: [sink], scrubber: Scrubber(recentContent: RecentContent()))
        logger.error("y")
        #expect(sink.lines.count == 1)
    }

    @Test func levelsAreOrderedAndNamed() {
        #expect(LogLevel.allCases == [.debug, .info, .notice, .warning, .error])
        #expect(LogLevel.allCases.map(\.description) == ["debug", "info", "notice", "warning", "error"])
        #expect(LogLevel.debug < .info && LogLevel.warning < .error)
    }
}
