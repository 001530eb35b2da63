public import Journal
import VaultCrypto

/// For each live book, a SHA-256 (hex) of everything stored that its note in a notes folder
/// is made from (`export --markdown-folder`, Docs/NOTES-FOLDER.md): the book's title,
/// authors, reading log, rating and edition, its tags, and each live note and quote of it
/// (text, locator, comment, kind, creation time, conflict marks) with their tags, read as
/// stored: a sealed field by its length and nonce, so nothing is decrypted. A change to any
/// of them changes the fingerprint (a sealed field is sealed again with a new nonce whenever
/// it is written), so a book whose fingerprint is the one its note was made from needs
/// neither decrypting nor rendering. A change that leaves the text alone (a rekey, a merge
/// writing the same value again) only costs a rendering that writes nothing.
public struct NoteFingerprints {
    let tables: Tables
    private var database: Database { tables.database }

    /// Every live book's fingerprint, read in the transaction these tables belong to.
    public func byBook() throws(StoreError) -> [EntityID: String] {
        var parts: [String: [String]] = [:]
        /// Each book's rows of `sql` (in book order), hashed as one run of bytes. A sealed
        /// column (`sealed`) is taken as its length and its clear prefix
        /// (``FieldSealer/clearPrefixCount``: version, key id and the nonce, which is new
        /// at every sealing), so any change of the field changes them, and the ciphertext
        /// need not be hashed.
        func hashRows(_ sql: String, columns: Int32, sealed: Set<Int32>) throws(StoreError) {
            var current: String?
            var buffer: [UInt8] = []
            buffer.reserveCapacity(1 << 16)
            var hasher = SHA256()
            func flush() {
                guard let book = current else { return }
                hasher.update(buffer)
                buffer.removeAll(keepingCapacity: true)
                parts[book, default: []].append(hasher.finalizeHex())
                hasher = SHA256()
            }
            try database.forEachRow(sql) { row in
                let book = row.text(0)
                if book != current {
                    flush()
                    current = book
                }
                for column in 0..<columns {
                    let isNull = row.isNull(column)
                    row.withBytes(column) { bytes in
                        let length = isNull ? Int64(-1) : Int64(bytes.count)
                        withUnsafeBytes(of: length.littleEndian) { buffer.append(contentsOf: $0) }
                        buffer.append(contentsOf: sealed.contains(column) ? UnsafeRawBufferPointer(rebasing: bytes.prefix(FieldSealer.clearPrefixCount)) : bytes)
                    }
                }
                if buffer.count >= 1 << 16 {
                    hasher.update(buffer)
                    buffer.removeAll(keepingCapacity: true)
                }
            }
            flush()
        }
        try hashRows("""
            SELECT id, title, authors, reading_log, rating, edition FROM book WHERE deleted_at IS NULL ORDER BY id
            """, columns: 6, sealed: [1, 2, 4, 5])
        try hashRows("""
            SELECT book_id, id, kind, body, locator, comment, created_at, conflict_of, conflict_reason
            FROM annotation WHERE deleted_at IS NULL ORDER BY book_id, created_at, id
            """, columns: 9, sealed: [3, 4, 5])
        try hashRows("""
            SELECT coalesce(a.book_id, t.record_id) AS book, t.record_kind, t.record_id, t.name
            FROM tagging t LEFT JOIN annotation a ON t.record_kind = 'annotation' AND a.id = t.record_id
            WHERE t.removed_at IS NULL AND (t.record_kind = 'book' OR a.deleted_at IS NULL)
            ORDER BY book, t.id
            """, columns: 4, sealed: [3])
        var fingerprints: [EntityID: String] = [:]
        // Only live books: their row comes first in each list, so a book without one is not live.
        try database.forEachRow("SELECT id FROM book WHERE deleted_at IS NULL") { row in
            let id = row.text(0)
            guard let book = try? EntityID(validating: id), let hashes = parts[id] else { return }
            fingerprints[book] = SHA256.hex(of: Array(hashes.joined(separator: ",").utf8))
        }
        return fingerprints
    }
}
