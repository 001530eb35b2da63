/// Why a value cannot become part of the journal. Cases name the rule that was broken,
/// never the text that broke it.
public enum JournalError: Error, Equatable, Sendable {
    /// The text is empty or only white space.
    case emptyText(field: String)
    /// The text is longer than the field allows.
    case textTooLong(field: String, limit: Int)
    /// A single-line field (a title, an author, a locator) contains a line break, a control
    /// character or a bidirectional override.
    case controlCharacters(field: String)
    /// Progress outside 0...100.
    case progressOutOfRange
    /// Pages read below zero or implausibly large.
    case pagesOutOfRange
    /// A reading session that ends before it starts.
    case sessionEndsBeforeStart
    /// A quote without a locator: a quote says where it is from.
    case quoteNeedsLocator
    /// A reading session typed by the reader that ends after the present moment.
    case sessionInFuture
    /// Text that is not a well-formed record id.
    case invalidID
    /// Text that is not a well-formed hybrid logical clock reading.
    case invalidClock
    /// Text that is not an ISO 8601 time with an offset (``Timestamp/init(iso8601:)``).
    case invalidTimestamp
    /// A version number outside ``VersionNumber/range``, or a change that would take one past it.
    case versionOutOfRange
    /// A search with more words and phrases than ``SearchQuery/maximumTerms``.
    case tooManySearchTerms(limit: Int)
    /// A rating that is not 1 to 5 in half stars.
    case ratingOutOfRange
    /// A book's status change dated after the present moment.
    case statusInFuture
    /// A note or quote dated (`--on`) after the present moment.
    case noteInFuture
    /// A stored or received reading log that is not in ``ReadingLog/text``'s form.
    case invalidReadingLog
    /// Not an ISBN-10 or ISBN-13 whose check digit matches.
    case invalidISBN
    /// A year of publication outside ``Edition/years``.
    case yearOutOfRange
    /// A number of pages outside ``Edition/pageCounts``.
    case pageCountOutOfRange
    /// A page given as progress, for a book whose number of pages is not known.
    case noPageCount
    /// A page given as progress beyond the book's last.
    case pageBeyondEnd(pages: Int)
    /// A stored or received edition that is not in ``Edition/text``'s form.
    case invalidEdition
    /// A tag with white space or a comma in it, or longer than ``Tag/maximumCharacters``.
    case invalidTag
    /// A stored or received import key not in ``TextRules/importKey(_:)``'s form.
    case invalidImportKey
    /// A stored or received session source not in ``TextRules/sessionSource(_:)``'s form.
    case invalidSessionSource
}
