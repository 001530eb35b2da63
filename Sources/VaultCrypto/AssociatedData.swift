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
        var out: [UInt8] = []
        out.reserveCapacity(header.count + 10 + purpose.utf8.count + vaultID.utf8.count + table.utf8.count
            + recordID.utf8.count + field.utf8.count)
        out.append(contentsOf: header)
        func append(_ component: String) throws(CryptoError) {
            let count = component.utf8.count
            guard count <= Int(UInt16.max) else { throw .malformed }
            out.append(UInt8(truncatingIfNeeded: count >> 8))
            out.append(UInt8(truncatingIfNeeded: count))
            out.append(contentsOf: component.utf8)
        }
        try append(purpose)
        try append(vaultID)
        try append(table)
        try append(recordID)
        try append(field)
        return out
    }
}
