public import VaultCrypto

/// Seals and opens what devices leave on a remote, under the vault key, each bound to the
/// vault and to its place: an operation to its idempotency key (a file renamed, moved to
/// another vault's folder or altered does not open), an acknowledgement to its device.
///
/// VaultKit builds one from the vault key and hands it to the sync engine, which holds no
/// key of its own, and the Store seals each operation with one once, for its outbox and
/// every remote alike.
public struct OperationCipher {
    private let sealer: FieldSealer

    public init(sealer: FieldSealer) {
        self.sealer = sealer
    }

    public func seal(operation document: [UInt8], idempotencyKey: String) throws(CryptoError) -> [UInt8] {
        try sealer.seal(document, binding: Self.operationBinding(sealer.vaultID, idempotencyKey))
    }

    public func open(operation sealed: [UInt8], idempotencyKey: String) throws(CryptoError) -> [UInt8] {
        try sealer.open(sealed, binding: Self.operationBinding(sealer.vaultID, idempotencyKey))
    }

    func seal(acknowledgement document: [UInt8], device: String) throws(CryptoError) -> [UInt8] {
        try sealer.seal(document, binding: Self.acknowledgementBinding(sealer.vaultID, device))
    }

    func open(acknowledgement sealed: [UInt8], device: String) throws(CryptoError) -> [UInt8] {
        try sealer.open(sealed, binding: Self.acknowledgementBinding(sealer.vaultID, device))
    }

    /// Where an operation is bound: also how the Store re-seals one under a new key (rekey).
    public static func operationBinding(_ vaultID: String, _ idempotencyKey: String) -> Binding {
        Binding(vaultID: vaultID, table: "remote-operation", recordID: idempotencyKey, field: "operation")
    }

    static func acknowledgementBinding(_ vaultID: String, _ device: String) -> Binding {
        Binding(vaultID: vaultID, table: "remote-acknowledgement", recordID: device, field: "acknowledgement")
    }
}
