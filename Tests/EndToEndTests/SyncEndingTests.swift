import Foundation
import Testing

/// A sync that did not do everything it was asked never exits 0 (issue 17, "Honest
/// endings"): 1 when something needs the reader, 69 when a remote could not be used, 75 when
/// what is left will go by itself at a later sync. The summary comes first; the last line
/// says what is left and what to do.
@Suite struct SyncEndingTests {
    @Test func aRemoteThatCannotBeReachedWhileAnotherSyncsIs69() throws {
        let world = try SyncWorld()
        defer { withExtendedLifetime(world) {} }
        let a = world.first
        let usb = a.root.appendingPathComponent("usb")
        try FileManager.default.createDirectory(at: usb, withIntermediateDirectories: true)
        try a.succeed(["remote", "add", "usb", usb.path])
        try a.succeed(["sync"])
        try FileManager.default.removeItem(at: usb)                              // the stick is not plugged in
        try a.succeed(["book", "add", "Carried on one remote only"])

        let result = try a.run(["sync"])
        #expect(result.status == 69, "\(result)")
        #expect(result.stdout.contains("Synced: 1 pushed"), "the reachable remote was used: \(result)")
        #expect(result.stderr.contains("Skipped remote usb: "), "\(result)")
        #expect(result.stderr.hasSuffix("Error: the sync is not complete: remote usb could not be used (said above); what it needs waits in the outbox\n"),
                "\(result)")
    }

    @Test func anOperationFileThatDoesNotOpenHereIsExit1() throws {
        let world = try SyncWorld()
        defer { withExtendedLifetime(world) {} }
        let a = world.first
        let b = try world.join()
        let before = Set(try world.operationFiles().flatMap { device, names in names.map { device + "/" + $0 } })
        try b.succeed(["book", "add", "From B"])
        try b.succeed(["sync"])
        // B's new file damaged on the remote: A cannot read it, and must not pretend it did.
        let after = Set(try world.operationFiles().flatMap { device, names in names.map { device + "/" + $0 } })
        let added = try #require(after.subtracting(before).first { $0.hasSuffix(".op") })
        let root = try #require(try FileManager.default.contentsOfDirectory(atPath: world.folder.path).first { $0.hasPrefix("bmvault-") })
        let path = world.folder.appendingPathComponent(root).appendingPathComponent("devices").appendingPathComponent(added)
        try Data(repeating: 0x5A, count: 300).write(to: path)

        let result = try a.run(["sync"])
        #expect(result.status == 1, "\(result)")
        #expect(result.stdout.contains("1 unreadable operations skipped"), "\(result)")
        #expect(result.stderr.hasPrefix("Error: the sync is not complete: 1 operation on the remotes could not be read here and was skipped"), "\(result)")
    }

    @Test func aFreshListingAfterAFailedUploadShowsTheListThenExits75() throws {
        let world = try SyncWorld()
        defer { withExtendedLifetime(world) {} }
        let a = world.first
        let book = try a.succeed(["book", "add", "Listed anyway"]).line
        try a.succeed(["note", "add", book, "waiting to go"])
        let result = try a.run(["list", "--fresh"], environment: ["BMVAULT_TEST_REMOTE_FAULTS": "fail-write:1"])
        #expect(result.status == 75, "\(result)")
        #expect(result.stdout.contains("waiting to go"), "the listing is shown: \(result)")
        #expect(result.stderr.hasSuffix("; run `bmvault sync` again later\n"), "\(result)")
        // A later sync finishes it, and says so with 0.
        waitOutFirstBackoff()
        try a.succeed(["sync"])
    }
}
