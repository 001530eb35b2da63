/// One record of a Kindle's `My Clippings.txt`, as the device wrote it.
public struct KindleClipping: Sendable, Equatable {
    public enum Kind: String, Sendable {
        case highlight, note, bookmark, clip
    }

    /// Where the clipping is: a page and/or a location range (a single location is a range
    /// of one). The device numbers locations per document.
    public struct Position: Sendable, Equatable {
        public var page: ClosedRange<Int>?
        public var location: ClosedRange<Int>?
    }

    /// The book's title as the title line gives it, trimmed.
    public let title: String
    /// The author: the last balanced parenthesised group of the title line, or what follows
    /// its last ` - `; nil when the line has neither.
    public let author: String?
    public let kind: Kind
    public let position: Position
    /// The date as the device wrote it, in its UI language, never parsed.
    public let rawDate: String?
    /// The highlighted or typed text (line breaks kept; empty for a bookmark).
    public let body: String
    /// The device's placeholder for a highlight past the publisher's clipping limit: it is
    /// reported, and its text is not the book's.
    public let isClippingLimitPlaceholder: Bool
    /// Which record of the file it is (0 for the first): the order the device wrote them in.
    public let index: Int
    /// The record's identity for a re-import, from its normalised title, metadata and body
    /// lines (SHA-256, hex): the same on every import of any file that holds the record, and
    /// independent of how dates are written in any language. A digest of content: kept in
    /// memory; what a vault stores of it must be keyed.
    public let naturalKey: String
}

extension KindleClipping.Position {
    /// How the journal shows where a clipping is: `p. 41, loc 737-739`, `loc 275`, `p. 13`;
    /// nil when the device wrote neither.
    public var locatorText: String? {
        func range(_ range: ClosedRange<Int>) -> String {
            range.lowerBound == range.upperBound ? "\(range.lowerBound)" : "\(range.lowerBound)-\(range.upperBound)"
        }
        let parts = [page.map { "p. " + range($0) }, location.map { "loc " + range($0) }].compactMap { $0 }
        return parts.isEmpty ? nil : parts.joined(separator: ", ")
    }
}
