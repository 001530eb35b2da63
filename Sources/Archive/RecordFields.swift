import Journal

/// Checks for the fields of archive records, shared by the JSON and Markdown readers: every
/// value is held to the journal's own rules (``TextRules``, ids, ranges) before it can reach
/// a vault, and a value that breaks one is reported by file, line, record id and field.
enum RecordFields {
    static func id(_ text: String, file: String, line: Int?, record: String?, field: String) throws(ArchiveError) -> EntityID {
        do { return try EntityID(validating: text) } catch {
            throw .invalidField(file: file, line: line, record: record, field: field, reason: "not a record id")
        }
    }

    static func line(_ text: String, file: String, line: Int?, record: String?, field: String) throws(ArchiveError) -> String {
        do { return try TextRules.line(text, field: field) } catch {
            throw .invalidField(file: file, line: line, record: record, field: field, reason: reason(error))
        }
    }

    static func tag(_ text: String, file: String, line: Int?, record: String?) throws(ArchiveError) -> String {
        do { return try Tag.checked(text) } catch {
            throw .invalidField(file: file, line: line, record: record, field: "tags", reason: reason(error))
        }
    }

    static func body(_ text: String, kind: AnnotationKind, file: String, line: Int?, record: String?) throws(ArchiveError) -> String {
        do { return try TextRules.body(text, field: kind.rawValue) } catch {
            throw .invalidField(file: file, line: line, record: record, field: "body", reason: reason(error))
        }
    }

    static func locator(_ text: String, file: String, line: Int?, record: String?) throws(ArchiveError) -> Locator {
        do { return try Locator(text) } catch {
            throw .invalidField(file: file, line: line, record: record, field: "locator", reason: reason(error))
        }
    }

    static func timestamp(_ text: String, file: String, line: Int?, record: String?, field: String) throws(ArchiveError) -> Timestamp {
        do { return try Timestamp(iso8601: text) } catch {
            throw .invalidField(file: file, line: line, record: record, field: field, reason: reason(error))
        }
    }

    static func progress(_ value: Double?, file: String, line: Int?, record: String?) throws(ArchiveError) -> Double {
        guard let value, let checked = try? Book.checkedProgress(value) else {
            throw .invalidField(file: file, line: line, record: record, field: "progress", reason: "not a number from 0 to 100")
        }
        return checked
    }

    static func version(_ value: Int64?, file: String, line: Int?, record: String?) throws(ArchiveError) -> Int64 {
        guard let value, VersionNumber.range.contains(value) else {
            throw .invalidField(file: file, line: line, record: record, field: "version",
                                reason: "not a whole number from 1 to \(VersionNumber.range.upperBound)")
        }
        return value
    }

    static func pages(_ value: Int?, file: String, line: Int?, record: String?) throws(ArchiveError) -> Int {
        guard let value, (0...ReadingSession.maximumPages).contains(value) else {
            throw .invalidField(file: file, line: line, record: record, field: "pagesRead",
                                reason: "not a whole number from 0 to \(ReadingSession.maximumPages)")
        }
        return value
    }

    /// The rule a value broke, as a fixed phrase.
    static func reason(_ error: JournalError) -> String {
        switch error {
        case .emptyText: return "empty"
        case .textTooLong(_, let limit): return "longer than \(limit) bytes"
        case .controlCharacters: return "not one line without control characters"
        case .progressOutOfRange: return "not a number from 0 to 100"
        case .pagesOutOfRange: return "not a whole number from 0 to \(ReadingSession.maximumPages)"
        case .sessionEndsBeforeStart: return "the session ends before it starts"
        case .quoteNeedsLocator: return "a quote without a locator"
        case .sessionInFuture: return "the session ends in the future"
        case .invalidID: return "not a record id"
        case .invalidClock: return "not valid"
        case .invalidTimestamp: return "not an ISO 8601 time with an offset, such as 2026-12-02T10:07:46.123Z"
        case .versionOutOfRange: return "not a whole number from 1 to \(VersionNumber.range.upperBound)"
        case .tooManySearchTerms: return "too many search terms"
        case .ratingOutOfRange: return "not a rating from 1 to 5 in half stars"
        case .statusInFuture, .noteInFuture: return "a date in the future"
        case .invalidReadingLog: return "not a list of status changes"
        case .invalidISBN: return "not an ISBN-10 or ISBN-13 whose check digit matches"
        case .yearOutOfRange: return "not a year from \(Edition.years.lowerBound) to \(Edition.years.upperBound)"
        case .pageCountOutOfRange: return "not a whole number from 1 to \(ReadingSession.maximumPages)"
        case .noPageCount: return "a page, for a book without a number of pages"
        case .pageBeyondEnd(let pages): return "a page beyond the last (\(pages))"
        case .invalidEdition: return "not an edition (isbn=…;year=…;pages=…)"
        case .invalidTag: return "not a tag (one word, no space or comma)"
        case .invalidImportKey: return "not an import key (a source, a colon, then letters and digits)"
        case .invalidSessionSource: return "not a session source (a short word of lowercase letters, digits and -)"
        }
    }
}
