/// A note or quote imported before, met again in another program's file: a re-highlight
/// holds a longer text, a note typed on the highlight a longer comment. A record the reader
/// has not changed here since (`divergence.localChanged` false) takes the file's longer text
/// and its comment; one changed here keeps its text, and takes a comment only when its own
/// is the start of the file's: what the reader wrote, or removed, here stays so.
public struct ReimportedTextPolicy: ConflictPolicy {
    /// The parts of a record a file can bring again.
    public struct Text: Hashable, Sendable {
        public var body: String
        public var comment: String?

        public init(body: String, comment: String?) {
            self.body = body
            self.comment = comment
        }
    }

    public typealias Value = Text

    public init() {}

    public func resolve(local: Side<Text>, remote: Side<Text>, divergence: Divergence) -> Resolution<Text> {
        let (here, file) = (local.value, remote.value)
        let untouched = !divergence.localChanged
        var kept = here
        if untouched, file.body != here.body, file.body.contains(here.body) { kept.body = file.body }
        if let comment = file.comment, comment != here.comment, here.comment.map({ comment.hasPrefix($0) }) ?? untouched {
            kept.comment = comment
        }
        return kept == here
            ? .winner(here, why: "the record here holds the file's text")
            : .winner(kept, why: "the file extends the record's text")
    }
}
