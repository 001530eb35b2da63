public import Journal

/// The vault's tables inside one transaction: what ``Store/read(_:)`` and
/// ``Store/write(_:)`` hand out, as GRDB hands out its `Database`.
///
/// Each table family is a small type of its own, reached from here, that runs its SQL in the
/// transaction it was handed and cannot begin, commit or nest one: a change and its outbox
/// operation land together or not at all, and a caller that needs several tables at once
/// asks for them inside one `write { }`. Do not keep a `Tables` beyond the closure that
/// received it.
public struct Tables {
    let store: Store
    /// Whether the transaction may write: tables refuse to change anything in a `read { }`.
    let isWrite: Bool

    var database: Database { store.database }
    /// The time by the vault's clock: when what this transaction adds is made.
    public var now: Timestamp { store.now }

    /// `book`: the books, their progress, ratings and reading logs.
    public var books: BookTable { BookTable(tables: self) }
    /// `annotation`: notes and quotes, their versions and conflict copies.
    public var annotations: AnnotationTable { AnnotationTable(tables: self) }
    /// `outbox`: the operations this device made, until every remote has them.
    public var outbox: OutboxTable { OutboxTable(tables: self) }
    /// Deleted books, notes and quotes, and the purge of their content.
    public var tombstones: TombstoneTable { TombstoneTable(tables: self) }
    /// `book_file` and `file`: the book files attached to books, and their contents.
    public var bookFiles: BookFileTable { BookFileTable(tables: self) }
    /// `remote`: the places this vault syncs with.
    public var remotes: RemoteTable { RemoteTable(tables: self) }
    /// `book_alias`: the names other programs give a book.
    public var bookAliases: BookAliasTable { BookAliasTable(tables: self) }
    /// Each live book's fingerprint for the notes folder, read without decrypting.
    public var noteFingerprints: NoteFingerprints { NoteFingerprints(tables: self) }
    /// `reading_session`: when the reader read, and how many pages.
    public var sessions: SessionTable { SessionTable(tables: self) }
    /// `keyslot` and `retired_key`: what unwraps the vault key, and the keys rekeys replaced.
    public var keys: KeyTable { KeyTable(tables: self) }
    /// `tagging`: tags given to books, notes and quotes.
    public var tags: TagTable { TagTable(tables: self) }
    /// `applied_operation`: the operations from other devices applied here.
    public var appliedOperations: AppliedOperationTable { AppliedOperationTable(tables: self) }
    /// Books, sessions, notes and quotes together: found by id or short id, and counted.
    public var records: RecordTable { RecordTable(tables: self) }
    /// Deleting and bringing back records of several kinds at once.
    public var trash: TrashTable { TrashTable(tables: self) }

    /// Stops a table change made inside a `read { }`: a programming error, not the reader's.
    func requireWrite(_ function: StaticString = #function) {
        precondition(isWrite, "\(function) changes the vault: call it inside Store.write { }")
    }
}

extension Store {
    /// The tables of the write transaction this Store's own code is already in (an import, a
    /// book merge): for the parts of the Store that have not become tables yet.
    package var tablesOfThisTransaction: Tables {
        precondition(database.isInTransaction, "not inside a write transaction")
        return Tables(store: self, isWrite: true)
    }

    /// Runs `body` with the tables, in a read transaction: every row it reads comes from one
    /// snapshot of the vault.
    public func read<Result>(_ body: (Tables) throws(StoreError) -> Result) throws(StoreError) -> Result {
        try database.readTransaction { () throws(StoreError) -> Result in try body(Tables(store: self, isWrite: false)) }
    }

    /// Runs `body` with the tables, in one write transaction (`BEGIN IMMEDIATE`): committed
    /// when it returns, rolled back, with nothing of it kept, when it throws.
    @discardableResult
    public func write<Result>(_ body: (Tables) throws(StoreError) -> Result) throws(StoreError) -> Result {
        try database.writeTransaction { () throws(StoreError) -> Result in try body(Tables(store: self, isWrite: true)) }
    }
}

// Not Sendable: the tables of one transaction are used on the thread that runs it.
@available(*, unavailable)
extension Tables: Sendable {}
