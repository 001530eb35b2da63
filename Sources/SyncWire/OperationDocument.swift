import Foundation
import Journal

/// An operation as a JSON document: what is sealed, once, into the outbox, and copied
/// unchanged to every remote.
///
/// Format 2: `{"action", "annotation" | "book" | "session", "clock", "device", "entity",
/// "id", "key", "v": 2}`, the record an object of its own, members in sorted order.
/// Format 3 (bmvault 0.9) is format 2 with a session's version, deletion time and clock
/// (``SessionSnapshot``); it is written only for an operation that carries them (an edited
/// or deleted session), so that older devices, which refuse a newer format and read the
/// file again once upgraded, keep reading everything else.
/// Format 4 (bmvault 0.10) is format 3 with a book's rating and reading log
/// (``BookSnapshot``), written only for a book that has either, for the same reason.
/// Format 5 (bmvault 0.11) is format 4 with a book's edition and its clock, written only
/// for a book that has them.
/// Format 6 (bmvault 0.13) adds the `tagging` record (``TaggingSnapshot``): a tag on a
/// book, note or quote, an entity of its own. Only a tagging's operation is format 6.
/// Format 7 (bmvault 0.16) is format 6 with a note's or quote's `comment` and `importKey`
/// (``AnnotationSnapshot``), written only for a version that has either.
/// Format 8 (bmvault 0.16) is format 7 with a book's reading log holding a status change
/// whose day is not known (`~` before its time, ``ReadingLog/text``), written only then.
/// Format 9 (bmvault 0.18) adds the `bookFile` record (``BookFileSnapshot``): a book file
/// attached to a book, with its content's description and sealed key. Only a book file's
/// operation is format 9.
/// Format 10 is format 9 with a session's `source` (``SessionSnapshot``): where an import
/// found it (KOReader's statistics), written only for a session that has one.
/// Format 1 (bmvault 0.3 to 0.5) had the clock as `hlc`, the clock of the changed version
/// as `base`, and the record as JSON text inside a string (`payload`); it is still read.
public enum OperationDocument {
    /// The newest format this build reads.
    public static let version = 10

    public static func encode(_ operation: SyncOperation) -> [UInt8] {
        var out = JSONObjectWriter()
        out.string("action", operation.action.rawValue)
        var format = 2
        if case .annotation(let version) = operation.record {
            let snapshot = AnnotationSnapshot(version, operationClock: operation.clock)
            if snapshot.needsFormat7 { format = 7 }
            out.object("annotation") { snapshot.write(to: &$0) }
        }
        if case .bookFile(let version) = operation.record {
            format = 9
            out.object("bookFile") { BookFileSnapshot(version, operationClock: operation.clock).write(to: &$0) }
        }
        if case .book(let version) = operation.record {
            let snapshot = BookSnapshot(version, operationClock: operation.clock)
            if snapshot.needsFormat8 { format = 8 } else if snapshot.needsFormat5 { format = 5 } else if snapshot.needsFormat4 { format = 4 }
            out.object("book") { snapshot.write(to: &$0) }
        }
        out.string("clock", operation.clock.description)
        out.string("device", operation.deviceID)
        out.string("entity", operation.entity.rawValue)
        out.string("id", operation.entityID.rawValue)
        out.string("key", operation.idempotencyKey)
        if case .session(let version) = operation.record {
            let snapshot = SessionSnapshot(version, operationClock: operation.clock)
            if snapshot.needsFormat10 { format = 10 } else if snapshot.needsFormat3 { format = 3 }
            out.object("session") { snapshot.write(to: &$0) }
        }
        if case .tagging(let version) = operation.record {
            format = 6
            out.object("tagging") { TaggingSnapshot(version, operationClock: operation.clock).write(to: &$0) }
        }
        out.integer("v", Int64(format))
        return out.finish()
    }

    /// What reading an opened file gave.
    public enum Decoded: Sendable, Equatable {
        case operation(SyncOperation)
        /// A well-formed operation whose record breaks the journal's rules (text too long,
        /// an id that is not one...): refused, and recorded as seen so it is never retried.
        case refused(idempotencyKey: String, deviceID: String, clock: HybridTimestamp, entity: OutboxEntity, action: OutboxAction)
    }

    /// Reads an opened file of `device` named with `expectedKey`. A file that is not an
    /// operation of that device and key, or is from a newer format, is `malformed`.
    public static func decode(_ plaintext: [UInt8], expectedKey: String, device: String) throws(MalformedDocument) -> Decoded {
        guard let document = try? JSONDecoder().decode(Document.self, from: Data(plaintext)) else {
            throw MalformedDocument(what: "operation")
        }
        guard document.v <= version else { throw MalformedDocument(what: "operation from a newer bmvault") }
        guard document.key == expectedKey, document.device == device,
              let entity = OutboxEntity(rawValue: document.entity), let action = OutboxAction(rawValue: document.action),
              let clockText = document.v >= 2 ? document.clock : document.hlc,
              let clock = try? HybridTimestamp(parsing: clockText),
              let entityID = document.v >= 2 ? document.id : document.entityId else { throw MalformedDocument(what: "operation") }
        var base: HybridTimestamp?
        if let text = document.base {
            guard let parsed = try? HybridTimestamp(parsing: text) else { throw MalformedDocument(what: "operation") }
            base = parsed
        }
        var records = Records(book: document.book, session: document.session, annotation: document.annotation,
                              tagging: document.tagging, bookFile: document.bookFile)
        if document.v < 2 {
            guard let text = document.payload else { throw MalformedDocument(what: "operation") }
            records = try Records(payloadV1: Array(text.utf8))
        }
        return assemble(key: expectedKey, device: device, clock: clock, entity: entity, action: action,
                        entityID: entityID, base: base, records: records)
    }

    /// An outbox row made before format 2 (bmvault 0.3 to 0.5): its clear columns and its
    /// payload, format 1's record as JSON. Converted once, it is sent like any operation.
    public static func decodeLegacyOutboxRow(payload: [UInt8], idempotencyKey: String, deviceID: String, clock: HybridTimestamp,
                                             base: HybridTimestamp?, entity: OutboxEntity, action: OutboxAction,
                                             entityID: String) throws(MalformedDocument) -> Decoded {
        assemble(key: idempotencyKey, device: deviceID, clock: clock, entity: entity, action: action, entityID: entityID,
                 base: base, records: try Records(payloadV1: payload))
    }

    private static func assemble(key: String, device: String, clock: HybridTimestamp, entity: OutboxEntity, action: OutboxAction,
                                 entityID: String, base: HybridTimestamp?, records: Records) -> Decoded {
        let refused = Decoded.refused(idempotencyKey: key, deviceID: device, clock: clock, entity: entity, action: action)
        let record: RecordVersion
        do throws(JournalError) {
            switch entity {
            case .book:
                guard let book = records.book else { return refused }
                record = .book(try book.version(at: clock))
            case .session:
                guard let session = records.session else { return refused }
                record = .session(try session.version(at: clock))
            case .annotation:
                guard let annotation = records.annotation else { return refused }
                record = .annotation(try annotation.version(at: clock, base: base))
            case .tagging:
                guard let tagging = records.tagging else { return refused }
                record = .tagging(try tagging.version(at: clock))
            case .bookFile:
                guard let bookFile = records.bookFile else { return refused }
                record = .bookFile(try bookFile.version(at: clock))
            }
        } catch {
            return refused
        }
        let operation = SyncOperation(idempotencyKey: key, deviceID: device, clock: clock, action: action, record: record)
        return operation.entityID.rawValue == entityID ? .operation(operation) : refused
    }

    private struct Records {
        var book: BookSnapshot?
        var session: SessionSnapshot?
        var annotation: AnnotationSnapshot?
        var tagging: TaggingSnapshot?
        var bookFile: BookFileSnapshot?

        init(book: BookSnapshot?, session: SessionSnapshot?, annotation: AnnotationSnapshot?, tagging: TaggingSnapshot? = nil,
             bookFile: BookFileSnapshot? = nil) {
            self.book = book
            self.session = session
            self.annotation = annotation
            self.tagging = tagging
            self.bookFile = bookFile
        }

        /// Format 1's record: `{"annotation" | "book" | "session": {...}, "v": 1}`.
        init(payloadV1 bytes: [UInt8]) throws(MalformedDocument) {
            guard let payload = try? JSONDecoder().decode(PayloadV1.self, from: Data(bytes)) else { throw MalformedDocument(what: "operation") }
            self.init(book: payload.book, session: payload.session, annotation: payload.annotation)
        }
    }

    /// Both formats' members; each format fills its own.
    private struct Document: Decodable {
        let v: Int
        let key: String
        let device: String
        let entity: String
        let action: String
        // Format 2.
        let id: String?
        let clock: String?
        let book: BookSnapshot?
        let session: SessionSnapshot?
        let annotation: AnnotationSnapshot?
        // Format 6.
        let tagging: TaggingSnapshot?
        // Format 9.
        let bookFile: BookFileSnapshot?
        // Format 1.
        let entityId: String?
        let hlc: String?
        let base: String?
        let payload: String?
    }

    /// Format 1's record, JSON text inside the document's `payload` string (and the payload
    /// of an outbox row made before format 2).
    private struct PayloadV1: Decodable {
        let book: BookSnapshot?
        let session: SessionSnapshot?
        let annotation: AnnotationSnapshot?
    }
}
