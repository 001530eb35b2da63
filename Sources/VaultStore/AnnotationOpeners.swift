import Journal
import VaultCrypto

/// The sealed fields of notes and quotes, opened many in a row (a listing, an export): each
/// field's associated data is encoded once and every plaintext lands in one reused, wiped
/// buffer (``FieldOpener``), read straight from SQLite's row, instead of a copy of each
/// sealed value, of its associated data and of its plaintext per note.
struct AnnotationOpeners {
    let body: FieldOpener
    let locator: FieldOpener
    let comment: FieldOpener
    let importKey: FieldOpener

    init(_ cipher: RecordCipher) throws(StoreError) {
        do {
            body = try cipher.sealer.opener(table: "annotation", field: "body")
            locator = try cipher.sealer.opener(table: "annotation", field: "locator")
            comment = try cipher.sealer.opener(table: "annotation", field: "comment")
            importKey = try cipher.sealer.opener(table: "annotation", field: "import_key")
        } catch {
            throw .crypto(error)
        }
    }

    /// The text sealed in `column` of `row` (selected with ``AnnotationColumn/list``), under
    /// the rule of ``RecordCipher/readable(_:id:field:)``.
    func open(_ opener: FieldOpener, _ row: Row, column: AnnotationColumn, id: String, field: String) throws(UnreadableRecord) -> String {
        var text: String?
        let opened = row.withBytes(column) { sealed in
            row.withBytes(AnnotationColumn.id) { recordID in
                (try? opener.open(sealed, recordID: recordID) { plain in
                    text = String(utf8Bytes: plain)
                    return text != nil ? 1 : 0
                }) == 1
            }
        }
        return try RecordCipher.readable(opened ? text : nil, id: id, field: field)
    }
}
