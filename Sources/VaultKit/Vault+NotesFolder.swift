public import Archive
public import Journal
import Telemetry
import VaultStore

/// What `bmvault export --markdown-folder` did.
public struct NotesFolderReport: Sendable {
    public let summary: NotesFolderSummary
    /// Records whose sealed fields did not open, by id: a book with one is left as its note was.
    public let unreadable: [UnreadableRecord]
}

extension Vault {
    /// Writes one Markdown note per live book into the notes folder `directory`, and updates
    /// the notes an earlier export wrote there in place (Docs/NOTES-FOLDER.md): the journal is
    /// read in one snapshot; a book whose fingerprint (``NoteFingerprints``,
    /// nothing decrypted) is the one its note was made from is not read further, and its note
    /// is left alone; the others are decrypted, rendered and handed to ``NotesFolderExport``,
    /// which writes only what changed and never what the reader edited.
    public func exportNotesFolder(to directory: String, options: NotesFolderOptions) throws(VaultError) -> NotesFolderReport {
        let store = try unlockedStore()
        let export = try Self.notesFolderCall { () throws(NotesFolderError) in
            try NotesFolderExport(directory: directory, options: options, generator: "bmvault \(BuildInfo.version)")
        }
        var unreadable: [UnreadableRecord] = []
        var rendered = 0
        let summary = try Self.notesFolderCall { () throws in
            try store.withReadSnapshot {
                let fingerprints = try store.read { tables throws(StoreError) in try tables.noteFingerprints.byBook() }
                var needed: [EntityID: Book] = [:]
                for result in try store.read({ tables throws(StoreError) in try tables.books.all() }) {
                    switch result {
                    case .success(let book):
                        if export.survey(book.id, fingerprint: fingerprints[book.id] ?? "") { needed[book.id] = book }
                    case .failure(let record):
                        unreadable.append(record)
                        // Its note (if any) is kept as it is: the book is not gone.
                        if let id = try? EntityID(validating: record.id) { _ = export.survey(id, fingerprint: "") }
                    }
                }
                guard !needed.isEmpty else { return try export.commit() }
                export.reserveNames(needed.values.sorted { $0.id < $1.id }.map { ($0.id, $0.title) })
                let bookTags = try store.read { tables throws(StoreError) in try tables.tags.shownByRecord(kind: .book) }
                func write(_ book: Book, _ annotations: [Annotation], tags: [EntityID: [String]]) {
                    export.update(BookNoteSource(book: book, tags: bookTags[book.id] ?? [], annotations: annotations,
                                                     annotationTags: tags), fingerprint: fingerprints[book.id] ?? "")
                    rendered += 1
                }
                // A few books: each one's records by its index. Many (a first export, a new
                // time zone, a new bmvault): one pass over every note and quote, in book order.
                if needed.count <= 64 {
                    for book in needed.values.sorted(by: { $0.id < $1.id }) {
                        var annotations: [Annotation] = []
                        var readable = true
                        try store.read { tables throws(StoreError) in
                            try tables.annotations.forEach(AnnotationFilter(bookID: book.id)) { (result) throws(StoreError) in
                                switch result {
                                case .success(let annotation): annotations.append(annotation)
                                case .failure(let record):
                                    unreadable.append(record)
                                    readable = false
                                }
                            }
                        }
                        guard readable else { continue }
                        let tags = try store.read { tables throws(StoreError) in try tables.tags.shownByRecord(kind: .annotation, inBook: book.id) }
                        write(book, annotations, tags: tags)
                    }
                } else {
                    let tags = try store.read { tables throws(StoreError) in try tables.tags.shownByRecord(kind: .annotation) }
                    var current: EntityID?
                    var annotations: [Annotation] = []
                    var readable = true
                    var done = Set<EntityID>()
                    func finishCurrent() {
                        if let current, let book = needed[current], readable { write(book, annotations, tags: tags) }
                        if let current { done.insert(current) }
                        annotations.removeAll(keepingCapacity: true)
                        readable = true
                    }
                    try store.read { tables throws(StoreError) in
                        try tables.annotations.forEach(AnnotationFilter(), order: .bookAdded) { (result) throws(StoreError) in
                            let bookID: EntityID
                            switch result {
                            case .success(let annotation): bookID = annotation.bookID
                            case .failure(let record):
                                unreadable.append(record)
                                // Which book it is of is not known here: its book is left as it is
                                // only if the record is of the current one (the common case).
                                readable = false
                                return
                            }
                            if bookID != current {
                                finishCurrent()
                                current = bookID
                            }
                            if needed[bookID] != nil, case .success(let annotation) = result { annotations.append(annotation) }
                        }
                    }
                    finishCurrent()
                    for book in needed.values.sorted(by: { $0.id < $1.id }) where !done.contains(book.id) {
                        write(book, [], tags: tags)
                    }
                }
                return try export.commit()
            }
        }
        log.notice("notes.exported", ["created": .integer(summary.created), "updated": .integer(summary.updated),
                                      "unchanged": .integer(summary.unchanged), "removed": .integer(summary.removed),
                                      "released": .integer(summary.released), "followed": .integer(summary.followed),
                                      "rendered": .integer(rendered), "problems": .integer(summary.problems.count),
                                      "unreadable": .integer(unreadable.count)])
        return NotesFolderReport(summary: summary, unreadable: unreadable)
    }

    static func notesFolderCall<Result>(_ body: () throws -> Result) throws(VaultError) -> Result {
        do {
            return try body()
        } catch let error as NotesFolderError {
            throw .notesFolder(error)
        } catch let error as StoreError {
            throw .storage(error)
        } catch let error as VaultError {
            throw error
        } catch {
            throw .storage(.database(code: 0, message: "unexpected \(type(of: error))"))
        }
    }
}
