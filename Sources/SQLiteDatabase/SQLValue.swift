/// A value bound to, or read from, an SQLite statement.
public enum SQLValue {
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
    case null
}

extension SQLValue {
    /// An optional integer: `NULL` when absent.
    public static func integer(_ value: Int64?) -> SQLValue {
        value.map(SQLValue.integer) ?? .null
    }

    /// An optional blob: `NULL` when absent.
    public static func blob(_ value: [UInt8]?) -> SQLValue {
        value.map(SQLValue.blob) ?? .null
    }
}
