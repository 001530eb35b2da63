import Foundation

/// The names of the latest entries, for an ID or BOOK argument: `@last` is the note or
/// quote added last, `@last~2` the one two before it, `@last-book` the book of the last.
/// Compared without case (`@LAST` too).
enum RecentReference: Equatable {
    /// The entry `skipping` entries before the latest (0: the latest).
    case entry(skipping: Int)
    /// The book of the latest entry.
    case bookOfLatestEntry

    /// The form `typed` is, or nil when it is not one (a title may begin with `@`).
    init?(_ typed: String) {
        let lowered = typed.trimmingCharacters(in: .whitespaces).lowercased()
        switch lowered {
        case "@last": self = .entry(skipping: 0)
        case "@last-book": self = .bookOfLatestEntry
        default:
            guard lowered.hasPrefix("@last~"), let count = Int(lowered.dropFirst(6)), count >= 0,
                  lowered.dropFirst(6).allSatisfy(\.isASCIIDigit) else { return nil }
            self = .entry(skipping: count)
        }
    }
}

private extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}
