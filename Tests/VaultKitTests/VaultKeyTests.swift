import Foundation
import Testing
import Journal
import Keystore
import VaultCrypto
@testable import VaultKit
import TestSupport

/// Creating, unlocking, locking and expiring a vault, with a memory keystore and a fixed clock.
@Suite struct VaultKeyTests {
    // MARK: - Create

    @Test func newVaultIsLocked() throws {
        let fixture = try makeVault(unlocked: false)
        defer { fixture.directory.remove() }
        let status = try fixture.vault.status()
        #expect(status.isLocked)
        #expect(status.keyState == .notUnlocked)
        #expect(status.schemaVersion == (try Vault.schemaState(at: fixture.vault.location)).latestVersion)
        #expect(status.schemaVersion >= 2)
        #expect(status.vaultID == fixture.vault.vaultID)
        #expect(countList(status) == [0, 0, 0, 0])
        #expect(status.outbox[.pending] == 0)
        #expect(vaultError { () throws(VaultError) in try fixture.vault.addBook(title: "Dune", authors: []) } == .locked)
        #expect(vaultError { () throws(VaultError) in try fixture.vault.books() } == .locked)
        #expect(vaultError { () throws(VaultError) in try fixture.vault.ensureUnlocked() } == .locked)
        #expect(try !fixture.isKeyStored())
        #expect(Vault.exists(at: fixture.location))
        #expect(FileManager.default.fileExists(atPath: fixture.databasePath))
        // The recovery key is shown in its display form: six groups of six.
        let text = String(decoding: fixture.recoveryKey, as: UTF8.self)
        #expect(text.split(separator: "-").map(\.count) == [6, 6, 6, 6, 6, 6])
    }

    @Test func openingAMissingVaultIsVaultNotFound() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let location = VaultLocation(directory: directory.path)
        #expect(!Vault.exists(at: location))
        #expect(vaultError { () throws(VaultError) in try Vault.open(at: location, keyStore: MemoryKeyStore()) }
                == .storage(.vaultNotFound(path: location.databasePath)))
    }

    @Test func creatingTwiceIsRefusedAndTheFirstVaultKeepsItsData() throws {
        let fixture = try makeVault()
        defer { fixture.directory.remove() }
        let book = try fixture.vault.addBook(title: "Kept", authors: ["Someone"])
        _ = try fixture.vault.addAnnotation(to: try fixture.vault.book(named: "Kept"), kind: .note, body: "still here", locator: nil)

        let error = vaultError { () throws(VaultError) in
            try Vault.create(at: fixture.location, passphrase: try secretOrFail("another passphrase"), kdf: interactive,
                             keyStore: fixture.keyStore, clock: fixture.clock)
        }
        #expect(error == .storage(.vaultExists(path: fixture.databasePath)))

        let reopened = try fixture.reopen()
        #expect(reopened.vaultID == fixture.vault.vaultID)
        #expect(try reopened.books().map { try $0.get() } == [book])
        #expect(try reopened.allAnnotations().map { try $0.get().annotation.body } == ["still here"])
        // The old passphrase still opens it; the new one never did.
        try reopened.lock()
        #expect(vaultError { () throws(VaultError) in try reopened.unlock(passphrase: try secretOrFail("another passphrase")) } == .wrongPassphrase)
        try reopened.unlock(passphrase: try secret(testPassphrase))
        #expect(try reopened.books().count == 1)
    }

    // MARK: - Passphrase rules

    @Test func sevenCharacterPassphraseIsTooShortAndCreatesNothing() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let location = VaultLocation(directory: directory.path + "/vault")
        for short in ["seven77", "ÿÿÿÿÿÿÿ", "日本語の文字列"] { // 7 characters, 7 to 21 bytes
            let error = vaultError { () throws(VaultError) in
                try Vault.create(at: location, passphrase: try secretOrFail(short), kdf: interactive, keyStore: MemoryKeyStore())
            }
            #expect(error == .passphraseTooShort(minimum: 8), "\(short.count) characters")
        }
        #expect(!FileManager.default.fileExists(atPath: location.databasePath))
        #expect(Vault.minimumPassphraseCharacters == 8)

        // Eight characters, even multi-byte ones, are enough.
        let created = try Vault.create(at: location, passphrase: try secret("ÿÿÿÿÿÿÿÿ"), kdf: interactive, keyStore: MemoryKeyStore())
        try created.vault.unlock(passphrase: try secret("ÿÿÿÿÿÿÿÿ"))
    }

    @Test func passphraseWithNULIsInvalid() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let location = VaultLocation(directory: directory.path + "/vault")
        let withNUL = Array("long enough".utf8) + [0] + Array("passphrase".utf8)
        let error = vaultError { () throws(VaultError) in
            try Vault.create(at: location, passphrase: try secretOrFail(withNUL), kdf: interactive, keyStore: MemoryKeyStore())
        }
        #expect(error == .passphraseInvalid)
        #expect(!FileManager.default.fileExists(atPath: location.databasePath))
    }

    // MARK: - Unlock

    @Test func wrongPassphraseIsRefusedAndChangesNothing() throws {
        let fixture = try makeVault(unlocked: false)
        defer { fixture.directory.remove() }
        let before = try fileBytes(fixture.databasePath)
        #expect(vaultError { () throws(VaultError) in try fixture.vault.unlock(passphrase: try secretOrFail("not the passphrase")) }
                == .wrongPassphrase)
        #expect(vaultError { () throws(VaultError) in try fixture.vault.unlock(passphrase: try secretOrFail(testPassphrase + " ")) }
                == .wrongPassphrase)
        #expect(try fileBytes(fixture.databasePath) == before)
        #expect(try !fixture.isKeyStored())
        #expect(vaultError { () throws(VaultError) in try fixture.vault.books() } == .locked)
        #expect(try fixture.vault.status().keyState == .notUnlocked)
    }

    @Test func unlockKeepsTheKeyUntilItsExpiryAndTheJournalWorks() throws {
        let fixture = try makeVault(unlocked: false)
        defer { fixture.directory.remove() }
        let expiry = try fixture.vault.unlock(passphrase: try secret(testPassphrase), forSeconds: 600, persistence: .remembered)
        #expect(expiry.millisecondsSince1970 == TestClock.start + 600_000)
        let stored = try fixture.storedKey()
        #expect(stored.expiresAtMilliseconds == TestClock.start + 600_000)
        #expect(stored.persistence == .remembered)
        #expect(try fixture.vault.status().keyState == .unlocked(until: expiry, persistence: .remembered))

        let book = try fixture.vault.addBook(title: "Dune", authors: ["Frank Herbert"])
        #expect(try fixture.vault.books().map { try $0.get() } == [book])
        // The next command finds the key in the keystore without a passphrase.
        let next = try fixture.reopen()
        try next.ensureUnlocked()
        #expect(try next.books().map { try $0.get() } == [book])
    }

    @Test func defaultUnlockLastsEightHoursInTheSessionCollection() throws {
        let fixture = try makeVault(unlocked: false)
        defer { fixture.directory.remove() }
        let expiry = try fixture.vault.unlock(passphrase: try secret(testPassphrase))
        #expect(expiry.millisecondsSince1970 == TestClock.start + 8 * 3_600_000)
        #expect(try fixture.storedKey().persistence == .session)
    }

    @Test func lockRemovesTheKeyAndTheNextJournalCallIsLocked() throws {
        let fixture = try makeVault()
        defer { fixture.directory.remove() }
        _ = try fixture.vault.addBook(title: "Before Lock", authors: [])
        try fixture.vault.lock()
        #expect(try !fixture.isKeyStored())
        #expect(vaultError { () throws(VaultError) in try fixture.vault.books() } == .locked)
        #expect(vaultError { () throws(VaultError) in try fixture.vault.addBook(title: "After Lock", authors: []) } == .locked)
        #expect(vaultError { () throws(VaultError) in try fixture.reopen().books() } == .locked)
        try fixture.vault.lock() // locking a locked vault is fine
        #expect(try fixture.vault.status().counts.books == 1)
    }

    // MARK: - Expiry and stale keys

    @Test func keyStoredWithAPastExpiryIsSessionExpiredAndRemoved() throws {
        let fixture = try makeVault()
        defer { fixture.directory.remove() }
        let stored = try fixture.storedKey()
        try fixture.keyStore.store(stored.key, vaultID: fixture.vault.vaultID,
                                   expiresAtMilliseconds: fixture.clock.now().millisecondsSince1970 - 1, persistence: .session)

        let next = try fixture.reopen()
        #expect(vaultError { () throws(VaultError) in try next.books() } == .sessionExpired)
        #expect(try !fixture.isKeyStored())
        #expect(vaultError { () throws(VaultError) in try next.books() } == .locked)
    }

    @Test func advancingTheClockPastTheExpiryIsSessionExpired() throws {
        let fixture = try makeVault(unlocked: false)
        defer { fixture.directory.remove() }
        try fixture.vault.unlock(passphrase: try secret(testPassphrase), forSeconds: 60)

        fixture.clock.advance(seconds: 59)
        try fixture.reopen().ensureUnlocked()

        fixture.clock.advance(seconds: 1) // exactly at the expiry: expired
        #expect(vaultError { () throws(VaultError) in try fixture.reopen().addBook(title: "Late", authors: []) } == .sessionExpired)
        #expect(try !fixture.isKeyStored())
    }

    @Test func statusReportsAndRemovesAnExpiredKey() throws {
        let fixture = try makeVault(unlocked: false)
        defer { fixture.directory.remove() }
        try fixture.vault.unlock(passphrase: try secret(testPassphrase), forSeconds: 60)
        fixture.clock.advance(seconds: 61)
        let status = try fixture.reopen().status()
        #expect(status.keyState == .expired)
        #expect(status.isLocked)
        #expect(try !fixture.isKeyStored())
    }

    @Test func anotherVaultsKeyUnderThisVaultsIDIsLockedAndRemoved() throws {
        let fixture = try makeVault(unlocked: false)
        defer { fixture.directory.remove() }
        let stranger = try VaultKey.generate()
        try fixture.keyStore.store(stranger, vaultID: fixture.vault.vaultID,
                                   expiresAtMilliseconds: fixture.clock.now().millisecondsSince1970 + 3_600_000, persistence: .session)
        #expect(try fixture.vault.status().keyState == .notUnlocked)

        #expect(vaultError { () throws(VaultError) in try fixture.vault.books() } == .locked)
        #expect(try !fixture.isKeyStored())
        // The real passphrase still unlocks it.
        try fixture.vault.unlock(passphrase: try secret(testPassphrase))
        #expect(try fixture.vault.books().isEmpty)
    }

    @Test func keyOfAnotherVaultFromTheSameKeystoreDoesNotOpenThisOne() throws {
        let keyStore = MemoryKeyStore()
        let first = try makeVault(keyStore: keyStore)
        defer { first.directory.remove() }
        let second = try makeVault(unlocked: false, keyStore: keyStore)
        defer { second.directory.remove() }
        _ = try first.vault.addBook(title: "First's", authors: [])
        #expect(vaultError { () throws(VaultError) in try second.vault.books() } == .locked)
        // First's key planted under second's id (a mix-up in the keystore) does not open second.
        let firstKey = try first.storedKey()
        try keyStore.store(firstKey.key, vaultID: second.vault.vaultID, expiresAtMilliseconds: Int64.max, persistence: .session)
        #expect(vaultError { () throws(VaultError) in try second.reopen().books() } == .locked)
        #expect(try !second.isKeyStored())
        #expect(try first.isKeyStored())
    }

    // MARK: - Passphrase change

    @Test func changingThePassphraseKeepsEveryRecordAndTheRecoveryKey() throws {
        let fixture = try makeVault()
        defer { fixture.directory.remove() }
        let book = try fixture.vault.addBook(title: "Persistent", authors: ["A"])
        let note = try fixture.vault.addAnnotation(to: try fixture.vault.book(named: book.id.rawValue), kind: .note, body: "sealed before the change", locator: nil)
        let quote = try fixture.vault.addAnnotation(to: try fixture.vault.book(named: "persistent"), kind: .quote, body: "quoted", locator: "p. 4")

        #expect(vaultError { () throws(VaultError) in try fixture.vault.changePassphrase(confirmed: try fixture.vault.confirm(try secretOrFail(testPassphrase)), to: try secretOrFail("short"), kdf: interactive) }
                == .passphraseTooShort(minimum: 8))
        #expect(vaultError { () throws(VaultError) in
            try fixture.vault.changePassphrase(confirmed: try fixture.vault.confirm(try secretOrFail(testPassphrase)), to: try secretOrFail(Array("new passphrase".utf8) + [0]),
                                               kdf: interactive)
        } == .passphraseInvalid)
        try fixture.vault.changePassphrase(confirmed: try fixture.vault.confirm(try secret(testPassphrase)), to: try secret("a brand new passphrase"), kdf: interactive)
        try fixture.vault.lock()

        let next = try fixture.reopen()
        #expect(vaultError { () throws(VaultError) in try next.unlock(passphrase: try secretOrFail(testPassphrase)) } == .wrongPassphrase)
        try next.unlock(passphrase: try secret("a brand new passphrase"))
        #expect(try next.books().map { try $0.get() } == [book])
        #expect(Set(try next.allAnnotations().map { try $0.get().annotation }) == [note, quote])
        try next.lock()

        let viaRecovery = try fixture.reopen()
        try viaRecovery.unlock(recoveryKey: try secret(fixture.recoveryKey))
        #expect(Set(try viaRecovery.allAnnotations().map { try $0.get().annotation }) == [note, quote])
    }

    @Test func aForgottenPassphraseIsReplacedWithTheRecoveryKey() throws {
        let fixture = try makeVault(unlocked: false)
        defer { fixture.directory.remove() }
        try fixture.vault.changePassphrase(confirmed: try fixture.vault.confirm(try secret(fixture.recoveryKey)), to: try secret("remembered this time"), kdf: interactive)
        let next = try fixture.reopen()
        #expect(vaultError { () throws(VaultError) in try next.unlock(passphrase: try secretOrFail(testPassphrase)) } == .wrongPassphrase)
        try next.unlock(passphrase: try secret("remembered this time"))
    }

    @Test func changingThePassphraseNeedsTheCurrentOneNotAnUnlockedVault() throws {
        let fixture = try makeVault(unlocked: true)
        defer { fixture.directory.remove() }
        let before = try fileBytes(fixture.databasePath)
        #expect(vaultError { () throws(VaultError) in
            _ = try fixture.vault.confirm(try secretOrFail("a guess at it"))
        } == .wrongPassphrase)
        #expect(vaultError { () throws(VaultError) in
            _ = try fixture.vault.confirm(try secretOrFail("AAAA-AAAA"))
        } == .wrongPassphrase)
        #expect(try fileBytes(fixture.databasePath) == before)
    }

    @Test func rotatingTheRecoveryKeyRetiresTheOldOneAndKeepsThePassphrase() throws {
        let fixture = try makeVault(unlocked: false)
        defer { fixture.directory.remove() }
        let before = try fileBytes(fixture.databasePath)
        #expect(vaultError { () throws(VaultError) in _ = try fixture.vault.rotateRecoveryKey(confirmed: try fixture.vault.confirm(try secretOrFail("a guess at it"))) }
                == .wrongPassphrase)
        #expect(try fileBytes(fixture.databasePath) == before)

        let rotated = try fixture.vault.rotateRecoveryKey(confirmed: try fixture.vault.confirm(try secret(testPassphrase)))
        let newKey = rotated.withUnsafeBytes { Array($0) }
        #expect(newKey != fixture.recoveryKey)
        let next = try fixture.reopen()
        #expect(vaultError { () throws(VaultError) in try next.unlock(recoveryKey: try secretOrFail(fixture.recoveryKey)) } == .wrongRecoveryKey)
        try next.unlock(recoveryKey: try secret(newKey))
        try next.lock()
        try next.unlock(passphrase: try secret(testPassphrase))
        // The new recovery key proves who is asking, too.
        _ = try next.rotateRecoveryKey(confirmed: try next.confirm(try secret(newKey)))
    }

    // MARK: - Recovery key

    @Test func printedRecoveryKeyUnlocks() throws {
        let fixture = try makeVault(unlocked: false)
        defer { fixture.directory.remove() }
        try fixture.vault.unlock(recoveryKey: try secret(fixture.recoveryKey))
        _ = try fixture.vault.addBook(title: "Recovered", authors: [])
        #expect(try fixture.isKeyStored())
        try fixture.vault.lock()

        // As a reader might retype it: lower case, spaces instead of hyphens.
        let retyped = String(decoding: fixture.recoveryKey, as: UTF8.self).lowercased().replacingOccurrences(of: "-", with: " ")
        try fixture.vault.unlock(recoveryKey: try secret(retyped))
        #expect(try fixture.vault.books().count == 1)
    }

    @Test(arguments: [0, 17, 40]) // the first, a middle, and the last (checksum) character
    func recoveryKeyWithOneCharacterChangedIsInvalid(position: Int) throws {
        let fixture = try makeVault(unlocked: false)
        defer { fixture.directory.remove() }
        var typo = fixture.recoveryKey
        #expect(typo[position] != UInt8(ascii: "-"))
        typo[position] = typo[position] == UInt8(ascii: "2") ? UInt8(ascii: "3") : UInt8(ascii: "2")
        #expect(vaultError { () throws(VaultError) in try fixture.vault.unlock(recoveryKey: try secretOrFail(typo)) } == .recoveryKeyChecksumFailed,
                "a mistyped character: the checksum says so")
        #expect(vaultError { () throws(VaultError) in try fixture.vault.unlock(recoveryKey: try secretOrFail(Array(typo.dropLast()))) }
                == .invalidRecoveryKey)
        #expect(vaultError { () throws(VaultError) in try fixture.vault.unlock(recoveryKey: try secretOrFail("not a recovery key")) }
                == .invalidRecoveryKey)
        #expect(try !fixture.isKeyStored())
    }

    @Test func anotherVaultsRecoveryKeyIsWrongRecoveryKey() throws {
        let fixture = try makeVault(unlocked: false)
        defer { fixture.directory.remove() }
        let other = try makeVault(unlocked: false)
        defer { other.directory.remove() }
        #expect(vaultError { () throws(VaultError) in try fixture.vault.unlock(recoveryKey: try secretOrFail(other.recoveryKey)) }
                == .wrongRecoveryKey)
        #expect(try !fixture.isKeyStored())
        #expect(vaultError { () throws(VaultError) in try fixture.vault.books() } == .locked)
    }
}

// Typed-throws closures cannot call plain `throws` helpers; these rethrow as VaultError.
func secretOrFail(_ text: String) throws(VaultError) -> SecretBytes {
    try secretOrFail(Array(text.utf8))
}

func secretOrFail(_ bytes: [UInt8]) throws(VaultError) -> SecretBytes {
    do { return try secret(bytes) } catch { throw .crypto(.outOfSecureMemory) }
}
