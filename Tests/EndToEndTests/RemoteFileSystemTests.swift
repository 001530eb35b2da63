import Foundation
import Testing

/// Remotes on the media readers carry (issue 17): a real exFAT stick, which has no hard
/// links, and any folder whose `link(2)` is refused (FAT, SMB, sshfs), simulated in every run.
@Suite struct RemoteFileSystemTests {
    /// A 64 MiB exFAT image on a loop device, mounted through exfat-fuse (the kernel here
    /// has no vfat module); unmounted and detached when it goes.
    final class ExFATStick {
        let image: URL
        let mountPoint: URL
        let loopDevice: String

        /// Why there can be no stick on this machine, or nil when there can: the test is then
        /// skipped, and says so, rather than passing without a stick.
        static let unavailability: String? = {
            guard getuid() == 0 else { return "mounting needs root" }
            for tool in ["/usr/sbin/mkfs.exfat", "/usr/sbin/mount.exfat-fuse", "/usr/sbin/losetup"]
            where !FileManager.default.isExecutableFile(atPath: tool) {
                return "\(tool) is missing (Scripts/install installs exfatprogs, exfat-fuse and mount)"
            }
            for device in ["/dev/loop-control", "/dev/fuse"] where !FileManager.default.fileExists(atPath: device) {
                return "\(device) is missing: this machine cannot mount a loop device through FUSE"
            }
            return nil
        }()

        init() throws {
            let base = FileManager.default.temporaryDirectory.appendingPathComponent("bmv-exfat-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
            image = base.appendingPathComponent("stick.img")
            mountPoint = base.appendingPathComponent("stick")
            try FileManager.default.createDirectory(at: mountPoint, withIntermediateDirectories: true)
            try Data().write(to: image)
            try FileHandle(forWritingTo: image).truncate(atOffset: 64 << 20)
            let environment = ProcessInfo.processInfo.environment
            let made = try Binary.run("/usr/sbin/mkfs.exfat", [image.path], environment: environment)
            guard made.status == 0 else { throw Unavailable("mkfs.exfat failed: \(made)") }
            let attached = try Binary.run("/usr/sbin/losetup", ["-f", "--show", image.path], environment: environment)
            guard attached.status == 0 else { throw Unavailable("no loop device: \(attached.stderr)") }
            loopDevice = attached.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            let mounted = try Binary.run("/usr/sbin/mount.exfat-fuse", [loopDevice, mountPoint.path], environment: environment)
            guard mounted.status == 0 else {
                _ = try? Binary.run("/usr/sbin/losetup", ["-d", loopDevice], environment: environment)
                throw Unavailable("mount.exfat-fuse failed: \(mounted.stderr)")
            }
        }

        deinit {
            let environment = ProcessInfo.processInfo.environment
            _ = try? Binary.run("/usr/bin/umount", [mountPoint.path], environment: environment)
            _ = try? Binary.run("/usr/sbin/losetup", ["-d", loopDevice], environment: environment)
            try? FileManager.default.removeItem(at: image.deletingLastPathComponent())
        }
    }

    struct Unavailable: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// Device A syncs through the folder, device B joins through it: every note arrives,
    /// every sync exits 0, and nothing but bmvault's files is left there. `remoteEnvironment`
    /// applies to what touches the remote (the vaults themselves stay on the local disk).
    private func carry(through folder: URL, remoteEnvironment extra: [String: String]) throws {
        let a = try TestVault()
        try a.createUnlocked()
        func sync(_ vault: TestVault) throws -> CommandResult { try vault.run(["sync"], environment: extra) }
        let added = try a.run(["remote", "add", "stick", folder.path], environment: extra)
        #expect(added.status == 0, "\(added)")
        let book = try a.succeed(["book", "add", "Carried on a stick"]).line
        for index in 0..<5 { try a.succeed(["note", "add", book, "note \(index) on the stick"]) }
        let pushed = try sync(a)
        #expect(pushed.status == 0, "\(pushed)")
        #expect(pushed.stdout.contains("0 failures"), "\(pushed)")

        let b = try TestVault()
        try b.succeed(["init", "--join", folder.path, "--passphrase-stdin"], stdin: TestVault.passphrase + "\n")
        try b.succeed(["unlock", "--passphrase-stdin"], stdin: TestVault.passphrase + "\n")
        let pulled = try sync(b)
        #expect(pulled.status == 0, "\(pulled)")
        let listed = try b.succeed(["list"]).stdout
        for index in 0..<5 { #expect(listed.contains("note \(index) on the stick"), "\(listed)") }
        try b.succeed(["note", "add", "carried", "written on B"])
        #expect(try sync(b).status == 0)
        #expect(try sync(a).status == 0)
        #expect(try a.succeed(["list"]).stdout.contains("written on B"))
        #expect(try a.succeed(["outbox"]).stdout.contains("The outbox is empty."))

        let leftovers = (FileManager.default.enumerator(atPath: folder.path)?.compactMap { $0 as? String } ?? [])
            .filter { $0.contains(".tmp-") || $0.contains(".bmvault-probe-") }
        #expect(leftovers.isEmpty, "\(leftovers)")
    }

    @Test(.enabled(if: ExFATStick.unavailability == nil, Comment(rawValue: ExFATStick.unavailability ?? "")))
    func aRealExFATStickCarriesTheJournal() throws {
        let stick = try ExFATStick()
        try withExtendedLifetime(stick) { try carry(through: stick.mountPoint, remoteEnvironment: [:]) }
    }

    /// Every run, whatever the machine: `link(2)` refused as FAT refuses it, and
    /// `renameat2`'s no-replace flag refused as exFAT's FUSE driver does.
    @Test(arguments: ["link:EPERM", "link:EPERM,renameat2:EINVAL"])
    func aFolderWithoutHardLinksCarriesTheJournal(faults: String) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bmv-nolinks-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try carry(through: folder, remoteEnvironment: ["BMVAULT_TEST_IO_FAULTS": faults])
    }

    /// `remote add` tries the folder first and names what it cannot do, before any sync.
    @Test func remoteAddNamesAFolderThatCannotHoldTheFiles() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bmv-full-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let vault = try TestVault()
        try vault.createUnlocked()
        let full = try vault.run(["remote", "add", "stick", folder.path], environment: ["BMVAULT_TEST_IO_FAULTS": "create:ENOSPC"])
        #expect(full.status == 69, "\(full)")
        #expect(full.stderr == "Error: the folder for remote stick cannot hold bmvault's files: creating a file failed there; check that the drive is writable, not full and not read-only (nothing was set up)\n")
        #expect(try vault.succeed(["remote", "list"]).stdout.contains("stick") == false, "nothing was set up")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == [], "the probe left nothing")
        try vault.succeed(["remote", "add", "stick", folder.path])
    }

    /// Issue 17: `remote add` and `init --join` say what is wrong with the folder the reader
    /// named, in its own words, and never speak of a remote called "origin" they never made.
    @Test func aMissingFolderIsNamedAsMissing() throws {
        let vault = try TestVault()
        try vault.createUnlocked()
        let missing = vault.root.appendingPathComponent("not-plugged-in").path
        let added = try vault.run(["remote", "add", "usb", missing])
        #expect(added.status == 69, "\(added)")
        #expect(added.stderr == "Error: the folder for remote usb does not exist or is not a folder (is the drive mounted?); nothing was set up\n")
        let other = try TestVault()
        let joined = try other.run(["init", "--join", missing, "--passphrase-stdin"], stdin: TestVault.passphrase + "\n")
        #expect(joined.status == 69, "\(joined)")
        #expect(joined.stderr == "Error: the folder given to `init --join` does not exist or is not a folder (is the drive mounted?); nothing was set up\n")
        #expect(!joined.stderr.contains("origin"))
    }

    /// The folder a reader sees on the stick is `bmvault-<vault id>`: joining through it works
    /// like joining through the folder that holds it.
    @Test func joiningThroughTheVaultFolderItselfWorks() throws {
        let world = try SyncWorld()
        defer { withExtendedLifetime(world) {} }
        try world.first.succeed(["book", "add", "Found through its own folder"])
        try world.first.succeed(["sync"])
        let inner = try #require(try FileManager.default.contentsOfDirectory(atPath: world.folder.path).first { $0.hasPrefix("bmvault-") })
        let device = try TestVault()
        let joined = try device.run(["init", "--join", world.folder.appendingPathComponent(inner).path, "--passphrase-stdin"],
                                    stdin: TestVault.passphrase + "\n")
        #expect(joined.status == 0, "\(joined)")
        try device.succeed(["unlock", "--passphrase-stdin"], stdin: TestVault.passphrase + "\n")
        try device.succeed(["sync"])
        #expect(try device.succeed(["book", "list"]).stdout.contains("Found through its own folder"))
        #expect(try device.succeed(["remote", "list"]).stdout.contains(world.folder.path))
    }
}
