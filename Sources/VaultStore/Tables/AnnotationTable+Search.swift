public import Journal
import VaultCrypto

extension AnnotationTable {
    /// Streams the live notes and quotes of `filter` that hold every term of `query` in
    /// their body, their locator, their comment, or their book's title and authors (`bookTerms`: the terms
    /// each book covers, by id; a book not named covers none), in listing order. Unreadable
    /// records arrive as failures naming their id.
    ///
    /// Two passes in one read transaction: a scan in stored order that opens each body (and
    /// locator) into one reused buffer and matches the bytes, keeping only row numbers; then
    /// the matches alone are read in listing order and made into records. A search costs
    /// one decryption per note and almost nothing more.
    public func forEach(matching query: SearchQuery, in filter: AnnotationFilter, bookTerms: [EntityID: UInt64],
                        _ body: (Result<Annotation, UnreadableRecord>) throws(StoreError) -> Void) throws(StoreError) {
        let cipher = try store.requireCipher()
        let openers = try AnnotationOpeners(cipher)
        try database.readTransaction { () throws(StoreError) in
            let found = try rowsMatching(query, in: filter, bookTerms: bookTerms, cipher: cipher)
            guard !found.isEmpty else { return }
            let list = "[" + found.map(String.init).joined(separator: ",") + "]"
            try database.forEachRow("""
                SELECT \(AnnotationColumn.list) FROM annotation
                WHERE rowid IN (SELECT value FROM json_each(?)) ORDER BY book_id, created_at, id
                """, [.text(list)]) { (row) throws(StoreError) in
                try body(decode(row, openers: openers))
            }
        }
    }

    /// `column`'s bytes, or nil when it is NULL, for `body`.
    private static func withOptionalBytes(_ row: Row, _ column: ScannedColumn, _ body: (UnsafeRawBufferPointer?) -> Void) {
        if row.isNull(column) { body(nil) } else { row.withBytes(column) { body($0) } }
    }

    /// The row numbers of the annotations of `filter` that match, or whose body, locator or comment
    /// cannot be opened (so that the listing reports them), in no particular order. The
    /// opening is shared with a second thread (``SearchScan``).
    private func rowsMatching(_ query: SearchQuery, in filter: AnnotationFilter, bookTerms: [EntityID: UInt64],
                              cipher: RecordCipher) throws(StoreError) -> [Int64] {
        let scan: SearchScan
        do { scan = try SearchScan(query: query, sealer: cipher.sealer) } catch { throw .crypto(error) }
        var found: [Int64] = []
        var batch = scan.batch()
        var sequence = 0
        // Keyed by the stored text, so that a row's book is looked up without parsing its id.
        let covered = Dictionary(bookTerms.map { ($0.key.rawValue, $0.value) }, uniquingKeysWith: |)
        let (whereClause, values) = filter.sql()
        try database.forEachRow("SELECT \(ScannedColumn.list) FROM annotation \(whereClause)", values) { row in
            let rowID = row.int64(ScannedColumn.rowID)
            let wanted = covered.isEmpty ? query.allTerms : query.allTerms & ~(covered[row.text(ScannedColumn.bookID)] ?? 0)
            if wanted == 0 {
                found.append(rowID)
                return
            }
            row.withBytes(ScannedColumn.id) { id in
                row.withBytes(ScannedColumn.body) { body in
                    Self.withOptionalBytes(row, .locator) { locator in
                        Self.withOptionalBytes(row, .comment) { comment in
                            batch.append(rowID: rowID, id: id, body: body, locator: locator, comment: comment, wanted: wanted)
                        }
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

/// The columns a search scans (``AnnotationTable/forEach(matching:in:bookTerms:_:)``), in the
/// order it selects them.
private enum ScannedColumn: Int32, TableColumns {
    case rowID, id, bookID, body, locator, comment

    var name: String {
        switch self {
        case .rowID: "rowid"
        case .id: "id"
        case .bookID: "book_id"
        case .body: "body"
        case .locator: "locator"
        case .comment: "comment"
        }
    }
}
