import Foundation
import Journal

/// What a remote says about the vault it holds, in the clear: its id and key id, and the
/// keyslots a new device unwraps with the passphrase or the recovery key (`init --join`).
/// Keyslots are already wrapped (Argon2id for the passphrase), as in the vault file.
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

    public let format: String
    public let formatVersion: Int
    public let vaultId: String
    public let keyId: String
    public let keyslots: [Slot]
    /// How many times the slots were replaced (passphrase changes, rekeys); absent (0) in
    /// descriptors written before it existed. Only a higher generation overwrites.
    public let keyslotGeneration: Int?

    public init(vaultID: String, keyID: String, keyslots: [Slot], keyslotGeneration: Int) {
        format = Self.format
        formatVersion = Self.formatVersion
        vaultId = vaultID
        keyId = keyID
        self.keyslots = keyslots
        self.keyslotGeneration = keyslotGeneration
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
        guard (0...Int(VersionNumber.range.upperBound)).contains(descriptor.keyslotGeneration ?? 0) else {
            throw .malformed(what: "descriptor")
        }
        return descriptor
    }
}
