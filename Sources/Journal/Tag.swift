/// The rules of a tag: a word the reader puts on a book, note or quote to find it again.
/// Tags are explicit (`--tag`, `bmvault tag add`); a `#word` inside a note's text is text.
/// A tag is user content: sealed at rest like a title, never logged.
public enum Tag {
    /// The longest tag, in characters.
    public static let maximumCharacters = 64

    /// `text` as a tag: surrounding white space and one leading `#` dropped (the mark some
    /// readers type by habit); then one word of 1 to ``maximumCharacters`` characters, with
    /// no white space, comma or control character (a tag list prints as `a, b`).
    public static func checked(_ text: String) throws(JournalError) -> String {
        var name = Substring(text.trimmingWhitespace())
        if name.first == "#" { name.removeFirst() }
        guard !name.isEmpty else { throw .emptyText(field: "tag") }
        guard name.count <= maximumCharacters else { throw .invalidTag }
        guard !name.contains(where: { $0.isWhitespace || $0 == "," }) else { throw .invalidTag }
        return try TextRules.line(String(name), field: "tag")
    }

    /// Another program's label (a Goodreads shelf, a Readwise tag) made a tag: each run of
    /// white space, commas and control characters one `-`, none at either end, cut to
    /// ``maximumCharacters``; nil when nothing is left. `to read, later` is `to-read-later`.
    public static func madeSafe(_ label: String) -> String? {
        var name = ""
        var pendingDash = false
        for character in label {
            if character.isWhitespace || character == "," || character.unicodeScalars.contains(where: { $0.properties.generalCategory == .control || $0.properties.generalCategory == .format }) {
                pendingDash = !name.isEmpty
                continue
            }
            if pendingDash { name.append("-"); pendingDash = false }
            name.append(character)
        }
        // Nothing left, or a lone `#`: no tag.
        return try? checked(String(name.prefix(maximumCharacters)))
    }

    /// What two tags are compared by: `Fiction`, `fiction` and `fïction` are one tag.
    public static func key(_ name: String) -> String { TextFolding.fold(name) }

    /// The tags a record shows: each live tag once, by its key, spelled as it was first
    /// given (the same on every device), in the order of the keys.
    public static func shown(_ taggings: some Sequence<Tagging>) -> [String] {
        var first: [String: Tagging] = [:]
        for tagging in taggings where !tagging.isRemoved && !tagging.name.isEmpty {
            let key = key(tagging.name)
            if let kept = first[key], (kept.createdAt, kept.id.rawValue) <= (tagging.createdAt, tagging.id.rawValue) { continue }
            first[key] = tagging
        }
        return first.sorted { $0.key < $1.key }.map(\.value.name)
    }
}
