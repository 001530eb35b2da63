import Journal
import SyncWire
import Telemetry
import VaultCrypto

/// Seals and opens the encrypted columns of the store, naming each by table and field,
/// so the associated data of a sealed value always matches where it is stored; and seals
/// each outbox operation once, as it goes to the remotes (``OperationCipher``).
struct RecordCipher {
    let sealer: FieldSealer

    func seal(_ text: String, table: String, id: String, field: String) throws(StoreError) -> [UInt8] {
        do {
            return try sealer.seal(Array(text.utf8), table: table, recordID: id, field: field)
        } catch {
            throw .crypto(error)
        }
    }

    /// Opens a sealed column. Any failure, including invalid UTF-8 inside a valid
    /// envelope, means the record cannot be trusted and is reported as unreadable.
    func open(_ sealed: [UInt8], table: String, id: String, field: String) throws(UnreadableRecord) -> String {
        let plain = try? sealer.open(sealed, table: table, recordID: id, field: field)
        return try Self.readable(plain.flatMap { String(utf8Bytes: $0) }, id: id, field: field)
    }

    /// The one rule for every opened field: text that opened and is valid UTF-8 is
    /// remembered, so the log backstop can find it (Telemetry's `RecentContent`); anything
    /// else makes the record unreadable.
    static func readable(_ text: String?, id: String, field: String) throws(UnreadableRecord) -> String {
        guard let text else { throw UnreadableRecord(id: id, field: field) }
        RecentContent.shared.remember(text)
        return text
    }

    var operations: OperationCipher { OperationCipher(sealer: sealer) }

    /// An operation's document, sealed as it is stored in the outbox and sent.
    func sealOperation(_ operation: SyncOperation) throws(StoreError) -> [UInt8] {
        var document = OperationDocument.encode(operation)
        defer { wipe(&document) }
        do {
            return try operations.seal(operation: document, idempotencyKey: operation.idempotencyKey)
        } catch {
            throw .crypto(error)
        }
    }
}
