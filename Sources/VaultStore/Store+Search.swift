public import Journal

extension Store {
    /// Streams the live notes and quotes that `query` finds in their body or locator, or
    /// that belong to one of `books` (whose titles matched). Bodies are matched as
    /// decrypted bytes; only a match is made into a full record, so a search costs one
    /// decryption per note and almost nothing more.
    public func forEachAnnotation(matching query: SearchQuery, orInBooks books: Set<EntityID>,
                                  _ body: (Result<Annotation, UnreadableRecord>) throws(StoreError) -> Void) throws(StoreError) {
        let cipher = try requireCipher()
        try database.readTransaction { () throws(StoreError) in
            try database.forEachRow("""
                SELECT \(Self.annotationColumns) FROM annotation WHERE deleted_at IS NULL ORDER BY book_id, created_at, id
                """) { (row) throws(StoreError) in
                let id = row.text(0)
                let inMatchingBook = (try? EntityID(validating: row.text(1))).map(books.contains) ?? false
                if !inMatchingBook {
                    guard let text = try? cipher.sealer.open(row.blob(3), table: "annotation", recordID: id, field: "body") else {
                        try body(.failure(UnreadableRecord(id: id, field: "body")))
                        return
                    }
                    var found = query.matches(text)
                    if !found, !row.isNull(4),
                       let locator = try? cipher.sealer.open(row.blob(4), table: "annotation", recordID: id, field: "locator") {
                        found = query.matches(locator)
                    }
                    guard found else { return }
                }
                try body(decodeAnnotation(row, cipher: cipher))
            }
        }
    }
}
