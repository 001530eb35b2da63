import Journal

/// Turns the records of a journal.json of format version 1 or 2 into journal values, checked
/// against the journal's rules (format 2 changed only the books' Markdown). Members it does
/// not know are ignored (a newer bmvault may add optional ones without a new version);
/// nullable members may be missing. A future format version that changes journal.json
/// gets a reader of its own, and this one keeps reading versions 1 and 2.
struct JournalReader {
    let file: String

    func book(_ value: JSONValue, line: Int) throws(ArchiveError) -> Book {
        let fields = try Fields(value, file: file, line: line)
        let id = try fields.id("id")
        var authors: [String] = []
        guard case .array(let list) = try fields.required("authors") else { throw fields.invalid("authors", "not a list of names") }
        for author in list {
            guard let name = author.stringValue else { throw fields.invalid("authors", "not a list of names") }
            authors.append(try RecordFields.line(name, file: file, line: line, record: fields.record, field: "authors"))
        }
        return Book(id: id, title: try RecordFields.line(try fields.string("title"), file: file, line: line, record: fields.record, field: "title"),
                    authors: authors,
                    progress: try RecordFields.progress(try fields.required("progress").doubleValue, file: file, line: line, record: fields.record),
                    createdAt: try fields.timestamp("createdAt"), updatedAt: try fields.timestamp("updatedAt"),
                    deletedAt: try fields.optionalTimestamp("deletedAt"),
                    version: try RecordFields.version(try fields.required("version").integerValue, file: file, line: line, record: fields.record),
                    readingLog: try readingLog(fields), rating: try rating(fields), edition: try edition(fields))
    }

    /// `tags` (bmvault 0.13, optional): the record's tags, each checked as if typed.
    func tags(_ value: JSONValue, line: Int) throws(ArchiveError) -> [String] {
        let fields = try Fields(value, file: file, line: line)
        guard let member = fields.members["tags"], !member.isNull else { return [] }
        guard case .array(let list) = member else { throw fields.invalid("tags", "not a list of tags") }
        var names: [String] = []
        for element in list {
            guard let text = element.stringValue else { throw fields.invalid("tags", "not a list of tags") }
            names.append(try RecordFields.tag(text, file: file, line: line, record: fields.record))
        }
        return names
    }

    /// `files` (bmvault 0.17, optional): the book's files, each checked: an id, a format
    /// `file add` reads, a size, a SHA-256, a locator and metadata held to the journal's
    /// rules, and a `path` that stays inside the archive's `files/`.
    func bookFiles(_ value: JSONValue, line: Int) throws(ArchiveError) -> [ArchiveBookFile] {
        let book = try Fields(value, file: file, line: line)
        guard let member = book.members["files"], !member.isNull else { return [] }
        guard case .array(let list) = member else { throw book.invalid("files", "not a list of book files") }
        var files: [ArchiveBookFile] = []
        for element in list {
            let fields = try Fields(element, file: file, line: line)
            let format = try fields.string("format")
            guard ArchiveBookFile.formats.contains(format) else { throw fields.invalid("format", "not epub, mobi, azw3 or pdf") }
            guard let size = try fields.required("size").integerValue, size >= 0 else { throw fields.invalid("size", "not a size in bytes") }
            let sha256 = try fields.string("sha256")
            guard ArchiveBookFile.isChecksum(sha256) else { throw fields.invalid("sha256", "not a SHA-256 in lowercase hex") }
            guard let kept = ArchiveBookFile.Kept(rawValue: try fields.string("kept")) else { throw fields.invalid("kept", "not stored or linked") }
            let path = try fields.optionalString("path")
            if let path, !ArchiveBookFile.isPlainCopyPath(path) { throw fields.invalid("path", "not a file in the archive's files/ folder") }
            let locator = try fields.optionalString("locator").map { (text) throws(ArchiveError) in
                try RecordFields.locator(text, file: file, line: line, record: fields.record).text
            }
            files.append(ArchiveBookFile(id: try fields.id("id"), format: format, size: size, sha256: sha256, kept: kept,
                                         addedAt: try fields.timestamp("addedAt"), locator: locator,
                                         metadata: try metadata(fields), path: path))
        }
        return files
    }

    /// A book file's `metadata`: its texts held to the rules of a title (one line, no control characters).
    private func metadata(_ owner: Fields) throws(ArchiveError) -> ArchiveBookFile.Metadata {
        let fields = try Fields(try owner.required("metadata"), file: file, line: owner.line)
        func text(_ key: String) throws(ArchiveError) -> String? {
            try fields.optionalString(key).map { (text) throws(ArchiveError) in
                try RecordFields.line(text, file: file, line: owner.line, record: owner.record, field: "metadata." + key)
            }
        }
        func texts(_ key: String) throws(ArchiveError) -> [String] {
            guard let value = fields.members[key], !value.isNull else { return [] }
            guard case .array(let list) = value else { throw owner.invalid("metadata." + key, "not a list") }
            var texts: [String] = []
            for element in list {
                guard let text = element.stringValue else { throw owner.invalid("metadata." + key, "not a list") }
                texts.append(try RecordFields.line(text, file: file, line: owner.line, record: owner.record, field: "metadata." + key))
            }
            return texts
        }
        return ArchiveBookFile.Metadata(title: try text("title"), creators: try texts("creators"), language: try text("language"),
                                        identifiers: try texts("identifiers"), publisher: try text("publisher"), date: try text("date"),
                                        hasCover: fields.members["hasCover"]?.boolValue ?? false)
    }

    /// `isbn`, `year` and `pagesTotal` (bmvault 0.11, optional): the book's edition.
    private func edition(_ fields: Fields) throws(ArchiveError) -> Edition {
        var edition = Edition.unknown
        if let value = fields.members["isbn"], !value.isNull {
            guard let text = value.stringValue, let isbn = try? Edition.checkedISBN(text) else {
                throw fields.invalid("isbn", RecordFields.reason(.invalidISBN))
            }
            edition.isbn = isbn
        }
        if let value = fields.members["year"], !value.isNull {
            guard let year = value.integerValue.flatMap(Int.init(exactly:)), Edition.years.contains(year) else {
                throw fields.invalid("year", RecordFields.reason(.yearOutOfRange))
            }
            edition.year = year
        }
        if let value = fields.members["pagesTotal"], !value.isNull {
            guard let pages = value.integerValue.flatMap(Int.init(exactly:)), Edition.pageCounts.contains(pages) else {
                throw fields.invalid("pagesTotal", RecordFields.reason(.pageCountOutOfRange))
            }
            edition.pages = pages
        }
        return edition
    }

    /// `rating` (bmvault 0.10, optional): 1 to 5 in half stars, or null.
    private func rating(_ fields: Fields) throws(ArchiveError) -> Double? {
        guard let value = fields.members["rating"], !value.isNull else { return nil }
        guard let stars = value.doubleValue, (try? Rating.checked(stars)) != nil else {
            throw fields.invalid("rating", "not a rating from 1 to 5 in half stars")
        }
        return stars
    }

    /// `readingLog` (bmvault 0.10, optional): a list of `{clock, on, status}`.
    private func readingLog(_ fields: Fields) throws(ArchiveError) -> ReadingLog {
        guard let value = fields.members["readingLog"], !value.isNull else { return .empty }
        guard case .array(let list) = value else { throw fields.invalid("readingLog", "not a list of status changes") }
        var events: [ReadingEvent] = []
        for item in list {
            guard let status = item["status"]?.stringValue.flatMap(ReadingStatus.init(rawValue:)),
                  let clock = item["clock"]?.stringValue.flatMap({ try? HybridTimestamp(parsing: $0) }),
                  let on = item["on"]?.stringValue.flatMap({ try? Timestamp(iso8601: $0) }) else {
                throw fields.invalid("readingLog", "not a list of status changes")
            }
            // bmvault 0.16: `dayKnown: false` for a change recorded without its day.
            let dayKnown = item["dayKnown"].map { $0 != .bool(false) } ?? true
            events.append(ReadingEvent(status: status, on: on, clock: clock, dayKnown: dayKnown))
        }
        return ReadingLog(events: events)
    }

    func annotation(_ value: JSONValue, kind: AnnotationKind, line: Int) throws(ArchiveError) -> Annotation {
        let fields = try Fields(value, file: file, line: line)
        let id = try fields.id("id")
        let locator = try fields.optionalString("locator").map { (text) throws(ArchiveError) in
            try RecordFields.locator(text, file: file, line: line, record: fields.record)
        }
        if kind == .quote, locator == nil { throw ArchiveError.missingField(file: file, line: line, record: fields.record, field: "locator") }
        let reason = try fields.optionalString("conflictReason").map { (text) throws(ArchiveError) in
            guard let reason = ConflictReason(rawValue: text) else { throw fields.invalid("conflictReason", "not a known conflict reason") }
            return reason
        }
        return Annotation(id: id, bookID: try fields.id("bookId"), kind: kind,
                          body: try RecordFields.body(try fields.string("body"), kind: kind, file: file, line: line, record: fields.record),
                          locator: locator, createdAt: try fields.timestamp("createdAt"), updatedAt: try fields.timestamp("updatedAt"),
                          deletedAt: try fields.optionalTimestamp("deletedAt"),
                          version: try RecordFields.version(try fields.required("version").integerValue, file: file, line: line, record: fields.record),
                          conflictOf: try fields.optionalString("conflictOf").map { (text) throws(ArchiveError) in
                              try RecordFields.id(text, file: file, line: line, record: fields.record, field: "conflictOf")
                          },
                          conflictReason: reason,
                          comment: try fields.optionalString("comment").map { (text) throws(ArchiveError) in
                              do throws(JournalError) { return try TextRules.body(text, field: "comment") } catch { throw fields.invalid("comment", RecordFields.reason(error)) }
                          },
                          importKey: try fields.optionalString("importKey").map { (text) throws(ArchiveError) in
                              do throws(JournalError) { return try TextRules.importKey(text) } catch { throw fields.invalid("importKey", RecordFields.reason(error)) }
                          })
    }

    func session(_ value: JSONValue, line: Int) throws(ArchiveError) -> ReadingSession {
        let fields = try Fields(value, file: file, line: line)
        let id = try fields.id("id")
        let started = try fields.timestamp("startedAt")
        let ended = try fields.timestamp("endedAt")
        guard ended >= started else { throw fields.invalid("endedAt", "the session ends before it starts") }
        let pages = try fields.required("pagesRead").integerValue.flatMap { Int(exactly: $0) }
        return ReadingSession(id: id, bookID: try fields.id("bookId"), startedAt: started, endedAt: ended,
                              pagesRead: try RecordFields.pages(pages, file: file, line: line, record: fields.record),
                              source: try fields.optionalString("source").map { (text) throws(ArchiveError) in
                                  do throws(JournalError) { return try TextRules.sessionSource(text) } catch { throw fields.invalid("source", RecordFields.reason(error)) }
                              })
    }

    /// The members of one record object, with its id (when readable) for error messages.
    private struct Fields {
        let members: [String: JSONValue]
        let file: String
        let line: Int
        let record: String?

        init(_ value: JSONValue, file: String, line: Int) throws(ArchiveError) {
            guard case .object(let members) = value else {
                throw .malformed(file: file, line: line, reason: "a record must be a JSON object")
            }
            self.members = members
            self.file = file
            self.line = line
            // Only a well-formed id is repeated in messages: anything else could be text.
            record = members["id"]?.stringValue.flatMap { try? EntityID(validating: $0) }?.rawValue
        }

        func required(_ key: String) throws(ArchiveError) -> JSONValue {
            guard let value = members[key], !value.isNull else {
                throw .missingField(file: file, line: line, record: record, field: key)
            }
            return value
        }

        func string(_ key: String) throws(ArchiveError) -> String {
            guard let text = try required(key).stringValue else { throw invalid(key, "not a string") }
            return text
        }

        func optionalString(_ key: String) throws(ArchiveError) -> String? {
            guard let value = members[key], !value.isNull else { return nil }
            guard let text = value.stringValue else { throw invalid(key, "not a string or null") }
            return text
        }

        func id(_ key: String) throws(ArchiveError) -> EntityID {
            try RecordFields.id(try string(key), file: file, line: line, record: record, field: key)
        }

        func timestamp(_ key: String) throws(ArchiveError) -> Timestamp {
            try RecordFields.timestamp(try string(key), file: file, line: line, record: record, field: key)
        }

        func optionalTimestamp(_ key: String) throws(ArchiveError) -> Timestamp? {
            try optionalString(key).map { (text) throws(ArchiveError) in
                try RecordFields.timestamp(text, file: file, line: line, record: record, field: key)
            }
        }

        func invalid(_ key: String, _ reason: String) -> ArchiveError {
            .invalidField(file: file, line: line, record: record, field: key, reason: reason)
        }
    }
}
