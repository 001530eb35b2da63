/// What a sealed value is bound to. Opening it under any other binding fails, so a
/// ciphertext copied onto another record, field or vault is refused, not misread.
public struct Binding: Sendable, Equatable {
    public let vaultID: String
    public let table: String
    public let recordID: String
    public let field: String

    public init(vaultID: String, table: String, recordID: String, field: String) {
        self.vaultID = vaultID
        self.table = table
        self.recordID = recordID
        self.field = field
    }

    /// An unambiguous encoding: a purpose label, then each component with a 2-byte length,
    /// so no two different bindings encode to the same bytes. A component too long for its
    /// length prefix is refused rather than truncated.
    func encoded(purpose: String, header: some Collection<UInt8>) throws(CryptoError) -> [UInt8] {
        // Built in one allocation: every field sealed or opened encodes one.
        var out = try Self.encodedPrefix(purpose: purpose, header: header, vaultID: vaultID, table: table,
                                         reserving: recordID.utf8.count + field.utf8.count + 4)
        try Self.appendComponent(recordID.utf8, to: &out)
        try Self.appendComponent(field.utf8, to: &out)
        return out
    }

    /// The encoding up to the record id, shared by every value of one table (see `FieldOpener`).
    static func encodedPrefix(purpose: String, header: some Collection<UInt8>, vaultID: String, table: String,
                              reserving extra: Int = 64) throws(CryptoError) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(header.count + 6 + purpose.utf8.count + vaultID.utf8.count + table.utf8.count + extra)
        out.append(contentsOf: header)
        try appendComponent(purpose.utf8, to: &out)
        try appendComponent(vaultID.utf8, to: &out)
        try appendComponent(table.utf8, to: &out)
        return out
    }

    /// Appends one component with its 2-byte big-endian length.
    static func appendComponent(_ component: some Collection<UInt8>, to out: inout [UInt8]) throws(CryptoError) {
        let count = component.count
        guard count <= Int(UInt16.max) else { throw .malformed }
        out.append(UInt8(truncatingIfNeeded: count >> 8))
        out.append(UInt8(truncatingIfNeeded: count))
        out.append(contentsOf: component)
    }
}
