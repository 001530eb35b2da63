import Testing
@testable import VaultCrypto

/// `version (1) | nonce (24) | sealed key (32) | tag (16)`.
private let wrappedCount = 1 + 24 + 32 + 16

/// A copy of `slot` with some fields replaced, as if read back from altered storage.
private func altered(_ slot: Keyslot, id: String? = nil, kind: Keyslot.Kind? = nil, kdf: KDFParameters? = nil,
                     salt: [UInt8]? = nil, wrappedKey: [UInt8]? = nil) -> Keyslot {
    Keyslot(id: id ?? slot.id, kind: kind ?? slot.kind, kdf: kdf ?? slot.kdf,
            salt: salt ?? slot.salt, wrappedKey: wrappedKey ?? slot.wrappedKey)
}

@Suite("Keyslot: passphrase")
struct PassphraseKeyslotTests {
    static let vaultID = "vault-0193f2a1"
    let key: VaultKey
    let slot: Keyslot

    init() throws {
        key = try VaultKey.generate()
        slot = try Keyslot.wrapping(key, passphrase: secret("correct horse battery staple"), kdf: fastKDF,
                                    vaultID: Self.vaultID, slotID: "passphrase")
    }

    private func unwrap(_ slot: Keyslot, passphrase: String = "correct horse battery staple",
                        vaultID: String = vaultID) throws(CryptoError) -> VaultKey {
        try slot.unwrap(passphrase: secret(passphrase), vaultID: vaultID)
    }

    @Test("Wrap then unwrap gives back the same key")
    func roundTrip() throws {
        let unwrapped = try unwrap(slot)
        #expect(unwrapped.id == key.id)
        #expect(rawBytes(unwrapped) == rawBytes(key))
    }

    @Test("A new slot records its id, kind, KDF, a 16-byte salt and a version-1 wrapped key")
    func slotShape() {
        #expect(slot.id == "passphrase")
        #expect(slot.kind == .passphrase)
        #expect(slot.kdf == fastKDF)
        #expect(slot.kdf.algorithm == KDFParameters.argon2id)
        #expect(slot.salt.count == 16)
        #expect(slot.wrappedKey.count == wrappedCount)
        #expect(slot.wrappedKey.first == 1)
    }

    @Test("The wrapped key does not contain the key in the clear")
    func keyIsNotInTheClear() {
        let raw = rawBytes(key)
        #expect(!slot.wrappedKey.indices.dropLast(raw.count - 1).contains { Array(slot.wrappedKey[$0..<($0 + raw.count)]) == raw })
    }

    @Test("A wrong passphrase is .authenticationFailed", arguments: [
        "correct horse battery stapl", "correct horse battery staple ", "Correct horse battery staple", "",
    ])
    func wrongPassphrase(passphrase: String) throws {
        #expect(throws: CryptoError.authenticationFailed) { try unwrap(slot, passphrase: passphrase) }
    }

    @Test("Unwrapping for another vault is .authenticationFailed")
    func otherVault() throws {
        #expect(throws: CryptoError.authenticationFailed) { try unwrap(slot, vaultID: Self.vaultID + "x") }
    }

    @Test("Two wraps of the same key differ in salt and wrapped bytes, and both unwrap")
    func wrapsAreRandomized() throws {
        let again = try Keyslot.wrapping(key, passphrase: secret("correct horse battery staple"), kdf: fastKDF,
                                         vaultID: Self.vaultID, slotID: "passphrase")
        #expect(again.salt != slot.salt)
        #expect(again.wrappedKey != slot.wrappedKey)
        #expect(Array(again.wrappedKey[1..<25]) != Array(slot.wrappedKey[1..<25]))
        #expect(again != slot)
        #expect(try unwrap(again).id == key.id)
        #expect(try unwrap(slot).id == key.id)
    }

    @Test("An empty passphrase still wraps and unwraps (and is distinct from a one-byte one)")
    func emptyPassphrase() throws {
        let empty = try Keyslot.wrapping(key, passphrase: SecretBytes(count: 0), kdf: fastKDF,
                                         vaultID: Self.vaultID, slotID: "passphrase")
        #expect(try empty.unwrap(passphrase: SecretBytes(count: 0), vaultID: Self.vaultID).id == key.id)
        #expect(throws: CryptoError.authenticationFailed) { try unwrap(empty, passphrase: " ") }
    }

    @Test("A non-ASCII passphrase round-trips byte for byte")
    func unicodePassphrase() throws {
        let passphrase = "Ünïcødé päßwörd 📚"
        let unicode = try Keyslot.wrapping(key, passphrase: secret(passphrase), kdf: fastKDF,
                                           vaultID: Self.vaultID, slotID: "passphrase")
        #expect(try unwrap(unicode, passphrase: passphrase).id == key.id)
        // The same text in another normalization form is other bytes, so another passphrase.
        #expect(throws: CryptoError.authenticationFailed) {
            try unwrap(unicode, passphrase: "U\u{308}nïcødé päßwörd 📚")
        }
    }

    // MARK: - Altered slots

    @Test("A slot with another opsLimit does not unwrap")
    func alteredOpsLimit() throws {
        let changed = altered(slot, kdf: KDFParameters(opsLimit: slot.kdf.opsLimit + 1, memLimit: slot.kdf.memLimit))
        #expect(throws: CryptoError.authenticationFailed) { try unwrap(changed) }
    }

    @Test("A slot with another memLimit does not unwrap, even one Argon2 rounds to the same memory")
    func alteredMemLimit() throws {
        // Argon2 works in KiB: +1 byte derives the same wrapping key, so only the
        // associated data (which records the limits) can catch this change.
        let sameMemory = altered(slot, kdf: KDFParameters(opsLimit: slot.kdf.opsLimit, memLimit: slot.kdf.memLimit + 1))
        #expect(throws: CryptoError.authenticationFailed) { try unwrap(sameMemory) }
        let lessMemory = altered(slot, kdf: KDFParameters(opsLimit: slot.kdf.opsLimit, memLimit: slot.kdf.memLimit / 2))
        #expect(throws: CryptoError.authenticationFailed) { try unwrap(lessMemory) }
    }

    @Test("A slot with an altered salt does not unwrap")
    func alteredSalt() throws {
        for index in [0, 7, 15] {
            #expect(throws: CryptoError.authenticationFailed, "salt byte \(index)") {
                try unwrap(altered(slot, salt: flipping(slot.salt, at: index)))
            }
        }
    }

    @Test("A salt of the wrong length is .invalidLength")
    func wrongSaltLength() throws {
        #expect(throws: CryptoError.invalidLength(expected: 16, actual: 15)) {
            try unwrap(altered(slot, salt: Array(slot.salt.dropLast())))
        }
        #expect(throws: CryptoError.invalidLength(expected: 16, actual: 17)) {
            try unwrap(altered(slot, salt: slot.salt + [0]))
        }
    }

    @Test("A slot with another id does not unwrap")
    func alteredID() throws {
        #expect(throws: CryptoError.authenticationFailed) { try unwrap(altered(slot, id: "passphrase2")) }
        #expect(throws: CryptoError.authenticationFailed) { try unwrap(altered(slot, id: "recovery")) }
    }

    @Test("A slot relabelled as a recovery slot is refused")
    func alteredKind() throws {
        #expect(throws: CryptoError.malformed) { try unwrap(altered(slot, kind: .recovery)) }
    }

    @Test("A passphrase slot naming another algorithm is .malformed")
    func alteredAlgorithm() throws {
        let blake = altered(slot, kdf: KDFParameters(algorithm: Keyslot.recoveryKDF, opsLimit: slot.kdf.opsLimit, memLimit: slot.kdf.memLimit))
        #expect(throws: CryptoError.malformed) { try unwrap(blake) }
        let argon2i = altered(slot, kdf: KDFParameters(algorithm: "argon2i13", opsLimit: slot.kdf.opsLimit, memLimit: slot.kdf.memLimit))
        #expect(throws: CryptoError.malformed) { try unwrap(argon2i) }
    }

    @Test("KDF limits Argon2id cannot run with are .keyDerivationFailed")
    func impossibleLimits() throws {
        #expect(throws: CryptoError.keyDerivationFailed) {
            try unwrap(altered(slot, kdf: KDFParameters(opsLimit: 0, memLimit: slot.kdf.memLimit)))
        }
        #expect(throws: CryptoError.keyDerivationFailed) {
            try unwrap(altered(slot, kdf: KDFParameters(opsLimit: slot.kdf.opsLimit, memLimit: 1024)))
        }
        // Far beyond libsodium's maximum (4 TiB): refused before any allocation.
        #expect(throws: CryptoError.keyDerivationFailed) {
            try unwrap(altered(slot, kdf: KDFParameters(opsLimit: slot.kdf.opsLimit, memLimit: 1 << 50)))
        }
    }

    @Test("A memLimit above Int.max is refused, not a crash")
    func memLimitAboveIntMax() async {
        // Limits come from the vault file; a hostile one must be refused, never trap.
        await #expect(processExitsWith: .success) {
            let key = try VaultKey.generate()
            let slot = try Keyslot.wrapping(key, passphrase: secret("p"), kdf: KDFParameters(strength: .interactive),
                                            vaultID: "v", slotID: "passphrase")
            let hostile = Keyslot(id: slot.id, kind: slot.kind,
                                  kdf: KDFParameters(opsLimit: slot.kdf.opsLimit, memLimit: .max),
                                  salt: slot.salt, wrappedKey: slot.wrappedKey)
            do {
                _ = try hostile.unwrap(passphrase: secret("p"), vaultID: "v")
            } catch CryptoError.keyDerivationFailed {
                return
            }
            fatalError("expected .keyDerivationFailed")
        }
    }

    @Test("Altering the nonce, sealed key or tag of the wrapped key fails authentication")
    func alteredWrappedKey() throws {
        for index in [1, 24, 25, 40, 56, 57, wrappedCount - 1] {
            #expect(throws: CryptoError.authenticationFailed, "wrapped byte \(index)") {
                try unwrap(altered(slot, wrappedKey: flipping(slot.wrappedKey, at: index)))
            }
        }
    }

    @Test("Another wrapped-key version byte is .unsupportedFormat(version:)")
    func alteredVersion() throws {
        var wrapped = slot.wrappedKey
        wrapped[0] = 2
        #expect(throws: CryptoError.unsupportedFormat(version: 2)) { try unwrap(altered(slot, wrappedKey: wrapped)) }
    }

    @Test("A truncated, extended or empty wrapped key is .malformed")
    func wrongWrappedLength() throws {
        #expect(throws: CryptoError.malformed) { try unwrap(altered(slot, wrappedKey: Array(slot.wrappedKey.dropLast()))) }
        #expect(throws: CryptoError.malformed) { try unwrap(altered(slot, wrappedKey: slot.wrappedKey + [0])) }
        #expect(throws: CryptoError.malformed) { try unwrap(altered(slot, wrappedKey: [])) }
        #expect(throws: CryptoError.malformed) { try unwrap(altered(slot, wrappedKey: [1])) }
    }

    @Test("A wrapped key from another slot of the same vault does not unwrap under this slot's salt")
    func swappedWrappedKey() throws {
        let other = try Keyslot.wrapping(key, passphrase: secret("correct horse battery staple"), kdf: fastKDF,
                                         vaultID: Self.vaultID, slotID: "passphrase")
        #expect(throws: CryptoError.authenticationFailed) { try unwrap(altered(slot, wrappedKey: other.wrappedKey)) }
    }

    @Test("A passphrase slot refuses a recovery key with .malformed")
    func refusesRecoveryKey() throws {
        #expect(throws: CryptoError.malformed) {
            try slot.unwrap(recoveryKey: RecoveryKey.generate(), vaultID: Self.vaultID)
        }
    }
}

@Suite("Keyslot: recovery")
struct RecoveryKeyslotTests {
    static let vaultID = "vault-0193f2a1"
    let key: VaultKey
    let recoveryKey: RecoveryKey
    let slot: Keyslot

    init() throws {
        key = try VaultKey.generate()
        recoveryKey = try RecoveryKey.generate()
        slot = try Keyslot.wrapping(key, recoveryKey: recoveryKey, vaultID: Self.vaultID, slotID: "recovery")
    }

    @Test("Wrap then unwrap with the recovery key gives back the same key")
    func roundTrip() throws {
        let unwrapped = try slot.unwrap(recoveryKey: recoveryKey, vaultID: Self.vaultID)
        #expect(unwrapped.id == key.id)
        #expect(rawBytes(unwrapped) == rawBytes(key))
    }

    @Test("A recovery slot records the blake2b KDF with zero limits")
    func slotShape() {
        #expect(slot.id == "recovery")
        #expect(slot.kind == .recovery)
        #expect(slot.kdf == KDFParameters(algorithm: "blake2b", opsLimit: 0, memLimit: 0))
        #expect(Keyslot.recoveryKDF == "blake2b")
        #expect(slot.salt.count == 16)
        #expect(slot.wrappedKey.count == wrappedCount)
        #expect(slot.wrappedKey.first == 1)
    }

    @Test("Another recovery key is .authenticationFailed")
    func wrongRecoveryKey() throws {
        #expect(throws: CryptoError.authenticationFailed) {
            try slot.unwrap(recoveryKey: RecoveryKey.generate(), vaultID: Self.vaultID)
        }
    }

    @Test("The recovery key parsed back from its display form unwraps the slot")
    func parsedRecoveryKey() throws {
        let parsed = try RecoveryKey(parsing: recoveryKey.formatted())
        #expect(try slot.unwrap(recoveryKey: parsed, vaultID: Self.vaultID).id == key.id)
    }

    @Test("Another vault, slot id, salt or wrapped key does not unwrap")
    func alteredSlot() throws {
        #expect(throws: CryptoError.authenticationFailed) { try slot.unwrap(recoveryKey: recoveryKey, vaultID: "other") }
        #expect(throws: CryptoError.authenticationFailed) {
            try altered(slot, id: "recovery2").unwrap(recoveryKey: recoveryKey, vaultID: Self.vaultID)
        }
        #expect(throws: CryptoError.authenticationFailed) {
            try altered(slot, salt: flipping(slot.salt, at: 3)).unwrap(recoveryKey: recoveryKey, vaultID: Self.vaultID)
        }
        #expect(throws: CryptoError.authenticationFailed) {
            try altered(slot, wrappedKey: flipping(slot.wrappedKey, at: 30)).unwrap(recoveryKey: recoveryKey, vaultID: Self.vaultID)
        }
        // The (unused) limits are bound too.
        #expect(throws: CryptoError.authenticationFailed) {
            try altered(slot, kdf: KDFParameters(algorithm: Keyslot.recoveryKDF, opsLimit: 1, memLimit: 0))
                .unwrap(recoveryKey: recoveryKey, vaultID: Self.vaultID)
        }
    }

    @Test("A recovery slot naming another algorithm is .malformed")
    func alteredAlgorithm() throws {
        #expect(throws: CryptoError.malformed) {
            try altered(slot, kdf: fastKDF).unwrap(recoveryKey: recoveryKey, vaultID: Self.vaultID)
        }
    }

    @Test("A recovery slot refuses a passphrase with .malformed")
    func refusesPassphrase() throws {
        #expect(throws: CryptoError.malformed) {
            try slot.unwrap(passphrase: secret("anything"), vaultID: Self.vaultID)
        }
        #expect(throws: CryptoError.malformed) {
            try altered(slot, kind: .passphrase).unwrap(passphrase: secret("anything"), vaultID: Self.vaultID)
        }
    }

    @Test("A slot relabelled as a passphrase slot does not take the recovery key")
    func relabelledKind() throws {
        #expect(throws: CryptoError.malformed) {
            try altered(slot, kind: .passphrase).unwrap(recoveryKey: recoveryKey, vaultID: Self.vaultID)
        }
    }

    @Test("Two recovery wraps of the same key differ, and both unwrap")
    func wrapsAreRandomized() throws {
        let again = try Keyslot.wrapping(key, recoveryKey: recoveryKey, vaultID: Self.vaultID, slotID: "recovery")
        #expect(again.salt != slot.salt)
        #expect(again.wrappedKey != slot.wrappedKey)
        #expect(try again.unwrap(recoveryKey: recoveryKey, vaultID: Self.vaultID).id == key.id)
    }

    @Test("The same vault key in a passphrase slot and a recovery slot unwraps to one key id")
    func bothSlotsOneKey() throws {
        let passphraseSlot = try Keyslot.wrapping(key, passphrase: secret("pw"), kdf: fastKDF,
                                                  vaultID: Self.vaultID, slotID: "passphrase")
        let viaPassphrase = try passphraseSlot.unwrap(passphrase: secret("pw"), vaultID: Self.vaultID)
        let viaRecovery = try slot.unwrap(recoveryKey: recoveryKey, vaultID: Self.vaultID)
        #expect(viaPassphrase.id == viaRecovery.id)
        #expect(rawBytes(viaPassphrase) == rawBytes(viaRecovery))
    }
}

@Suite("KDFParameters")
struct KDFParametersTests {
    @Test("Presets are libsodium's Argon2id limits, recorded as argon2id13")
    func presets() {
        #expect(KDFParameters.argon2id == "argon2id13")
        #expect(KDFParameters(strength: .interactive) == KDFParameters(algorithm: "argon2id13", opsLimit: 2, memLimit: 64 << 20))
        #expect(KDFParameters(strength: .moderate) == KDFParameters(algorithm: "argon2id13", opsLimit: 3, memLimit: 256 << 20))
        #expect(KDFParameters(strength: .sensitive) == KDFParameters(algorithm: "argon2id13", opsLimit: 4, memLimit: 1 << 30))
    }

    @Test("Strength names parse back from their raw values")
    func strengthNames() {
        #expect(KDFParameters.Strength.allCases.map(\.rawValue) == ["interactive", "moderate", "sensitive"])
        #expect(KDFParameters.Strength(rawValue: "moderate") == .moderate)
        #expect(KDFParameters.Strength(rawValue: "Moderate") == nil)
    }

    @Test("Parameters differing in any field are unequal")
    func equality() {
        let base = KDFParameters(opsLimit: 2, memLimit: 100)
        #expect(base == KDFParameters(algorithm: "argon2id13", opsLimit: 2, memLimit: 100))
        #expect(base != KDFParameters(opsLimit: 3, memLimit: 100))
        #expect(base != KDFParameters(opsLimit: 2, memLimit: 101))
        #expect(base != KDFParameters(algorithm: "blake2b", opsLimit: 2, memLimit: 100))
    }
}
