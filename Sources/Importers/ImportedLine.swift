import Journal

extension ImportError {
    /// Refuses a title or an author the journal would refuse (a control character, a line
    /// break, more than 1 KiB) where its line is known. Left to the import, it would refuse
    /// the whole file all the same, but without saying where: every other malformed record
    /// is named by its line, and this one is too.
    static func checkLine(_ text: String, field: String, line: Int) throws(ImportError) {
        do {
            _ = try TextRules.line(text, field: field)
        } catch .controlCharacters {
            throw .malformed(line: line, reason: "the \(field) has a control character or a line break")
        } catch .textTooLong(_, let limit) {
            throw .malformed(line: line, reason: "the \(field) is longer than \(limit) bytes")
        } catch {
            throw .malformed(line: line, reason: "the \(field) is not one the journal takes (empty?)")
        }
    }
}
