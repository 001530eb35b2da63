import Foundation
import Testing

/// A remote folder anyone with the stick could have changed (issue 23): what is not a file
/// bmvault writes is counted and skipped, never waited on, followed or read without bound.
@Suite struct RemoteHostileTests {
    /// Device A with a remote, synced once; the remote's vault folder and A's device folder.
    private func world() throws -> (SyncWorld, vaultFolder: URL, deviceFolder: URL) {
        let world = try SyncWorld()
        try world.first.succeed(["book", "add", "Sent once"])
        try world.first.succeed(["sync"])
        let root = try #require(try FileManager.default.contentsOfDirectory(atPath: world.folder.path).first { $0.hasPrefix("bmvault-") })
        let vaultFolder = world.folder.appendingPathComponent(root)
        let devices = vaultFolder.appendingPathComponent("devices")
        let device = try #require(try FileManager.default.contentsOfDirectory(atPath: devices.path).first)
        return (world, vaultFolder, devices.appendingPathComponent(device))
    }

    /// Runs bmvault under `timeout`: a hang is a failure with status 124, not a stuck suite.
    private func bounded(_ vault: TestVault, _ arguments: [String]) throws -> CommandResult {
        try Binary.run("/usr/bin/timeout", ["20", Binary.path] + arguments, environment: vault.environment)
    }

    /// An operation file name another device could have written, with a fresh key.
    private func operationName(like folder: URL) throws -> String {
        let existing = try #require(try FileManager.default.contentsOfDirectory(atPath: folder.path).first { $0.hasSuffix(".op") })
        let clock = existing.split(separator: ".").first.map(String.init) ?? ""
        return clock + "." + UUID().uuidString.lowercased() + ".op"
    }

    @Test func aFIFOAndAnEndlessFileAmongTheOperationsAreSkippedNotWaitedOn() throws {
        let (world, _, deviceFolder) = try world()
        defer { withExtendedLifetime(world) {} }
        let b = try world.join()
        // Another "device" folder holding a FIFO and a link to /dev/zero under operation names.
        let stranger = deviceFolder.deletingLastPathComponent().appendingPathComponent(String(repeating: "ab", count: 16))
        try FileManager.default.createDirectory(at: stranger, withIntermediateDirectories: true)
        #expect(mkfifo(stranger.appendingPathComponent(try operationName(like: deviceFolder)).path, 0o600) == 0)
        try FileManager.default.createSymbolicLink(atPath: stranger.appendingPathComponent(try operationName(like: deviceFolder)).path,
                                                   withDestinationPath: "/dev/zero")
        try world.first.succeed(["note", "add", "sent", "still arrives"])
        let sent = try bounded(world.first, ["sync"])
        #expect(sent.status == 1 && sent.stdout.contains("1 pushed"), "pushed, and said what it skipped: \(sent)")

        let result = try bounded(b, ["sync"])
        #expect(result.status == 1, "\(result)")
        #expect(result.stdout.contains("2 unreadable operations skipped"), "\(result)")
        #expect(try b.succeed(["list"]).stdout.contains("still arrives"), "the rest was applied")
    }

    @Test func aFIFOAsTheDescriptorOrTheAcknowledgementDoesNotHang() throws {
        let (world, vaultFolder, deviceFolder) = try world()
        defer { withExtendedLifetime(world) {} }
        let acknowledgement = deviceFolder.appendingPathComponent("acknowledgement")
        try FileManager.default.removeItem(at: acknowledgement)
        #expect(mkfifo(acknowledgement.path, 0o600) == 0)
        let b = try world.join()
        let other = try bounded(b, ["sync"])
        #expect(other.status != 124, "the sync hung on a FIFO: \(other)")

        let descriptor = vaultFolder.appendingPathComponent("vault.json")
        try FileManager.default.removeItem(at: descriptor)
        try FileManager.default.createSymbolicLink(atPath: descriptor.path, withDestinationPath: "/dev/zero")
        let result = try bounded(world.first, ["sync"])
        #expect(result.status == 69, "\(result)")
        #expect(result.stderr == "Error: the remote shared could not be used (malformed); nothing was synced\n", "\(result)")
    }

    /// Nothing is written through a link where this device's folder belongs, and (issue 40)
    /// the uploads it stopped are left to retry (exit 75), not failed for good: once the link
    /// is gone a plain `sync` delivers, and a device that joins gets the note.
    @Test func aLinkInPlaceOfThisDevicesFolderIsRefusedAndNothingIsWrittenThrough() throws {
        let (world, _, deviceFolder) = try world()
        defer { withExtendedLifetime(world) {} }
        let elsewhere = world.first.root.appendingPathComponent("elsewhere")
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
        let aside = world.first.root.appendingPathComponent("aside")
        try FileManager.default.moveItem(at: deviceFolder, to: aside)
        try FileManager.default.createSymbolicLink(atPath: deviceFolder.path, withDestinationPath: elsewhere.path)
        try world.first.succeed(["note", "add", "sent", "must not go elsewhere"])

        let result = try bounded(world.first, ["sync"])
        #expect(result.status == 75, "\(result)")
        #expect(result.stderr.hasSuffix("failed for now and will be retried; run `bmvault sync` again later\n"), "\(result)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere.path).isEmpty, "a file was written through the link")

        try FileManager.default.removeItem(at: deviceFolder)
        try FileManager.default.moveItem(at: aside, to: deviceFolder)
        Thread.sleep(forTimeInterval: 2.1)      // past the first backoff (at most 2 s)
        let healed = try bounded(world.first, ["sync"])
        #expect(healed.status == 0, "\(healed)")
        let joined = try world.join()
        #expect(try joined.succeed(["list", "--json"]).stdout.contains("must not go elsewhere"))
    }

    @Test func aStrayFileInTheDevicesFolderBlocksNothing() throws {
        let (world, _, deviceFolder) = try world()
        defer { withExtendedLifetime(world) {} }
        let devices = deviceFolder.deletingLastPathComponent()
        try Data("[.ShellClassInfo]\n".utf8).write(to: devices.appendingPathComponent("desktop.ini"))
        try FileManager.default.createSymbolicLink(atPath: devices.appendingPathComponent("dangling").path, withDestinationPath: "/nowhere")
        #expect(mkfifo(devices.appendingPathComponent("pipe").path, 0o600) == 0)
        let b = try world.join()
        try world.first.succeed(["note", "add", "sent", "past the stray files"])
        #expect(try bounded(world.first, ["sync"]).status == 0)
        let result = try bounded(b, ["sync"])
        #expect(result.status == 0, "\(result)")
        #expect(try b.succeed(["list"]).stdout.contains("past the stray files"))
    }
}
