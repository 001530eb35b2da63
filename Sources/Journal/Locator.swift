/// Where in a book an annotation belongs, as the reader writes it: `p. 42`, `ch. 3`,
/// `loc 1234`, an EPUB CFI. One line of free text; it is sealed like the body.
public struct Locator: Hashable, Sendable, CustomStringConvertible {
    public let text: String

    public init(_ text: String) throws(JournalError) {
        self.text = try TextRules.line(text, field: "locator")
    }

    public var description: String { text }
}
