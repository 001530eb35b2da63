public import VaultCrypto

/// Seals and opens what devices leave on a remote, under the vault key, each bound to the
/// vault and to its place: an operation to its idempotency key (a file renamed, moved to
/// another vault's folder or altered does not open), an acknowledgement to its device.
///
/// Everything is sealed under the current key; what was sealed under a key a rekey retired
/// (files other devices left before they took up the new key) opens with that key, from the
/// key chain (``RetiredKey``), chosen by the key id in the envelope's header.
///
/// The Store builds one from the vault key and its key chain and VaultKit hands it to the
/// sync engine, which holds no key of its own; the Store seals each operation with one
/// once, for its outbox and every remote alike.
public struct OperationCipher {
    private let sealer: FieldSealer
    private let retired: [KeyID: FieldSealer]

    /// `retired`: sealers under the keys of the chain (``RetiredKey/sealer(openedWith:)``).
    public init(sealer: FieldSealer, retired: [FieldSealer] = []) {
        self.init(sealer: sealer, retired: Dictionary(retired.map { ($0.keyID, $0) }, uniquingKeysWith: { first, _ in first }))
    }

    private init(sealer: FieldSealer, retired: [KeyID: FieldSealer]) {
        self.sealer = sealer
        self.retired = retired
    }

    /// The entries of another device's key chain that open under the current key and are
    /// not known here, and a cipher that opens what they sealed too.
    public func adding(_ entries: [RetiredKey]) -> (cipher: OperationCipher, added: [RetiredKey]) {
        var retired = self.retired
        var added: [RetiredKey] = []
        for entry in entries where !knows(entry.id) && retired[entry.id] == nil {
            guard let opened = try? entry.sealer(openedWith: sealer) else { continue }
            retired[entry.id] = opened
            added.append(entry)
        }
        return (OperationCipher(sealer: sealer, retired: retired), added)
    }

    /// Whether a value sealed under the key `id` opens here (the current key or a retired one).
    public func knows(_ id: KeyID) -> Bool {
        id == sealer.keyID || retired[id] != nil
    }

    /// The sealer for the key `sealed` names: a retired key's, or the current one (which
    /// then refuses it, as ``CryptoError/keyMismatch``).
    private func opener(for sealed: [UInt8]) -> FieldSealer {
        guard !retired.isEmpty else { return sealer }   // a vault never rekeyed: no header to read
        return FieldSealer.keyID(of: sealed).flatMap { retired[$0] } ?? sealer
    }

    public func seal(operation document: [UInt8], idempotencyKey: String) throws(CryptoError) -> [UInt8] {
        try sealer.seal(document, binding: Self.operationBinding(sealer.vaultID, idempotencyKey))
    }

    public func open(operation sealed: [UInt8], idempotencyKey: String) throws(CryptoError) -> [UInt8] {
        try opener(for: sealed).open(sealed, binding: Self.operationBinding(sealer.vaultID, idempotencyKey))
    }

    package func seal(acknowledgement document: [UInt8], device: String) throws(CryptoError) -> [UInt8] {
        try sealer.seal(document, binding: Self.acknowledgementBinding(sealer.vaultID, device))
    }

    package func open(acknowledgement sealed: [UInt8], device: String) throws(CryptoError) -> [UInt8] {
        try opener(for: sealed).open(sealed, binding: Self.acknowledgementBinding(sealer.vaultID, device))
    }

    /// The sealer under the current key, for what the engine seals beside operations (a
    /// descriptor's keyslots).
    package var currentSealer: FieldSealer { sealer }

    /// Where an operation is bound: also how the Store re-seals one under a new key (rekey).
    public static func operationBinding(_ vaultID: String, _ idempotencyKey: String) -> Binding {
        Binding(vaultID: vaultID, table: "remote-operation", recordID: idempotencyKey, field: "operation")
    }

    static func acknowledgementBinding(_ vaultID: String, _ device: String) -> Binding {
        Binding(vaultID: vaultID, table: "remote-acknowledgement", recordID: device, field: "acknowledgement")
    }
}
