import Foundation
import Journal
public import VaultCrypto

/// What a remote says about the vault it holds, in the clear: its id and key id, the
/// keyslots a new device unwraps with the passphrase or the recovery key (`init --join`),
/// and the key chain that opens what was written before a rekey. Keyslots are already
/// wrapped (Argon2id for the passphrase), as in the vault file; the chain is sealed under
/// the current key. Nothing here opens anything without the passphrase or recovery key.
public struct RemoteDescriptor: Codable, Sendable, Equatable {
    public static let format = "bmvault-remote"
    public static let formatVersion = 1

    public struct Slot: Codable, Sendable, Equatable {
        public let id: String
        public let kind: String
        public let kdf: String
        public let opsLimit: UInt64
        public let memLimit: UInt64
        public let salt: String        // base64
        public let wrappedKey: String  // base64

        public init(id: String, kind: String, kdf: String, opsLimit: UInt64, memLimit: UInt64, salt: [UInt8], wrappedKey: [UInt8]) {
            self.id = id
            self.kind = kind
            self.kdf = kdf
            self.opsLimit = opsLimit
            self.memLimit = memLimit
            self.salt = Data(salt).base64EncodedString()
            self.wrappedKey = Data(wrappedKey).base64EncodedString()
        }
    }

    /// A retired vault key, sealed under the descriptor's key (``RetiredKey``).
    public struct ChainEntry: Codable, Sendable, Equatable {
        public let keyId: String
        public let sealedKey: String   // base64
    }

    /// Descriptors refuse a chain longer than this: no vault is rekeyed that often, and a
    /// hostile folder must not make a sync open keys without end.
    static let longestChain = 10_000

    public let format: String
    public let formatVersion: Int
    public let vaultId: String
    public let keyId: String
    public let keyslots: [Slot]
    /// How many times the slots were replaced (passphrase changes, rekeys); absent (0) in
    /// descriptors written before it existed. Only a higher generation overwrites.
    public let keyslotGeneration: Int?
    /// The key chain; absent in descriptors written before bmvault 0.8 (readers before it
    /// ignore it, as JSON readers do an unknown member).
    public let keyChain: [ChainEntry]?
    /// The keyslots and their generation sealed under the descriptor's key (base64; from
    /// bmvault 0.18, absent before): only a device holding the key can write it, so another
    /// device holding the key takes keyslots up only when it opens (``keyslotsAreSealed(by:)``).
    public let keyslotsSeal: String?

    public init(vaultID: String, keyID: KeyID, keyslots: [Keyslot], keyslotGeneration: Int, keyChain: [RetiredKey]) {
        format = Self.format
        formatVersion = Self.formatVersion
        vaultId = vaultID
        keyId = keyID.description
        self.keyslots = keyslots.map {
            Slot(id: $0.id, kind: $0.kind.rawValue, kdf: $0.kdf.algorithm, opsLimit: $0.kdf.opsLimit,
                 memLimit: $0.kdf.memLimit, salt: $0.salt, wrappedKey: $0.wrappedKey)
        }
        self.keyslotGeneration = keyslotGeneration
        self.keyChain = keyChain.map { ChainEntry(keyId: $0.id.description, sealedKey: Data($0.sealed).base64EncodedString()) }
        keyslotsSeal = nil
    }

    /// This descriptor with its keyslots and their generation sealed by `sealer`, which must
    /// hold the descriptor's key.
    public func sealingKeyslots(with sealer: FieldSealer) throws(CryptoError) -> RemoteDescriptor {
        guard sealer.keyID.description == keyId else { throw .keyMismatch }
        let seal = try sealer.seal(keyslotsStatement, binding: keyslotsBinding)
        return RemoteDescriptor(copying: self, keyChain: keyChain, keyslotsSeal: Data(seal).base64EncodedString())
    }

    /// Whether the keyslots and their generation are as a device holding the key sealed them:
    /// `sealer` holds the descriptor's key, and the seal opens under it to exactly these.
    public func keyslotsAreSealed(by sealer: FieldSealer) -> Bool {
        guard sealer.keyID.description == keyId, let seal = keyslotsSeal.flatMap({ Data(base64Encoded: $0) }),
              let opened = try? sealer.open(Array(seal), binding: keyslotsBinding) else { return false }
        return opened == keyslotsStatement
    }

    /// What the seal covers: the key id, the generation and every slot, in one JSON form.
    private var keyslotsStatement: [UInt8] {
        struct Statement: Encodable {
            let keyId: String, keyslotGeneration: Int, keyslots: [Slot]
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let statement = Statement(keyId: keyId, keyslotGeneration: keyslotGeneration ?? 0, keyslots: keyslots)
        return Array((try? encoder.encode(statement)) ?? Data())
    }

    private var keyslotsBinding: Binding {
        Binding(vaultID: vaultId, table: "remote-descriptor", recordID: keyId, field: "keyslots")
    }

    /// The keyslots as VaultCrypto reads them, or nil when one is malformed.
    public func vaultKeyslots() -> [Keyslot]? {
        let slots = keyslots.compactMap { slot -> Keyslot? in
            guard let kind = Keyslot.Kind(rawValue: slot.kind), let salt = Data(base64Encoded: slot.salt),
                  let wrapped = Data(base64Encoded: slot.wrappedKey) else { return nil }
            return Keyslot(id: slot.id, kind: kind, kdf: KDFParameters(algorithm: slot.kdf, opsLimit: slot.opsLimit, memLimit: slot.memLimit),
                           salt: Array(salt), wrappedKey: Array(wrapped))
        }
        return slots.count == keyslots.count ? slots : nil
    }

    /// The key chain's entries (none before 0.8), or nil when one is malformed.
    public func retiredKeys() -> [RetiredKey]? {
        let entries = (keyChain ?? []).compactMap { entry -> RetiredKey? in
            guard let id = try? KeyID(hex: entry.keyId), let sealed = Data(base64Encoded: entry.sealedKey) else { return nil }
            return RetiredKey(id: id, sealed: Array(sealed))
        }
        return entries.count == (keyChain ?? []).count ? entries : nil
    }

    /// Whether these keyslots replace `other`'s, the same answer on every device and at
    /// every time:
    ///
    /// - with the same key, a higher generation (a later passphrase change);
    /// - with another key, the one whose chain holds the other's key (its rekey retired it,
    ///   whatever passphrase changes either side counted meanwhile); for keys neither of which
    ///   retired the other (rekeys made at once), the longer chain, then the lower key id.
    ///   A rekey's chain is always longer than the chain of the key it retired, so this is one
    ///   order over all keys, never a circle (with the lower id alone, a key two rekeys deep
    ///   could lose to a rival that loses to its own retired key, and the devices would
    ///   overwrite each other's descriptors for ever). Generations count passphrase changes
    ///   and never decide between two keys.
    ///
    /// Ask it of this device's own descriptor, whose chain is its own, about another's, whose
    /// chain says what it likes until its key is in hand: where each chain holds the other's
    /// key, which only a forged descriptor makes, the key this device retired is the older.
    public func isNewer(than other: RemoteDescriptor) -> Bool {
        guard keyId != other.keyId else { return (keyslotGeneration ?? 0) > (other.keyslotGeneration ?? 0) }
        if chainKeyIDs.contains(other.keyId) { return true }
        if other.chainKeyIDs.contains(keyId) { return false }
        let (mine, theirs) = (chainKeyIDs.count, other.chainKeyIDs.count)
        return mine != theirs ? mine > theirs : keyId < other.keyId
    }

    /// What to write over `theirs` on a remote, or nil to leave it: these keyslots when they
    /// are newer (or the remote has none); for the same key, `theirs` with the entries of this
    /// chain it lacks, so no retired key a device learnt is lost from the remote.
    public func replacement(for theirs: RemoteDescriptor?) -> RemoteDescriptor? {
        guard let theirs else { return self }
        if isNewer(than: theirs) { return self }
        guard theirs.keyId == keyId, !chainKeyIDs.isSubset(of: theirs.chainKeyIDs) else { return nil }
        let missing = (keyChain ?? []).filter { !theirs.chainKeyIDs.contains($0.keyId) }
        return RemoteDescriptor(copying: theirs, keyChain: (theirs.keyChain ?? []) + missing, keyslotsSeal: theirs.keyslotsSeal)
    }

    private var chainKeyIDs: Set<String> { Set((keyChain ?? []).map(\.keyId)) }

    private init(copying other: RemoteDescriptor, keyChain: [ChainEntry]?, keyslotsSeal: String?) {
        format = other.format
        formatVersion = other.formatVersion
        vaultId = other.vaultId
        keyId = other.keyId
        keyslots = other.keyslots
        keyslotGeneration = other.keyslotGeneration
        self.keyChain = keyChain
        self.keyslotsSeal = keyslotsSeal
    }

    public func encoded() -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return Array((try? encoder.encode(self)) ?? Data())
    }

    /// Reads a descriptor, refusing one that is not bmvault's or is from a newer format.
    public static func decode(_ bytes: [UInt8]) throws(RemoteError) -> RemoteDescriptor {
        guard let descriptor = try? JSONDecoder().decode(RemoteDescriptor.self, from: Data(bytes)),
              descriptor.format == format else { throw .malformed(what: "descriptor") }
        guard descriptor.formatVersion <= formatVersion else { throw .malformed(what: "descriptor from a newer bmvault") }
        // A number read from outside stays where counting on from it cannot overflow (issue 23).
        guard (0...Int(VersionNumber.range.upperBound)).contains(descriptor.keyslotGeneration ?? 0),
              (descriptor.keyChain ?? []).count <= longestChain else {
            throw .malformed(what: "descriptor")
        }
        return descriptor
    }
}

extension RemoteDescriptor {
    /// The descriptor of vault `vaultID` on each of `remotes`, with the remote's name.
    /// Remotes that cannot be read, or hold another vault, are passed over.
    public static func read(from remotes: [any Remote], vaultID: String) -> [(remote: String, descriptor: RemoteDescriptor)] {
        remotes.compactMap { remote in
            guard let bytes = try? remote.readDescriptor(), let descriptor = try? RemoteDescriptor.decode(bytes),
                  descriptor.vaultId == vaultID else { return nil }
            return (remote.name, descriptor)
        }
    }

    /// The newest of `descriptors` that `include` takes and that is newer than the keyslots
    /// of a device whose key is `keyID`, with generation `generation` and chain `keyChain`.
    static func newest(among descriptors: [(remote: String, descriptor: RemoteDescriptor)], newerThan keyID: KeyID,
                       generation: Int, keyChain: [RetiredKey],
                       where include: (RemoteDescriptor) -> Bool) -> (remote: String, descriptor: RemoteDescriptor)? {
        // Only the key, the generation and the chain are compared.
        let ours = RemoteDescriptor(vaultID: "", keyID: keyID, keyslots: [], keyslotGeneration: generation, keyChain: keyChain)
        // Asked this way round first: a descriptor of a key this device retired never counts,
        // whatever chain it claims; of this same key, only a higher generation does.
        func isNewer(_ theirs: RemoteDescriptor) -> Bool {
            !ours.isNewer(than: theirs) && (theirs.keyId != ours.keyId || theirs.isNewer(than: ours))
        }
        var newest: (remote: String, descriptor: RemoteDescriptor)?
        for found in descriptors where include(found.descriptor) && isNewer(found.descriptor) {
            if newest.map({ found.descriptor.isNewer(than: $0.descriptor) }) ?? true { newest = found }
        }
        return newest
    }
}
