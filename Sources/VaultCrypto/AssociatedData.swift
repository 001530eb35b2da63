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
    func encoded(purpose: String, header: [UInt8]) throws(CryptoError) -> [UInt8] {
        var out = header
        for component in [purpose, vaultID, table, recordID, field] {
            let utf8 = Array(component.utf8)
            guard utf8.count <= Int(UInt16.max) else { throw .malformed }
            out.append(UInt8(truncatingIfNeeded: utf8.count >> 8))
            out.append(UInt8(truncatingIfNeeded: utf8.count))
            out.append(contentsOf: utf8)
        }
        return out
    }
}
