import Journal

/// The name of a book's Markdown file: `books/<slug>-<short id>.md`, readable in a file
/// list and unique in the archive. Import finds books by the id in the front matter, never
/// by the name, so a reader may rename the files.
enum BookFileName {
    static let maximumSlugCharacters = 60

    /// `the-name-of-the-rose-abc8def0.md`: the slug, then the first 8 digits of the id's
    /// random part (``ShortID``), the same in every export while the title stays; the full
    /// id when two books would get the same name (same title, random parts alike in their
    /// first 8 digits).
    ///
    /// why not the id's first 8 characters, as before bmvault 0.14: those are its clock, alike
    /// for books added in one sitting, so a name fell back to the full id depending on which
    /// other books an export held.
    static func name(for book: Book, taken: Set<String>) -> String {
        let short = "\(slug(book.title))-\(ShortID.randomPart(of: book.id).prefix(8)).md"
        return taken.contains(short) ? "\(slug(book.title))-\(book.id.rawValue).md" : short
    }

    /// `dune-1a2b3c4d.epub`: the plain copy of a book file in `files/`, named like its book's
    /// Markdown file, by the file's own id (the full id if the short name is taken).
    static func plainCopyName(title: String, id: EntityID, format: String, taken: Set<String>) -> String {
        let short = "\(slug(title))-\(ShortID.randomPart(of: id).prefix(8)).\(format)"
        return taken.contains(short) ? "\(slug(title))-\(id.rawValue).\(format)" : short
    }

    /// Lowercase letters and digits of any script; every other run of characters becomes
    /// one `-`. Never empty (`book`), at most 60 characters.
    static func slug(_ title: String) -> String {
        var slug = ""
        var count = 0
        var pendingHyphen = false
        for character in title {
            guard count < maximumSlugCharacters else { break }
            if character.isLetter || character.isNumber {
                if pendingHyphen && !slug.isEmpty {
                    slug.append("-")
                    count += 1
                }
                pendingHyphen = false
                slug += character.lowercased()
                count += 1
            } else {
                pendingHyphen = true
            }
        }
        while slug.hasSuffix("-") { slug.removeLast() }
        return slug.isEmpty ? "book" : slug
    }

    /// How errors name a file of the archive (by its path in it): a book's Markdown file and
    /// a plain copy without the part of its name that comes from a title.
    static func displayName(ofArchivePath path: String) -> String {
        let books = ArchiveFormat.booksDirectory + "/", files = ArchiveFormat.filesDirectory + "/"
        if path.hasPrefix(books) { return displayName(ofFile: String(path.dropFirst(books.count))) }
        if path.hasPrefix(files) { return displayName(ofPlainCopy: String(path.dropFirst(files.count))) }
        return path
    }

    /// How errors name a plain copy in `files/` without its title-derived part:
    /// `files/…-1a2b3c4d.epub`.
    static func displayName(ofPlainCopy name: String) -> String {
        guard let dot = name.lastIndex(of: "."), let hyphen = name[..<dot].lastIndex(of: "-") else {
            return "a file in \(ArchiveFormat.filesDirectory)/"
        }
        let suffix = name[name.index(after: hyphen)...]
        guard suffix.utf8.allSatisfy({ $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".") || (0x30...0x39).contains($0) || (0x61...0x7a).contains($0) }) else {
            return "a file in \(ArchiveFormat.filesDirectory)/"
        }
        return "\(ArchiveFormat.filesDirectory)/…-\(suffix)"
    }

    /// How errors name a book's file without its title-derived part: `books/…-0193f2a1.md`.
    static func displayName(ofFile name: String) -> String {
        guard name.hasSuffix(".md") else { return "a file in \(ArchiveFormat.booksDirectory)/" }
        let stem = name.dropLast(3)
        if stem.count >= 36, (try? EntityID(validating: String(stem.suffix(36)))) != nil {
            return "\(ArchiveFormat.booksDirectory)/…-\(stem.suffix(36)).md"
        }
        if let hyphen = stem.lastIndex(of: "-") {
            let suffix = stem[stem.index(after: hyphen)...]
            if suffix.count == 8, suffix.allSatisfy({ $0.isHexDigit && !$0.isUppercase }) {
                return "\(ArchiveFormat.booksDirectory)/…-\(suffix).md"
            }
        }
        return "a Markdown file in \(ArchiveFormat.booksDirectory)/ not named by bmvault"
    }
}
