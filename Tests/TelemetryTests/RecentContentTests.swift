import Foundation
import Testing
@testable import Telemetry

/// The backstop's memory: bounded, and safe to use from many threads at once.
@Suite struct RecentContentTests {
    @Test func itRemembersAndScrubsEveryOccurrence() {
        let recent = RecentContent()
        recent.remember("Солярис")
        #expect(recent.scrub("a Солярис b Солярис") == "a <redacted> b <redacted>")
        recent.forget()
        #expect(recent.scrub("a Солярис") == "a Солярис")
    }

    /// Bytes, not characters: overlapping and adjacent occurrences, a value at either end,
    /// text in other scripts, and a line that only almost holds the value.
    @Test func itFindsEveryOccurrenceAsBytes() {
        let recent = RecentContent()
        recent.remember("aaaa")
        recent.remember("Война и мир 📚")
        #expect(recent.scrub("aaaaaaaaa") == "<redacted><redacted>a")
        #expect(recent.scrub("aaa") == "aaa")
        #expect(recent.scrub("Война и мир 📚 x Война и мир 📚") == "<redacted> x <redacted>")
        #expect(recent.scrub("Война и мир 📖") == "Война и мир 📖")
        #expect(recent.scrub("") == "")
    }

    @Test func itIsBoundedToItsCapacityAndForgetsTheOldestFirst() {
        let recent = RecentContent()
        let capacity = RecentContent.capacity
        #expect(capacity == 4096)
        func value(_ index: Int) -> String { "value-" + String(format: "%05d", index) }
        for index in 0..<capacity { recent.remember(value(index)) }
        #expect(recent.scrub(value(0)) == "<redacted>")
        #expect(recent.scrub(value(capacity - 1)) == "<redacted>")
        // One more: the oldest goes, the rest stay.
        recent.remember(value(capacity))
        #expect(recent.scrub(value(0)) == value(0))
        #expect(recent.scrub(value(1)) == "<redacted>")
        #expect(recent.scrub(value(capacity)) == "<redacted>")
        // A whole second round: only the newest `capacity` are kept.
        for index in (capacity + 1)..<(2 * capacity + 10) { recent.remember(value(index)) }
        #expect(recent.scrub(value(capacity + 9)) == value(capacity + 9))
        #expect(recent.scrub(value(capacity + 10)) == "<redacted>")
        #expect(recent.scrub(value(2 * capacity + 9)) == "<redacted>")
    }

    @Test func concurrentRememberingAndScrubbingLosesNothing() async {
        let recent = RecentContent()
        let writers = 8, perWriter = 100
        await withTaskGroup(of: Void.self) { group in
            for writer in 0..<writers {
                group.addTask {
                    for index in 0..<perWriter {
                        let value = "writer-\(writer)-value-\(index)-BMV"
                        recent.remember(value)
                        // A reader racing the writers sees its own value already remembered.
                        let scrubbed = recent.scrub("x \(value) y")
                        if scrubbed != "x <redacted> y" { Issue.record("not yet remembered: \(scrubbed)") }
                    }
                }
                group.addTask {
                    for _ in 0..<perWriter { _ = recent.scrub("an unrelated line, writer \(writer)") }
                }
            }
        }
        for writer in 0..<writers {
            for index in 0..<perWriter {
                let value = "writer-\(writer)-value-\(index)-BMV"
                #expect(recent.scrub(value) == "<redacted>", "lost \(value)")
            }
        }
    }

    @Test func theSharedMemoryIsWhatTheDefaultScrubberUses() {
        // RecordCipher remembers into `.shared`; a Scrubber() made without arguments reads it.
        let value = makeCanary("shared-")
        RecentContent.shared.remember(value)
        let line = Scrubber().line(for: event("x", ["v": .public(value)]))
        #expect(line == "\(epoch) notice x v=<redacted>")
    }
}
