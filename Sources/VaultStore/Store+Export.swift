public import Journal

extension Store {
    /// Runs `body` inside one read transaction, so that every read it makes (books, notes,
    /// quotes, sessions, one after another) sees the same state of the vault: an export
    /// taken while another process writes is still whole. Rethrows what `body` throws.
    public func withReadSnapshot<Result>(_ body: () throws -> Result) throws -> Result {
        try database.execute("BEGIN DEFERRED")
        defer { database.rollbackIfNeeded() }
        return try body()
    }

    /// Hands every live reading session to `body`, by book, then start, then id, one row at
    /// a time: memory does not grow with the journal. A deleted session is not exported (it
    /// holds no text to keep, and an archive never changes a session here).
    public func forEachSession(_ body: (ReadingSession) throws(StoreError) -> Void) throws(StoreError) {
        _ = try requireCipher()
        try database.readTransaction { () throws(StoreError) in
            try database.forEachRow("""
                SELECT id, book_id, started_at, ended_at, pages_read FROM reading_session WHERE deleted_at IS NULL
                ORDER BY book_id, started_at, id
                """) { (row) throws(StoreError) in
                guard let id = try? EntityID(validating: row.text(0)),
                      let bookID = try? EntityID(validating: row.text(1)) else { return }
                try body(ReadingSession(id: id, bookID: bookID, startedAt: Timestamp(millisecondsSince1970: row.int64(2)),
                                        endedAt: Timestamp(millisecondsSince1970: row.int64(3)), pagesRead: Int(row.int64(4))))
            }
        }
    }
}
