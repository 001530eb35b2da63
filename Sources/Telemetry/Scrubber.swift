import Foundation

/// Turns an event into one line of text, letting through only what may be written:
/// numbers, booleans and public text as they are, private text as `<redacted>` (or a short
/// keyed tag), and then, as a backstop, removing any text this process decrypted lately.
public struct Scrubber: Sendable {
    /// Makes a short tag for a private value, keyed per vault, so two log lines can be seen
    /// to be about the same record without saying what it is. `nil`: plain `<redacted>`.
    public var tagger: (@Sendable (String) -> String)?
    let recentContent: RecentContent
    /// Test-only (`BMVAULT_TEST_UNSCRUBBED=1`): writes private text as it is and skips the
    /// backstop, so the canary sweep can prove it would catch a leak. Never set in normal use.
    let bypassed: Bool

    public init(tagger: (@Sendable (String) -> String)? = nil, recentContent: RecentContent = .shared, bypassed: Bool = false) {
        self.tagger = tagger
        self.recentContent = recentContent
        self.bypassed = bypassed
    }

    /// `2026-12-02T10:07:46.123Z notice store.opened schemaVersion=2 path=<redacted>`.
    public func line(for event: LogEvent) -> String {
        var line = Self.iso8601(event.millisecondsSince1970) + " " + event.level.description + " " + Self.safeName(event.name)
        for (key, value) in event.fields {
            line += " " + Self.safeName(key) + "=" + render(value)
        }
        return bypassed ? line : recentContent.scrub(line)
    }

    func render(_ value: LogValue) -> String {
        switch value {
        case .integer(let number): String(number)
        case .number(let number): number.isFinite ? String(number) : "null"
        case .boolean(let flag): flag ? "true" : "false"
        // The backstop runs before quoting too: escaping would hide a line break or quote
        // inside decrypted text from the whole-line pass.
        case .public(let text): Self.quoted(bypassed ? text : recentContent.scrub(text))
        case .text(let sensitive) where bypassed: Self.quoted(sensitive.value)
        case .text(let sensitive): tagger.map { "<redacted:\($0(sensitive.value))>" } ?? "<redacted>"
        }
    }

    /// Event and field names are code, but are still kept to `[a-zA-Z0-9._-]`.
    static func safeName(_ name: String) -> String {
        String(name.unicodeScalars.map { scalar -> Character in
            scalar.properties.isAlphabetic && scalar.isASCII || ("0"..."9").contains(scalar) || ".-_".unicodeScalars.contains(scalar)
                ? Character(scalar) : "_"
        })
    }

    /// Public text as one token: quoted when it has spaces, with control characters escaped.
    static func quoted(_ text: String) -> String {
        let needsQuotes = text.isEmpty || text.contains(where: { $0 == " " || $0 == "\"" || $0 == "=" })
        var escaped = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": escaped += "\\\""
            case "\\": escaped += "\\\\"
            case _ where scalar.properties.generalCategory == .control:
                escaped += "\\u{" + String(scalar.value, radix: 16) + "}"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return needsQuotes ? "\"" + escaped + "\"" : escaped
    }

    /// `2026-12-02T21:50:07.123Z`, through libc's `gmtime_r`.
    /// why not ISO8601DateFormatter: every bmvault process stamps its crash-report path at
    /// start, and the formatter loads ICU's calendar data first (about 1 ms per command).
    static func iso8601(_ milliseconds: Int64) -> String {
        let (seconds, fraction) = milliseconds.quotientAndRemainder(dividingBy: 1000)
        var time = time_t(fraction < 0 ? seconds - 1 : seconds)
        var parts = tm()
        guard gmtime_r(&time, &parts) != nil else { return "unknown-time" }
        func padded(_ value: Int32, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return padded(parts.tm_year + 1900, 4) + "-" + padded(parts.tm_mon + 1, 2) + "-" + padded(parts.tm_mday, 2)
            + "T" + padded(parts.tm_hour, 2) + ":" + padded(parts.tm_min, 2) + ":" + padded(parts.tm_sec, 2)
            + "." + padded(Int32(fraction < 0 ? fraction + 1000 : fraction), 3) + "Z"
    }
}
