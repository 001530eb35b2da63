public import Journal
import VaultCrypto

/// Ids that every device derives alike from what it already knows, so the same thing gets
/// the same id everywhere without the devices talking: UUID-shaped text (version nibble 8)
/// from SHA-256 of a purpose and its inputs.
public enum DerivedIDs {
    /// The conflict copy that shows `record`'s version written at `clock`. The formula is
    /// the one bmvault 0.3 to 0.5 used for the copies they made, so those copies and the
    /// ones derived now are the same records.
    public static func conflictCopy(of record: EntityID, shownVersion clock: HybridTimestamp) -> EntityID {
        derived("bmvault conflict copy|\(record.rawValue)|\(clock.description)") ?? record
    }

    /// The idempotency key of the content-free stand-in for a deletion: sending it again
    /// lands on the same file name.
    package static func standIn(for record: EntityID, deletedAt clock: HybridTimestamp) -> String {
        (derived("bmvault tombstone|\(record.rawValue)|\(clock.description)") ?? record).rawValue
    }

    /// Nil only if the digest were not hex, which it always is.
    private static func derived(_ seed: String) -> EntityID? {
        var digits = Array(SHA256.hex(of: Array(seed.utf8)).utf8.prefix(32))
        digits[12] = UInt8(ascii: "8")
        digits[16] = Array("89ab".utf8)[Int(digits[16]) % 4]
        let text = String(decoding: digits, as: UTF8.self)
        let parts = [text.prefix(8), text.dropFirst(8).prefix(4), text.dropFirst(12).prefix(4), text.dropFirst(16).prefix(4), text.dropFirst(20)]
        return try? EntityID(validating: parts.joined(separator: "-"))
    }
}

extension JournalMerge {
    /// The merge every vault uses: conflict copies get ``DerivedIDs/conflictCopy(of:shownVersion:)``.
    public static let vault = JournalMerge(conflictCopyID: DerivedIDs.conflictCopy)
}
