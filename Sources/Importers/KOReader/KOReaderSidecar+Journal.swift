public import Journal

/// What a sidecar's values mean in the journal.
extension KOReaderSidecar {
    /// The reading status `summary.status` names: `reading`, `complete`, `abandoned`; nil
    /// for anything else (KOReader's `tbr`, an empty one).
    public var readingStatus: ReadingStatus? {
        switch status {
        case "reading": .reading
        case "complete": .finished
        case "abandoned": .abandoned
        default: nil
        }
    }
}

extension KOReaderSidecar.Highlight {
    /// Where the highlight is, as the journal shows it: `p. 48 · Chapter III`, the page or
    /// the chapter alone, or `KOReader highlight` when the sidecar has neither (every quote
    /// has a locator; KOReader's own position, an XPointer, means nothing to a reader).
    public var locatorText: String {
        let chapter = chapter.map { $0.split(whereSeparator: \.isNewline).joined(separator: " ").trimmingCharacters(in: " \t") }
        let parts = [pageNumber.map { "p. \($0)" }, chapter.flatMap { $0.isEmpty ? nil : $0 }].compactMap { $0 }
        return parts.isEmpty ? "KOReader highlight" : parts.joined(separator: " · ")
    }

    /// When it was made: `datetime` (`YYYY-MM-DD HH:MM:SS`, the device's local time) read in
    /// this machine's time zone; nil when it is not in that form.
    public var createdAt: Timestamp? {
        let fields = datetime.split { $0 == "-" || $0 == " " || $0 == ":" }.compactMap { Int($0) }
        guard fields.count == 6 else { return nil }
        return LocalTimeText.timestamp(year: fields[0], month: fields[1], day: fields[2], hour: fields[3], minute: fields[4], second: fields[5])
    }
}
