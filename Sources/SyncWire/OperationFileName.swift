public import Journal

/// `<clock>.<idempotency key>.op`: names sort in clock order, and a second upload of an
/// operation lands on the name it already has. Readers take the key and the clock from the
/// name without opening the file.
public enum OperationFileName {
    public static func make(clock: HybridTimestamp, idempotencyKey: String) -> String {
        "\(clock.description).\(idempotencyKey).op"
    }

    /// The idempotency key in a file name; nil for any other file.
    public static func idempotencyKey(in name: String) -> String? {
        let parts = name.split(separator: ".")
        guard parts.count == 3, parts[2] == "op" else { return nil }
        return String(parts[1])
    }

    /// The clock in a file name; nil for any other file.
    public static func clock(in name: String) -> HybridTimestamp? {
        let parts = name.split(separator: ".")
        guard parts.count == 3, parts[2] == "op" else { return nil }
        return try? HybridTimestamp(parsing: String(parts[0]))
    }
}
