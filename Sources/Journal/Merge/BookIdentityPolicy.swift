/// Which book here a book named by another program's file is, strongest evidence first:
/// the book one of the source's identifiers, or its title with its authors, already names
/// (an earlier import: the book may have been renamed here since); else the book its title
/// alone names (`bmvault book alias`); else a live book with the same ISBN; else a live book
/// with the same title (case and accents aside) whose authors agree. A name of a book that
/// is not live names no book: a book merged on another device must not come back with the
/// next import.
///
/// A source with an identifier is matched by title only to a book the vault had before this
/// import: two rows of one export with two ids are two editions the reader keeps apart, not
/// one book.
public struct BookIdentityPolicy: Sendable {
    public init() {}

    public func identify<Target: ImportTarget>(_ source: ImportedBook, in target: Target) throws(Target.Failure) -> BookIdentity {
        let foldedTitle = TextFolding.fold(source.title)
        let titleAlias = BookAlias.title(folded: foldedTitle)
        let titleAndAuthors = BookAlias.titleAndAuthors(titleAlias: titleAlias, authors: source.authors)
        let book = try match(source, foldedTitle: foldedTitle, titleAlias: titleAlias, titleAndAuthors: titleAndAuthors, in: target)
        // The identifiers and the title with the authors become names of the book found; a
        // name another live book holds stays its own, one of a book gone moves.
        var names: [BookIdentity.Name] = []
        for name in source.identifiers + [titleAndAuthors] {
            let holder = try target.book(named: name)
            guard holder == nil || holder != book else { continue }
            if let holder, try target.isLive(holder) { continue }
            names.append(BookIdentity.Name(name: name, takenFrom: holder))
        }
        return BookIdentity(book: book, namesToRecord: names)
    }

    private func match<Target: ImportTarget>(_ source: ImportedBook, foldedTitle: String, titleAlias: String, titleAndAuthors: String,
                                             in target: Target) throws(Target.Failure) -> EntityID? {
        func live(_ name: String) throws(Target.Failure) -> EntityID? {
            guard let id = try target.book(named: name), try target.isLive(id) else { return nil }
            return id
        }
        let apart = source.identifiers.isEmpty ? [] : target.booksAddedByThisImport
        for identifier in source.identifiers {
            if let id = try live(identifier) { return id }
        }
        if let id = try live(titleAndAuthors), !apart.contains(id) { return id }
        if let id = try live(titleAlias) { return id }
        if let isbn = source.edition.isbn, let book = try target.liveBooks(withISBN: isbn).first(where: { !apart.contains($0.id) }) {
            return book.id
        }
        return try target.liveBooks(withFoldedTitle: foldedTitle).first {
            !apart.contains($0.id) && Self.authorsAgree($0.authors, source.authors)
        }?.id
    }

    /// Whether two lists of authors name the same people: the words of one (folded) are all
    /// words of the other, in any order (`Herbert, Frank` is `Frank Herbert`); a side with
    /// none agrees with anything.
    public static func authorsAgree(_ here: [String], _ source: [String]) -> Bool {
        func words(_ authors: [String]) -> Set<Substring> {
            Set(TextFolding.fold(authors.joined(separator: " ")).split { !$0.isLetter && !$0.isNumber })
        }
        let (mine, theirs) = (words(here), words(source))
        return mine.isEmpty || theirs.isEmpty || mine.isSubset(of: theirs) || theirs.isSubset(of: mine)
    }
}

/// Which book here an imported one is, and the names to remember it by.
public struct BookIdentity: Sendable, Equatable {
    /// A name to record for the book; `takenFrom`: the book, no longer live, that held it.
    public struct Name: Sendable, Equatable {
        public let name: String
        public let takenFrom: EntityID?
    }

    /// The book here, or nil: the source is a book the vault does not have, to be added.
    public let book: EntityID?
    /// Names of the source that do not name this book yet (for a new book: every one free).
    public let namesToRecord: [Name]
}

/// Which record here a note or quote from another program's file is: the one its import
/// key, or one of its earlier keys (a Kindle highlight's shorter versions a re-highlight
/// replaced), was recorded for, here or on any device this one synced with. A record
/// deleted here is still that record: what the reader deleted stays deleted.
public struct ImportKeyPolicy: Sendable {
    public init() {}

    public func record<Target: ImportTarget>(keyedBy keys: [String], in target: Target) throws(Target.Failure) -> EntityID? {
        for key in keys where !key.isEmpty {
            if let id = try target.record(withImportKey: key) { return id }
        }
        return nil
    }
}
