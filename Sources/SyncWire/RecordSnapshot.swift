import Foundation
import Journal

/// A record's state as JSON inside an operation. The members of format 1 are kept as they
/// were; format 2 added the clocks a merge reads (all optional, so a format 1 payload reads
/// with the same types). A snapshot is input like any other: the model values it gives
/// are checked against the journal's rules.
struct BookSnapshot: Codable {
    let id: String, title: String, authors: [String], progress: Double
    let createdAt: Int64, updatedAt: Int64, deletedAt: Int64?, version: Int64
    /// Format 1 only (added with sync): the position was set as an explicit rewind, and
    /// when. Format 2 carries every position that matters in `progressMarks` instead.
    let progressRewind: Bool?
    let progressClock: String?
    /// Format 2: when title, authors or deletion last changed, and every recorded position
    /// that can still matter (``ProgressPolicy/Positions/text``).
    let metadataClock: String?
    let progressMarks: String?
    /// Format 4 (bmvault 0.10): the rating and the clock of its last change, and the reading
    /// log (``ReadingLog/text``). Absent: no rating ever given, no status ever recorded (or
    /// a device from before they existed, whose absence changes nothing: ``RatingPolicy``
    /// takes a missing clock as the origin, ``ReadingLogPolicy`` joins logs).
    let rating: Double?
    let ratingClock: String?
    let readingLog: String?
    /// Format 5 (bmvault 0.11): the edition (``Edition/text``) and the clock of its last
    /// change. Absent: none ever given (or a device from before editions, whose absence
    /// changes nothing: ``EditionPolicy`` takes a missing clock as the origin).
    let edition: String?
    let editionClock: String?

    /// The snapshot of `version` in an operation made at `operationClock`; a metadata clock
    /// equal to it is left out (the reader takes the operation's).
    init(_ version: BookVersion, operationClock: HybridTimestamp) {
        let book = version.book
        id = book.id.rawValue
        title = book.title
        authors = book.authors
        progress = book.progress
        createdAt = book.createdAt.millisecondsSince1970
        updatedAt = book.updatedAt.millisecondsSince1970
        deletedAt = book.deletedAt?.millisecondsSince1970
        self.version = book.version
        progressRewind = nil
        progressClock = nil
        metadataClock = version.metadataClock == operationClock ? nil : version.metadataClock.description
        progressMarks = version.positions.text
        rating = book.rating
        ratingClock = version.ratingClock == .origin ? nil : version.ratingClock.description
        readingLog = book.readingLog.isEmpty ? nil : book.readingLog.text
        edition = book.edition.isEmpty ? nil : book.edition.text
        editionClock = version.editionClock == .origin ? nil : version.editionClock.description
    }

    /// Whether a device of bmvault 0.9 or older would lose something reading it (a rating,
    /// a status), and it must wait for that device's upgrade.
    var needsFormat4: Bool { rating != nil || ratingClock != nil || readingLog != nil }

    /// Whether a device of bmvault 0.10 or older would lose something reading it (an edition,
    /// or the clock of one taken away).
    var needsFormat5: Bool { edition != nil || editionClock != nil }
    /// Format 8 (bmvault 0.16): a reading log with an event whose day is not known (`~`),
    /// which an older device would refuse as breaking the log's rules, and never read again.
    /// By its bytes: the log is bmvault's own ASCII, and a search by characters (Foundation's)
    /// cost more than the rest of encoding the operation.
    var needsFormat8: Bool { readingLog?.utf8.contains(UInt8(ascii: "~")) == true }

    /// The version, checked. `clock` is the operation's; a format 1 snapshot, which has no
    /// metadata clock, counts as changing everything at it, and its one position as recorded
    /// at its progress clock.
    func version(at clock: HybridTimestamp) throws(JournalError) -> BookVersion {
        guard VersionNumber.range.contains(version) else { throw .versionOutOfRange }
        var checkedAuthors: [String] = []
        for author in authors { checkedAuthors.append(try TextRules.line(author, field: "author")) }
        // A purged tombstone travels with no title (a content-free stand-in); a live book needs one.
        let contentFree = deletedAt != nil && title.isEmpty && authors.isEmpty
        let book = Book(id: try EntityID(validating: id), title: contentFree ? "" : try TextRules.line(title, field: "title"),
                        authors: checkedAuthors, progress: try Book.checkedProgress(progress),
                        createdAt: Timestamp(millisecondsSince1970: createdAt), updatedAt: Timestamp(millisecondsSince1970: updatedAt),
                        deletedAt: deletedAt.map(Timestamp.init(millisecondsSince1970:)), version: version,
                        readingLog: try readingLog.map { (text) throws(JournalError) in try ReadingLog(parsing: text) } ?? .empty,
                        rating: try rating.map { (stars) throws(JournalError) in try Rating.checked(stars) },
                        edition: try edition.map { (text) throws(JournalError) in try Edition(parsing: text) } ?? .unknown)
        let positions: ProgressPolicy.Positions
        if let progressMarks {
            positions = try ProgressPolicy.Positions(parsing: progressMarks)
        } else {
            let recorded = try progressClock.map { (text) throws(JournalError) in try HybridTimestamp(parsing: text) } ?? clock
            positions = ProgressPolicy.Positions(percent: book.progress, isRewind: progressRewind ?? false, clock: recorded)
        }
        return BookVersion(book, clock: clock,
                           metadataClock: try metadataClock.map { (text) throws(JournalError) in try HybridTimestamp(parsing: text) } ?? clock,
                           positions: positions,
                           ratingClock: try ratingClock.map { (text) throws(JournalError) in try HybridTimestamp(parsing: text) } ?? .origin,
                           editionClock: try editionClock.map { (text) throws(JournalError) in try HybridTimestamp(parsing: text) } ?? .origin)
    }

    func write(to out: inout JSONObjectWriter) {
        out.strings("authors", authors)
        out.integer("createdAt", createdAt)
        if let deletedAt { out.integer("deletedAt", deletedAt) }
        if let edition { out.string("edition", edition) }
        if let editionClock { out.string("editionClock", editionClock) }
        out.string("id", id)
        if let metadataClock { out.string("metadataClock", metadataClock) }
        out.double("progress", progress)
        if let progressMarks { out.string("progressMarks", progressMarks) }
        if let rating { out.double("rating", rating) }
        if let ratingClock { out.string("ratingClock", ratingClock) }
        if let readingLog { out.string("readingLog", readingLog) }
        out.string("title", title)
        out.integer("updatedAt", updatedAt)
        out.integer("version", version)
    }
}

/// A session. Format 3 added what an edit or a deletion needs: the version, the deletion
/// time and the clock of the last change (left out when equal to the operation's). A
/// session recorded and never changed is written without them, as format 2 wrote it.
/// Format 10 added where an import found it (`source`), written only for such a session.
struct SessionSnapshot: Codable {
    let id: String, bookId: String, startedAt: Int64, endedAt: Int64, pagesRead: Int
    let deletedAt: Int64?
    let version: Int64?
    let clock: String?
    let source: String?

    init(_ version: SessionVersion, operationClock: HybridTimestamp) {
        let session = version.session
        id = session.id.rawValue
        bookId = session.bookID.rawValue
        startedAt = session.startedAt.millisecondsSince1970
        endedAt = session.endedAt.millisecondsSince1970
        pagesRead = session.pagesRead
        deletedAt = session.deletedAt?.millisecondsSince1970
        self.version = session.version == 1 ? nil : session.version
        clock = version.clock == operationClock ? nil : version.clock.description
        source = session.source
    }

    /// Whether a device from before schema v20 (bmvault 0.18.1 and older) would lose
    /// something reading it (where the session came from), and it must wait for that
    /// device's upgrade.
    var needsFormat10: Bool { source != nil }

    /// Whether a device of bmvault 0.8 or older would misread it: it would keep the session
    /// it has instead of an edited one, or store a deleted one as live. (A clock of its own
    /// alone, as a snapshot carries, it ignores harmlessly.)
    var needsFormat3: Bool { deletedAt != nil || version != nil }

    /// The version, checked. Its clock is its own if it carries one; else a session never
    /// changed (version 1, live: what every format 2 operation and a bmvault 0.8 snapshot
    /// hold) has the origin clock, so it never undoes a change; else the operation's.
    func version(at operationClock: HybridTimestamp) throws(JournalError) -> SessionVersion {
        guard (0...ReadingSession.maximumPages).contains(pagesRead) else { throw .pagesOutOfRange }
        guard endedAt >= startedAt else { throw .sessionEndsBeforeStart }
        let number = version ?? 1
        guard VersionNumber.range.contains(number) else { throw .versionOutOfRange }
        let session = ReadingSession(id: try EntityID(validating: id), bookID: try EntityID(validating: bookId),
                                     startedAt: Timestamp(millisecondsSince1970: startedAt),
                                     endedAt: Timestamp(millisecondsSince1970: endedAt), pagesRead: pagesRead,
                                     deletedAt: deletedAt.map(Timestamp.init(millisecondsSince1970:)), version: number,
                                     source: try source.map { (text) throws(JournalError) in try TextRules.sessionSource(text) })
        let ownClock = try clock.map { (text) throws(JournalError) in try HybridTimestamp(parsing: text) }
        return SessionVersion(session, clock: ownClock ?? (number == 1 && deletedAt == nil ? .origin : operationClock))
    }

    func write(to out: inout JSONObjectWriter) {
        out.string("bookId", bookId)
        if let clock { out.string("clock", clock) }
        if let deletedAt { out.integer("deletedAt", deletedAt) }
        out.integer("endedAt", endedAt)
        out.string("id", id)
        out.integer("pagesRead", Int64(pagesRead))
        if let source { out.string("source", source) }
        out.integer("startedAt", startedAt)
        if let version { out.integer("version", version) }
    }
}

struct AnnotationSnapshot: Codable {
    let id: String, bookId: String, kind: String, body: String, locator: String?
    let createdAt: Int64, updatedAt: Int64, deletedAt: Int64?, version: Int64
    /// Format 1 (added with sync): conflict copies and unresolved conflicts travel too.
    let conflictOf: String?, conflictReason: String?
    /// Format 2: the version's own clock, and every version it supersedes (with itself).
    /// Left out when they say nothing more: a clock equal to the operation's (a version
    /// written by the operation that carries it), a history of the version alone.
    let clock: String?
    let history: String?
    /// Format 7 (bmvault 0.16): the reader's comment on a quote and the key it was imported
    /// under, written only by a version that has either.
    let comment: String?, importKey: String?

    /// Whether this snapshot needs format 7: older devices would drop what it adds.
    var needsFormat7: Bool { comment != nil || importKey != nil }

    init(_ version: AnnotationVersion, operationClock: HybridTimestamp) {
        let annotation = version.annotation
        id = annotation.id.rawValue
        bookId = annotation.bookID.rawValue
        kind = annotation.kind.rawValue
        body = annotation.body
        locator = annotation.locator?.text
        createdAt = annotation.createdAt.millisecondsSince1970
        updatedAt = annotation.updatedAt.millisecondsSince1970
        deletedAt = annotation.deletedAt?.millisecondsSince1970
        self.version = annotation.version
        conflictOf = annotation.conflictOf?.rawValue
        conflictReason = annotation.conflictReason?.rawValue
        clock = version.clock == operationClock ? nil : version.clock.description
        history = version.history == VersionVector(version.clock) ? nil : version.history.description
        comment = annotation.comment
        importKey = annotation.importKey
    }

    /// The version, checked. A format 1 snapshot has neither clock nor history: its version
    /// was written at the operation's clock and supersedes the one it was based on.
    func version(at operationClock: HybridTimestamp, base: HybridTimestamp?) throws(JournalError) -> AnnotationVersion {
        guard let kind = AnnotationKind(rawValue: kind) else { throw .invalidID }
        guard VersionNumber.range.contains(version) else { throw .versionOutOfRange }
        let checkedLocator: Locator? = try locator.map { (text) throws(JournalError) in try Locator(text) }
        // A purged tombstone travels with no text (a content-free stand-in); a live note needs some.
        let contentFree = deletedAt != nil && body.isEmpty && locator == nil && comment == nil
        let annotation = Annotation(
            id: try EntityID(validating: id), bookID: try EntityID(validating: bookId), kind: kind,
            body: contentFree ? "" : try TextRules.body(body, field: kind.rawValue), locator: checkedLocator,
            createdAt: Timestamp(millisecondsSince1970: createdAt), updatedAt: Timestamp(millisecondsSince1970: updatedAt),
            deletedAt: deletedAt.map(Timestamp.init(millisecondsSince1970:)), version: version,
            conflictOf: try conflictOf.map { (text) throws(JournalError) in try EntityID(validating: text) },
            conflictReason: conflictReason.flatMap(ConflictReason.init(rawValue:)),
            comment: try comment.map { (text) throws(JournalError) in try TextRules.body(text, field: "comment") },
            importKey: try importKey.map { (text) throws(JournalError) in try TextRules.importKey(text) })
        let versionClock = try clock.map { (text) throws(JournalError) in try HybridTimestamp(parsing: text) } ?? operationClock
        var supersedes = try history.map { (text) throws(JournalError) in try VersionVector(parsing: text) } ?? VersionVector(versionClock)
        if let base, history == nil { supersedes.insert(base) }
        return AnnotationVersion(annotation, clock: versionClock, history: supersedes)
    }

    func write(to out: inout JSONObjectWriter) {
        out.string("body", body)
        out.string("bookId", bookId)
        if let clock { out.string("clock", clock) }
        if let comment { out.string("comment", comment) }
        if let conflictOf { out.string("conflictOf", conflictOf) }
        if let conflictReason { out.string("conflictReason", conflictReason) }
        out.integer("createdAt", createdAt)
        if let deletedAt { out.integer("deletedAt", deletedAt) }
        if let history { out.string("history", history) }
        out.string("id", id)
        if let importKey { out.string("importKey", importKey) }
        out.string("kind", kind)
        if let locator { out.string("locator", locator) }
        out.integer("updatedAt", updatedAt)
        out.integer("version", version)
    }
}

/// A tag on a record (format 6, bmvault 0.13). The clock of its last change is left out
/// when equal to the operation's (a tagging sent by the change that made it).
struct TaggingSnapshot: Codable {
    let id: String, recordId: String, recordKind: String, name: String
    let createdAt: Int64, updatedAt: Int64, removedAt: Int64?, version: Int64
    let clock: String?

    init(_ version: TaggingVersion, operationClock: HybridTimestamp) {
        let tagging = version.tagging
        id = tagging.id.rawValue
        recordId = tagging.recordID.rawValue
        recordKind = tagging.recordKind.rawValue
        name = tagging.name
        createdAt = tagging.createdAt.millisecondsSince1970
        updatedAt = tagging.updatedAt.millisecondsSince1970
        removedAt = tagging.removedAt?.millisecondsSince1970
        self.version = tagging.version
        clock = version.clock == operationClock ? nil : version.clock.description
    }

    /// The version, checked. (A tagging whose name was purged with its record is never
    /// sent.)
    func version(at operationClock: HybridTimestamp) throws(JournalError) -> TaggingVersion {
        guard let kind = TaggedKind(rawValue: recordKind) else { throw .invalidID }
        guard VersionNumber.range.contains(version) else { throw .versionOutOfRange }
        let tagging = Tagging(id: try EntityID(validating: id), recordID: try EntityID(validating: recordId), recordKind: kind,
                              name: try Tag.checked(name),
                              createdAt: Timestamp(millisecondsSince1970: createdAt), updatedAt: Timestamp(millisecondsSince1970: updatedAt),
                              removedAt: removedAt.map(Timestamp.init(millisecondsSince1970:)), version: version)
        return TaggingVersion(tagging, clock: try clock.map { (text) throws(JournalError) in try HybridTimestamp(parsing: text) } ?? operationClock)
    }

    func write(to out: inout JSONObjectWriter) {
        if let clock { out.string("clock", clock) }
        out.integer("createdAt", createdAt)
        out.string("id", id)
        out.string("name", name)
        out.string("recordId", recordId)
        out.string("recordKind", recordKind)
        if let removedAt { out.integer("removedAt", removedAt) }
        out.integer("updatedAt", updatedAt)
        out.integer("version", version)
    }
}

/// A book file attached to a book, with its content (format 9, bmvault 0.18). The content's
/// key travels sealed as the Store keeps it (`fileKey`, base64), never in the clear; a
/// linked file's path never travels (it names a place on its own device). The clocks of the
/// last attachment change and of the locator are left out when equal to the operation's.
struct BookFileSnapshot: Codable {
    let id: String, bookId: String
    let fileId: String, format: String, size: Int64, checksum: String, metadata: String, fileDevice: String
    let fileKey: String?
    let fileCreatedAt: Int64
    let locator: String?
    let createdAt: Int64, updatedAt: Int64, removedAt: Int64?, version: Int64
    let clock: String?
    let locatorClock: String?

    /// What a file's metadata may weigh (it holds a few names and identifiers).
    static let maximumMetadataBytes = 1 << 20

    init(_ version: BookFileVersion, operationClock: HybridTimestamp) {
        let file = version.file
        id = file.id.rawValue
        bookId = file.bookID.rawValue
        fileId = file.content.id.rawValue
        format = file.content.format
        size = file.content.size
        checksum = file.content.checksum
        metadata = file.content.metadata
        fileDevice = file.content.deviceID
        fileKey = file.content.sealedKey.map { Data($0).base64EncodedString() }
        fileCreatedAt = file.content.createdAt.millisecondsSince1970
        locator = file.locator?.text
        createdAt = file.createdAt.millisecondsSince1970
        updatedAt = file.updatedAt.millisecondsSince1970
        removedAt = file.removedAt?.millisecondsSince1970
        self.version = file.version
        clock = version.clock == operationClock ? nil : version.clock.description
        locatorClock = version.locatorClock == operationClock ? nil : version.locatorClock.description
    }

    /// The version, checked.
    func version(at operationClock: HybridTimestamp) throws(JournalError) -> BookFileVersion {
        guard VersionNumber.range.contains(version) else { throw .versionOutOfRange }
        guard BookFile.Content.formats.contains(format), size >= 0, BookFile.Content.isChecksum(checksum),
              !fileDevice.isEmpty, fileDevice.utf8.count <= 64 else { throw .invalidID }
        guard !metadata.isEmpty, metadata.utf8.count <= Self.maximumMetadataBytes else { throw .textTooLong(field: "metadata", limit: Self.maximumMetadataBytes) }
        var key: [UInt8]?
        if let fileKey {
            guard let decoded = Data(base64Encoded: fileKey) else { throw .invalidID }
            key = Array(decoded)
        }
        let content = BookFile.Content(id: try EntityID(validating: fileId), format: format, size: size, checksum: checksum,
                                       metadata: metadata, deviceID: fileDevice,
                                       sealedKey: key, createdAt: Timestamp(millisecondsSince1970: fileCreatedAt))
        let file = BookFile(id: try EntityID(validating: id), bookID: try EntityID(validating: bookId), content: content,
                            locator: try locator.map { (text) throws(JournalError) in try Locator(text) },
                            createdAt: Timestamp(millisecondsSince1970: createdAt), updatedAt: Timestamp(millisecondsSince1970: updatedAt),
                            removedAt: removedAt.map(Timestamp.init(millisecondsSince1970:)), version: version)
        return BookFileVersion(file, clock: try clock.map { (text) throws(JournalError) in try HybridTimestamp(parsing: text) } ?? operationClock,
                               locatorClock: try locatorClock.map { (text) throws(JournalError) in try HybridTimestamp(parsing: text) } ?? operationClock)
    }

    func write(to out: inout JSONObjectWriter) {
        out.string("bookId", bookId)
        out.string("checksum", checksum)
        if let clock { out.string("clock", clock) }
        out.integer("createdAt", createdAt)
        out.integer("fileCreatedAt", fileCreatedAt)
        out.string("fileDevice", fileDevice)
        out.string("fileId", fileId)
        if let fileKey { out.string("fileKey", fileKey) }
        out.string("format", format)
        out.string("id", id)
        if let locator { out.string("locator", locator) }
        if let locatorClock { out.string("locatorClock", locatorClock) }
        out.string("metadata", metadata)
        if let removedAt { out.integer("removedAt", removedAt) }
        out.integer("size", size)
        out.integer("updatedAt", updatedAt)
        out.integer("version", version)
    }
}
