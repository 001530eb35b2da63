import Foundation
import Testing

/// The Secret Service missing, silent, locked or expired: each a clear error naming what
/// to do, the right exit status, and never a hang.
@Suite struct KeyringFaultTests {
    @Test func noSessionBusSaysWhatToStart() throws {
        let vault = try TestVault()
        try vault.create()
        let noBus = ["DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent/bus", "XDG_RUNTIME_DIR": vault.root.path]
        for arguments in [["unlock", "--passphrase-stdin"], ["lock"]] {
            let result = try vault.run(arguments, stdin: TestVault.passphrase + "\n", environment: noBus)
            #expect(result.status == 69, "\(arguments): \(result)")
            #expect(result.stderr == "Error: no D-Bus session bus: log in to a desktop session, or start one with `dbus-run-session` and a Secret Service provider (README, \"Without a desktop\")\n")
        }
        // A journal command takes the headless path instead (HeadlessTests), and says what it needs.
        let list = try vault.run(["list"], stdin: TestVault.passphrase + "\n", environment: noBus)
        #expect(list.status == 77, "\(list)")
        #expect(list.stderr.hasPrefix("Error: the vault key is needed and there is no D-Bus session bus: "), "\(list)")
        // status still answers, from the vault alone.
        let status = try vault.run(["status", "--json"], environment: noBus)
        #expect(status.status == 0)
        #expect(status.stdout.contains("\"keyState\" : \"keyring-unavailable\""))
    }

    @Test func busWithoutProviderSaysWhatToStart() throws {
        let bus = try PrivateBus()
        let vault = try TestVault()
        try vault.create()
        vault.environment = bus.environment(vault.environment)
        let result = try vault.run(["unlock", "--passphrase-stdin"], stdin: TestVault.passphrase + "\n")
        #expect(result.status == 69, "\(result)")
        #expect(result.stderr.contains("no Secret Service on the session bus: start `gnome-keyring-daemon"))
    }

    @Test func providerThatNeverAnswersTimesOut() throws {
        let bus = try PrivateBus()
        try bus.startSilentProvider()
        let vault = try TestVault(environment: ["BMVAULT_KEYRING_TIMEOUT_MS": "700"])
        try vault.create()
        vault.environment = bus.environment(vault.environment)
        for arguments in [["unlock", "--passphrase-stdin"], ["list"], ["lock"]] {
            let started = Date()
            let result = try vault.run(arguments, stdin: TestVault.passphrase + "\n")
            let elapsed = Date().timeIntervalSince(started)
            #expect(result.status == 69, "\(arguments): \(result)")
            #expect(result.stderr.contains("the Secret Service did not answer within 0.7 s"), "\(result)")
            #expect(elapsed < 5, "\(arguments) took \(elapsed) s")
        }
    }

    @Test func lockedKeyringCollectionIsToldApartFromMissingKey() throws {
        let bus = try PrivateBus()
        try bus.startKeyring()
        let vault = try TestVault()
        vault.environment = bus.environment(vault.environment)
        try vault.create()
        try vault.succeed(["unlock", "--passphrase-stdin", "--remember"], stdin: TestVault.passphrase + "\n")
        try vault.succeed(["book", "add", "Unlocked for now"])

        let locked = try bus.send(["--dest=org.freedesktop.secrets", "/org/freedesktop/secrets", "org.freedesktop.Secret.Service.Lock",
                                   "array:objpath:/org/freedesktop/secrets/collection/login"])
        try #require(locked.status == 0, "\(locked)")

        let result = try vault.run(["book", "list"])
        #expect(result.status == 77, "\(result)")
        #expect(result.stderr.contains("the keyring holding the vault key is locked"), "\(result)")
        let status = try vault.run(["status", "--json"])
        #expect(status.stdout.contains("\"keyState\" : \"keyring-locked\""), "\(status)")

        // A fresh unlock into the session keyring gets the reader going again.
        try vault.succeed(["unlock", "--passphrase-stdin"], stdin: TestVault.passphrase + "\n")
        #expect(try vault.succeed(["book", "list"]).stdout.contains("Unlocked for now"))
    }

    @Test func expiredUnlockCountsAsLockedAndIsRemoved() throws {
        let vault = try TestVault()
        try vault.create()
        try vault.succeed(["unlock", "--passphrase-stdin", "--timeout", "1s"], stdin: TestVault.passphrase + "\n")
        try vault.succeed(["book", "add", "Quick"])
        Thread.sleep(forTimeInterval: 1.3)
        let expired = try vault.run(["book", "list"])
        #expect(expired.status == 77)
        #expect(expired.stderr == "Error: the vault's unlock period has ended and its key was removed; run `bmvault unlock`\n")
        // The item is gone: the next command finds no key at all.
        let after = try vault.run(["book", "list"])
        #expect(after.stderr == "Error: the vault is locked; run `bmvault unlock`\n")
    }
}
