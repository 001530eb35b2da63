/// The limits every piece of journal text must meet before it is sealed and stored.
public enum TextRules {
    /// Note and quote bodies: up to 1 MiB of UTF-8.
    public static let maximumBodyBytes = 1 << 20
    /// Titles, authors and locators: up to 1 KiB of UTF-8, on one line.
    public static let maximumLineBytes = 1 << 10

    /// A body: trailing line breaks are dropped (editors add one); anything else is kept
    /// as typed, including leading indentation of a poem.
    public static func body(_ text: String, field: String = "body") throws(JournalError) -> String {
        var trimmed = Substring(text)
        while let last = trimmed.last, last.isNewline || last == " " || last == "\t" { trimmed.removeLast() }
        guard trimmed.contains(where: { !$0.isWhitespace }) else { throw .emptyText(field: field) }
        guard trimmed.utf8.count <= maximumBodyBytes else { throw .textTooLong(field: field, limit: maximumBodyBytes) }
        return String(trimmed)
    }

    /// The key an import gives a record: a source, `:`, then its key there (a digest in hex,
    /// an id another program gave it); at most 160 bytes of ASCII letters, digits, `-`, `_`
    /// and `:`.
    public static func importKey(_ text: String) throws(JournalError) -> String {
        // By bytes: an import checks one for every record it reads.
        let bytes = text.utf8
        guard bytes.count <= 160, let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon != bytes.startIndex,
              bytes.index(after: colon) != bytes.endIndex,
              bytes.allSatisfy({ byte in
                  (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                      || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
                      || byte == UInt8(ascii: ":")
              }) else { throw .invalidImportKey }
        return text
    }

    /// The longest ``sessionSource(_:)``.
    public static let maximumSessionSourceBytes = 32

    /// Where a reading session came from when an import recorded it (`koreader`): a word of
    /// 1 to ``maximumSessionSourceBytes`` lowercase ASCII letters, digits and `-`. Any such
    /// word is taken, not only the programs this build imports from, so a session a later
    /// bmvault records from another program syncs and exports here unchanged.
    public static func sessionSource(_ text: String) throws(JournalError) -> String {
        let bytes = text.utf8
        guard (1...maximumSessionSourceBytes).contains(bytes.count),
              bytes.allSatisfy({ byte in
                  (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                      || byte == UInt8(ascii: "-")
              }) else { throw .invalidSessionSource }
        return text
    }

    /// A one-line value (title, author, locator): surrounding white space is dropped.
    public static func line(_ text: String, field: String) throws(JournalError) -> String {
        // Most lines (locators, titles) are printable ASCII with no space at either end:
        // nothing to trim and nothing to refuse, found without walking their characters.
        if isPlainASCIILine(text) { return text }
        let trimmed = text.trimmingWhitespace()
        guard !trimmed.isEmpty else { throw .emptyText(field: field) }
        guard trimmed.utf8.count <= maximumLineBytes else { throw .textTooLong(field: field, limit: maximumLineBytes) }
        guard !trimmed.unicodeScalars.contains(where: isForbiddenInLine) else { throw .controlCharacters(field: field) }
        return trimmed
    }
}

/// Printable ASCII (space to tilde), not empty, no space first or last, within the limit.
private func isPlainASCIILine(_ text: String) -> Bool {
    var text = text
    return text.withUTF8 { utf8 in
        guard utf8.count <= TextRules.maximumLineBytes, let first = utf8.first, let last = utf8.last,
              first != UInt8(ascii: " "), last != UInt8(ascii: " ") else { return false }
        return utf8.allSatisfy { (UInt8(ascii: " ")...UInt8(ascii: "~")).contains($0) }
    }
}

/// Control characters, line and paragraph separators, and bidirectional overrides (which
/// can make a title display as something else) have no place in a one-line field.
private func isForbiddenInLine(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.properties.generalCategory {
    case .control, .lineSeparator, .paragraphSeparator: return true
    default: return (0x202A...0x202E).contains(scalar.value) || (0x2066...0x2069).contains(scalar.value)
    }
}

extension String {
    func trimmingWhitespace() -> String {
        var slice = Substring(self)
        while let first = slice.first, first.isWhitespace { slice.removeFirst() }
        while let last = slice.last, last.isWhitespace { slice.removeLast() }
        return String(slice)
    }
}
