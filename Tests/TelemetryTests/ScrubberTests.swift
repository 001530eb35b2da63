import Foundation
import Testing
@testable import Telemetry

/// The scrubber renders an event to one line: numbers, booleans and public text as they
/// are, private text redacted (or tagged), names kept to safe characters, and then the
/// backstop removes any text this process decrypted lately.
@Suite struct ScrubberTests {
    private func scrubber(tagger: (@Sendable (String) -> String)? = nil, bypassed: Bool = false) -> (Scrubber, RecentContent) {
        let recent = RecentContent()
        return (Scrubber(tagger: tagger, recentContent: recent, bypassed: bypassed), recent)
    }

    @Test func numbersBooleansAndPublicTextAreWrittenAsTheyAre() {
        let (scrubber, _) = scrubber()
        let line = scrubber.line(for: event("store.upgrade.finished", ["from": 1, "to": .integer(2), "ratio": .number(0.5),
                                                                       "ok": true, "failed": false, "command": .public("list")]))
        #expect(line == "\(epoch) notice store.upgrade.finished from=1 to=2 ratio=0.5 ok=true failed=false command=list")
        #expect(scrubber.line(for: event("x", ["n": .number(.infinity), "m": .number(.nan)])) == "\(epoch) notice x n=null m=null")
        #expect(scrubber.line(for: event("x", level: .debug)) == "\(epoch) debug x")
    }

    @Test func publicTextIsOneQuotedTokenWithControlCharactersEscaped() {
        let (scrubber, _) = scrubber()
        #expect(scrubber.render(.public("book add")) == "\"book add\"")
        #expect(scrubber.render(.public("")) == "\"\"")
        #expect(scrubber.render(.public("a=b")) == "\"a=b\"")
        #expect(scrubber.render(.public(#"say "hi""#)) == #""say \"hi\"""#)
        #expect(scrubber.render(.public(#"back\slash"#)) == #"back\\slash"#)
        #expect(scrubber.render(.public("tab\tand\u{1b}[31m")) == #"tab\u{9}and\u{1b}[31m"#)
        // A newline cannot start a forged line of its own.
        let line = scrubber.line(for: event("cli.command.failed", ["error": .public("x\n2026-01-01T00:00:00.000Z error forged")]))
        #expect(!line.contains("\n"))
        #expect(line.hasSuffix(#"error="x\u{a}2026-01-01T00:00:00.000Z error forged""#), "\(line)")
    }

    @Test func privateTextIsRedacted() {
        let (scrubber, _) = scrubber()
        let secret = makeCanary()
        let line = scrubber.line(for: event("journal.book.resolved", ["book": .text(secret), "candidates": 3]))
        #expect(line == "\(epoch) notice journal.book.resolved book=<redacted> candidates=3")
        #expect(scrubber.render(.text(Sensitive(""))) == "<redacted>")
    }

    @Test func withATaggerPrivateTextBecomesAShortTagTheSameForTheSameText() {
        // A stand-in for LogTagger (VaultCrypto): deterministic, keyed, eight hex digits.
        let tagger: @Sendable (String) -> String = { text in
            var hash: UInt32 = 0x811c_9dc5 ^ 0x5eed
            for byte in text.utf8 { hash = (hash ^ UInt32(byte)) &* 0x0100_0193 }
            return String(format: "%08x", hash)
        }
        let (scrubber, _) = scrubber(tagger: tagger)
        let title = makeCanary("title-")
        let first = scrubber.line(for: event("journal.book.resolved", ["book": .text(title)]))
        let second = scrubber.line(for: event("journal.book.resolved", ["book": .text(title)]))
        let other = scrubber.line(for: event("journal.book.resolved", ["book": .text(makeCanary("other-"))]))
        #expect(first == "\(epoch) notice journal.book.resolved book=<redacted:\(tagger(title))>")
        #expect(first.range(of: #"book=<redacted:[0-9a-f]{8}>$"#, options: .regularExpression) != nil)
        #expect(first == second)
        #expect(first != other)
        #expect(!first.contains(title))
    }

    @Test func theLoggerTaggerCanBeSetAfterConfiguration() {
        let logger = Logger()
        let sink = CollectingSink()
        logger.configure(threshold: .debug, sinks: [sink], scrubber: Scrubber(recentContent: RecentContent()))
        logger.debug("journal.book.resolved", ["book": .text("Emma")])
        logger.setTagger { _ in "0123abcd" }
        logger.debug("journal.book.resolved", ["book": .text("Emma")])
        logger.setTagger(nil)
        logger.debug("journal.book.resolved", ["book": .text("Emma")])
        #expect(sink.lines.map { $0.components(separatedBy: " ").last } == ["book=<redacted>", "book=<redacted:0123abcd>", "book=<redacted>"])
    }

    @Test func eventAndFieldNamesAreRestrictedToSafeCharacters() {
        let (scrubber, _) = scrubber()
        #expect(Scrubber.safeName("store.upgrade_finished-2") == "store.upgrade_finished-2")
        #expect(Scrubber.safeName("a b=c\n\"d\"") == "a_b_c__d_")
        #expect(Scrubber.safeName("café") == "caf_")
        #expect(Scrubber.safeName("ｅｖｉｌ") == "____")   // full-width letters are not ASCII
        let line = scrubber.line(for: event("evil\nname", ["k ey=v": .public("x"), "ok": true]))
        #expect(line == "\(epoch) notice evil_name k_ey_v=x ok=true")
    }

    @Test func theBackstopRemovesRememberedContentEvenFromPublicFields() {
        let (scrubber, recent) = scrubber()
        let decrypted = makeCanary("note-")
        recent.remember(decrypted)
        // A call site that wrongly marks decrypted text public:
        let line = scrubber.line(for: event("journal.note.saved", ["body": .public(decrypted), "prefix": .public("x \(decrypted) y")]))
        #expect(!line.contains(decrypted), "\(line)")
        #expect(line == "\(epoch) notice journal.note.saved body=<redacted> prefix=\"x <redacted> y\"")
        // Even in an event or field name (a name built from content).
        let named = scrubber.line(for: event("book.\(decrypted)", [decrypted: 1]))
        #expect(!named.contains(decrypted), "\(named)")
        // Text not remembered is left alone.
        #expect(scrubber.line(for: event("x", ["state": .public("pending")])).hasSuffix("state=pending"))
    }

    @Test func valuesShorterThanFourBytesAreNotRemembered() {
        let (scrubber, recent) = scrubber()
        for short in ["a", "of", "the"] { recent.remember(short) }
        recent.remember("Emma")                     // four bytes: remembered
        recent.remember("né")                        // three bytes in UTF-8: not
        let line = scrubber.line(for: event("x", ["a": .public("the theme of né"), "b": .public("Emma")]))
        #expect(line == "\(epoch) notice x a=\"the theme of né\" b=<redacted>")
    }

    @Test func bypassedWritesPrivateTextRawAndSkipsTheBackstop() {
        let (scrubber, recent) = scrubber(tagger: { _ in "0123abcd" }, bypassed: true)
        let secret = makeCanary()
        recent.remember(secret)
        let line = scrubber.line(for: event("journal.book.resolved", ["book": .text("title \(secret)"), "also": .public(secret)]))
        #expect(line == "\(epoch) notice journal.book.resolved book=\"title \(secret)\" also=\(secret)")
        // The same scrubber not bypassed: nothing of it.
        let (normal, normalRecent) = self.scrubber(tagger: { _ in "0123abcd" })
        normalRecent.remember(secret)
        let scrubbed = normal.line(for: event("journal.book.resolved", ["book": .text("title \(secret)"), "also": .public(secret)]))
        #expect(scrubbed == "\(epoch) notice journal.book.resolved book=<redacted:0123abcd> also=<redacted>")
    }

    /// A decrypted note with a line break, a quote or a backslash, wrongly logged as
    /// `.public`, is escaped by ``Scrubber/quoted(_:)``; the backstop must still find it, so it
    /// also runs on each public value before quoting.
    @Test func theBackstopAlsoCatchesContentThatQuotingEscaped() {
        let (scrubber, recent) = scrubber()
        let canary = makeCanary()
        let notes = ["first line \(canary)\nsecond line", "she said \"\(canary)\"", "a\\b \(canary)", "tab\there \(canary)"]
        for note in notes {
            recent.remember(note)
        }
        for note in notes {
            let line = scrubber.line(for: event("journal.note.saved", ["body": .public(note)]))
            #expect(!line.contains(canary), "\(line)")
        }
    }
}

/// Log and report timestamps, against Foundation's formatter they replaced (from the
/// Gregorian reform of 1582 on: before it Foundation switches to the Julian calendar).
@Suite struct TimestampTextTests {
    @Test(arguments: [Int64(0), 1, 999, 1_000, -1, -999, -1_000, -1_001, 951_782_400_000, 1_709_164_800_123,
                      1_796_160_000_000, 253_402_300_799_999, -12_219_292_800_000])
    func matchesISO8601DateFormatter(milliseconds: Int64) {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let expected = formatter.string(from: Date(timeIntervalSince1970: Double(milliseconds) / 1000))
        #expect(Scrubber.iso8601(milliseconds) == expected)
    }
}
