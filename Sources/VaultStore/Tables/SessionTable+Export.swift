public import Journal

extension SessionTable {
    /// Hands every live reading session to `body`, by book, then start, then id, one row at
    /// a time: memory does not grow with the journal. A deleted session is not exported (it
    /// holds no text to keep, and an archive never changes a session here).
    public func forEachLive(_ body: (ReadingSession) throws(StoreError) -> Void) throws(StoreError) {
        _ = try tables.store.requireCipher()
        try tables.database.forEachRow("""
            SELECT id, book_id, started_at, ended_at, pages_read, source FROM reading_session WHERE deleted_at IS NULL
            ORDER BY book_id, started_at, id
            """) { (row) throws(StoreError) in
            guard let id = try? EntityID(validating: row.text("id")),
                  let bookID = try? EntityID(validating: row.text("book_id")) else { return }
            try body(ReadingSession(id: id, bookID: bookID, startedAt: Timestamp(millisecondsSince1970: row.int64("started_at")),
                                    endedAt: Timestamp(millisecondsSince1970: row.int64("ended_at")),
                                    pagesRead: Int(row.int64("pages_read")), source: row.optionalText("source")))
        }
    }
}
