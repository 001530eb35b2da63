import Foundation
import Journal
import VaultKit

/// Turns option and argument text into values. Errors name the option and the forms it
/// accepts, never the text given (it could be a note typed in the wrong place).
enum ValueParsing {
    /// A time for `session add --start/--end`: `now`, `HH:MM` (today), `YYYY-MM-DD`,
    /// `YYYY-MM-DD HH:MM[:SS]` or `YYYY-MM-DDTHH:MM[:SS]` in local time, or ISO 8601 with
    /// an offset (`2026-12-02T10:00:00+01:00`, `...Z`), read as an archive's times are
    /// (``Timestamp/init(iso8601:)``).
    static func time(_ text: String, option: String, now: Timestamp) throws(CLIError) -> Timestamp {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.lowercased() == "now" { return now }
        if let timestamp = try? Timestamp(iso8601: trimmed) { return timestamp }
        let local = DateFormatter()
        local.locale = Locale(identifier: "en_US_POSIX")
        local.timeZone = TimeZone.current
        for format in ["yyyy-MM-dd'T'HH:mm:ss", "yyyy-MM-dd'T'HH:mm", "yyyy-MM-dd HH:mm:ss", "yyyy-MM-dd HH:mm", "yyyy-MM-dd"] {
            local.dateFormat = format
            if let date = local.date(from: trimmed) { return timestamp(date) }
        }
        local.dateFormat = "HH:mm"
        if let clock = local.date(from: trimmed) {
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone.current
            let parts = calendar.dateComponents([.hour, .minute], from: clock)
            let today = Date(timeIntervalSince1970: Double(now.millisecondsSince1970) / 1000)
            if let date = calendar.date(bySettingHour: parts.hour ?? 0, minute: parts.minute ?? 0, second: 0, of: today) {
                return timestamp(date)
            }
        }
        throw .invalidValue("--\(option) takes a time: now, HH:MM, YYYY-MM-DD HH:MM, or ISO 8601 such as 2026-12-02T10:00:00+01:00")
    }

    /// A duration for `unlock --timeout`: units `d`, `h`, `m`, `s`, combined (`1h30m`), or
    /// plain seconds. Between one second and 366 days.
    static func duration(_ text: String) throws(CLIError) -> Int64 {
        let failure = CLIError.invalidValue("--timeout takes a duration such as 8h, 30m, 1h30m or 2d (at most 366d)")
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        guard !trimmed.isEmpty else { throw failure }
        var total: Int64 = 0
        var digits = ""
        for character in trimmed {
            if character.isASCII && character.isNumber {
                digits.append(character)
                continue
            }
            let unit: Int64
            switch character {
            case "d": unit = 86_400
            case "h": unit = 3600
            case "m": unit = 60
            case "s": unit = 1
            default: throw failure
            }
            guard let value = Int64(digits), digits.count <= 9 else { throw failure }
            total += value * unit
            digits = ""
        }
        if !digits.isEmpty {
            guard let value = Int64(digits), digits.count <= 9 else { throw failure }
            total += value
        }
        guard total >= 1, total <= 366 * 86_400 else { throw failure }
        return total
    }

    /// Progress in percent: `42`, `42.5` or `42%`.
    static func percent(_ text: String) throws(CLIError) -> Double {
        var trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.hasSuffix("%") { trimmed.removeLast() }
        guard let value = Double(trimmed), value.isFinite, (0...100).contains(value) else {
            throw .invalidValue("PERCENT takes a number from 0 to 100, such as 42 or 42.5%")
        }
        return value
    }

    /// A whole number of pages, 0 or more.
    static func pages(_ text: String) throws(CLIError) -> Int {
        guard let value = Int(text.trimmingCharacters(in: .whitespaces)), value >= 0,
              value <= ReadingSession.maximumPages else {
            throw .invalidValue("--pages takes a whole number from 0 to \(ReadingSession.maximumPages)")
        }
        return value
    }

    /// An Argon2id preset: `interactive`, `moderate` or `sensitive`.
    static func kdfStrength(_ text: String) throws(CLIError) -> KDFStrength {
        guard let strength = KDFStrength(rawValue: text.lowercased()) else {
            throw .invalidValue("--kdf takes interactive, moderate or sensitive")
        }
        return strength
    }

    /// Records per transaction for `rekey --batch-size`: 1 or more.
    static func batchSize(_ text: String) throws(CLIError) -> Int {
        guard let size = Int(text), size > 0 else { throw .invalidValue("--batch-size takes a positive whole number") }
        return size
    }

    /// DAYS for `remote retention`; the vault checks the range, and says it with the same words.
    static func days(_ text: String) throws(CLIError) -> Int {
        guard let days = Int(text) else { throw .invalidValue("DAYS must be a whole number of days from 1 to 3650") }
        return days
    }

    /// What `conflicts resolve` says without a valid `--keep`.
    static let conflictChoiceNeeded = "conflicts resolve needs --keep note, copy, both, mine or theirs"

    /// `conflicts resolve --keep`: `note`, `copy`, `both`, `mine` or `theirs`, in any case.
    /// The words of bmvault 0.6 and older, `local` and `remote`, meant different texts on
    /// different devices; they are refused, saying so.
    static func conflictKeep(_ text: String) throws(CLIError) -> ConflictKeep {
        let word = text.lowercased()
        if word == "local" || word == "remote" {
            throw .invalidValue("--keep \(word) is gone (it meant different texts on different devices): use note, copy, both, mine or theirs")
        }
        guard let keep = ConflictKeep(rawValue: word) else { throw .invalidValue(conflictChoiceNeeded) }
        return keep
    }

    /// An annotation kind for `list --kind`.
    static func kind(_ text: String) throws(CLIError) -> AnnotationKind {
        guard let kind = AnnotationKind(rawValue: text.lowercased()) else {
            throw .invalidValue("--kind takes note or quote")
        }
        return kind
    }

    private static func timestamp(_ date: Date) -> Timestamp {
        Timestamp(millisecondsSince1970: Int64((date.timeIntervalSince1970 * 1000).rounded()))
    }
}
