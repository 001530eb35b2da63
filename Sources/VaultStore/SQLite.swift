internal import SQLiteDatabase

// The Store's SQLite, from the module that wraps the library (the only importer of
// CSQLite): a connection whose calls throw `StoreError`, and the names the tables use.
typealias Database = SQLiteDatabase.Database<StoreError>
typealias Row = SQLiteDatabase.Row
typealias SQLValue = SQLiteDatabase.SQLValue
typealias TableColumns = SQLiteDatabase.TableColumns
typealias DatabaseError = SQLiteDatabase.DatabaseError
typealias ResultCode = SQLiteDatabase.ResultCode

extension SQLiteDatabase.Database where Failure == StoreError {
    /// Opens the vault's database at `path` (``SQLiteDatabase/Database/init(path:create:readOnly:failure:)``),
    /// each of SQLite's errors a `StoreError`.
    convenience init(path: String, create: Bool, readOnly: Bool = false) throws(DatabaseError) {
        try self.init(path: path, create: create, readOnly: readOnly, failure: StoreError.init)
    }
}
