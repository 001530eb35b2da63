public import Journal
import VaultCrypto

extension Store {
    /// Streams the live notes and quotes that `query` finds in their body or locator, or
    /// that belong to one of `books` (whose titles matched), in listing order. Unreadable
    /// records arrive as failures naming their id.
    ///
    /// Two passes in one read transaction: a scan in stored order that opens each body (and
    /// locator) into one reused buffer and matches the bytes, keeping only row numbers; then
    /// the matches alone are read in listing order and made into records. A search costs
    /// one decryption per note and almost nothing more.
    public func forEachAnnotation(matching query: SearchQuery, orInBooks books: Set<EntityID>,
                                  _ body: (Result<Annotation, UnreadableRecord>) throws(StoreError) -> Void) throws(StoreError) {
        let cipher = try requireCipher()
        let openers = try AnnotationOpeners(cipher)
        try database.readTransaction { () throws(StoreError) in
            let found = try rowsMatching(query, orInBooks: books, cipher: cipher)
            guard !found.isEmpty else { return }
            let list = "[" + found.map(String.init).joined(separator: ",") + "]"
            try database.forEachRow("""
                SELECT \(AnnotationColumn.list) FROM annotation
                WHERE rowid IN (SELECT value FROM json_each(?)) ORDER BY book_id, created_at, id
                """, [.text(list)]) { (row) throws(StoreError) in
                try body(decodeAnnotation(row, openers: openers))
            }
        }
    }

    /// The row numbers of the live annotations that match, that belong to one of `books`,
    /// or whose body or locator cannot be opened (so that the listing reports them), in no
    /// particular order. The opening is shared with a second thread (``SearchScan``).
    private func rowsMatching(_ query: SearchQuery, orInBooks books: Set<EntityID>, cipher: RecordCipher) throws(StoreError) -> [Int64] {
        let scan: SearchScan
        do { scan = try SearchScan(query: query, sealer: cipher.sealer) } catch { throw .crypto(error) }
        var found: [Int64] = []
        var batch = scan.batch()
        var sequence = 0
        try database.forEachRow("SELECT rowid, id, book_id, body, locator FROM annotation WHERE deleted_at IS NULL") { row in
            if !books.isEmpty, let bookID = try? EntityID(validating: row.text(2)), books.contains(bookID) {
                found.append(row.int64(0))
                return
            }
            row.withBytes(1) { id in
                row.withBytes(3) { body in
                    if row.isNull(4) {
                        batch.append(rowID: row.int64(0), id: id, body: body, locator: nil)
                    } else {
                        row.withBytes(4) { locator in batch.append(rowID: row.int64(0), id: id, body: body, locator: locator) }
                    }
                }
            }
            if batch.count == SearchScan.batchSize {
                found += scan.submit(batch, sequence: sequence)
                sequence += 1
                batch = scan.batch()
            }
        }
        // The last, partial batch is matched here, while the helper finishes.
        found += scan.submit(batch, sequence: 1)
        return found + scan.finish()
    }
}
