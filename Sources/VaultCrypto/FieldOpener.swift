/// Opens many sealed values of one field of one table in a row, for a scan such as
/// `search` that decrypts every note: the associated data is encoded once up to the record
/// id, and every plaintext lands in one reused buffer, wiped when the opener goes away.
///
/// Not `Sendable`: one opener belongs to one scan on one thread.
public final class FieldOpener {
    private let sealer: FieldSealer
    private let prefixCount: Int
    private let fieldName: [UInt8]
    private var additional: [UInt8]
    private var plain: [UInt8] = []

    init(sealer: FieldSealer, table: String, field: String) throws(CryptoError) {
        self.sealer = sealer
        additional = try sealer.additionalPrefix(table: table)
        prefixCount = additional.count
        fieldName = Array(field.utf8)
        guard fieldName.count <= Int(UInt16.max) else { throw .malformed }
    }

    deinit {
        wipe(&plain)
    }

    /// Opens `sealed`, the value of this field in the record `recordID` (its id as UTF-8),
    /// and returns what `test` says of the plaintext, as a word of bits (a search's terms
    /// found; 1 or 0 for a yes or no). The bytes are valid only inside `test` and are
    /// overwritten by the next call; do not let them escape.
    ///
    /// why a word and not a generic result: called from another module a generic is not
    /// specialized, and looking up its metadata cost more per note than matching it.
    public func open(_ sealed: UnsafeRawBufferPointer, recordID: UnsafeRawBufferPointer,
                     _ test: (UnsafeBufferPointer<UInt8>) -> UInt64) throws(CryptoError) -> UInt64 {
        additional.removeSubrange(prefixCount...)
        try Binding.appendComponent(recordID, to: &additional)
        try Binding.appendComponent(fieldName, to: &additional)
        if plain.count < sealed.count {
            wipe(&plain)
            plain = [UInt8](repeating: 0, count: sealed.count)
        }
        let sealer = sealer
        return try additional.withUnsafeBufferPointer { (additional) throws(CryptoError) in
            try plain.withUnsafeMutableBufferPointer { (plain) throws(CryptoError) in
                let count = try sealer.open(sealed, additional: additional, into: plain)
                return test(UnsafeBufferPointer(rebasing: plain[..<count]))
            }
        }
    }
}
