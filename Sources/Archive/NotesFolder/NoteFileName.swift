/// The file name of a book's note in a notes folder: its title as the reader wrote it, made
/// safe for every file system a notes folder is synced to and for a notes app's links, then
/// `.md`. Chosen once, when the note is first written, and then kept (the state file records
/// it): a retitle does not rename the note, since a notes app finds `[[Old title#^bm-…]]` by
/// the file's name (Docs/NOTES-FOLDER.md, "File names").
enum NoteFileName {
    /// At most this many characters of the title, and ``maximumBytes`` of UTF-8: a name must
    /// fit NAME_MAX (255 bytes) with ` (12).md` and a temporary file's prefix and suffix.
    static let maximumCharacters = 100
    static let maximumBytes = 180
    /// Names Windows refuses whatever the extension (a folder synced to Windows).
    private static let reserved = Set(["CON", "PRN", "AUX", "NUL"] + (1...9).flatMap { ["COM\($0)", "LPT\($0)"] })

    private static let unsafeScalars = Set("/\\:*?\"<>|#^[]%\u{2028}\u{2029}\u{FEFF}".unicodeScalars)

    /// The title made into a name (without `.md`): `/ \ : * ? " < > |` (refused by some file
    /// system), `# ^ [ ]` (they end a link's file name in Obsidian), `%` (an Obsidian comment is
    /// `%%`) and control characters become spaces; runs of white space become one space;
    /// leading dots and spaces, and trailing dots and spaces, go. Never empty (`Untitled book`),
    /// never a name Windows reserves (`CON` becomes `CON (book)`).
    static func stem(_ title: String) -> String {
        var stem = ""
        var pendingSpace = false
        var characters = 0
        var bytes = 0
        for character in title {
            let unsafe = character.unicodeScalars.contains { scalar in
                scalar.value < 0x20 || scalar.value == 0x7F || (0x80...0x9F).contains(scalar.value) || Self.unsafeScalars.contains(scalar)
            }
            if unsafe || character.isWhitespace {
                pendingSpace = true
                continue
            }
            if stem.isEmpty && character == "." { continue }
            let piece = (pendingSpace && !stem.isEmpty ? " " : "") + String(character)
            guard characters + piece.count <= maximumCharacters, bytes + piece.utf8.count <= maximumBytes else { break }
            stem += piece
            characters += piece.count
            bytes += piece.utf8.count
            pendingSpace = false
        }
        while let last = stem.last, last == "." || last == " " { stem.removeLast() }
        if stem.isEmpty { return "Untitled book" }
        if reserved.contains(stem.uppercased()) || reserved.contains(String(stem.uppercased().prefix { $0 != "." })) {
            return stem + " (book)"
        }
        return stem
    }

    /// A name for a new note: `<stem>.md`, or `<stem> (2).md`, `(3)`, ... when `isTaken` says
    /// the name is taken (by another note, or a file bmvault did not write). Names are
    /// compared as the caller's `isTaken` does: case-insensitively, as notes apps and some
    /// file systems do.
    static func name(for title: String, isTaken: (String) -> Bool) -> String {
        let stem = stem(title)
        var candidate = stem + ".md"
        var number = 2
        while isTaken(candidate) {
            candidate = "\(stem) (\(number)).md"
            number += 1
        }
        return candidate
    }

    /// How two names are compared for a clash: as a case-insensitive file system (or a
    /// notes app's link resolution) would.
    static func clashKey(_ name: String) -> String {
        name.lowercased()
    }
}
