import Foundation
import Testing

/// Two bmvault processes writing at once lose nothing.
@Suite struct ConcurrencyTests {
    @Test func twoWritersTimesTwoHundredNotesLeaveFourHundred() throws {
        let vault = try TestVault()
        try vault.createUnlocked()
        // A remote never synced, so every operation waits in the outbox and can be counted.
        let remote = vault.root.appendingPathComponent("remote-folder")
        try FileManager.default.createDirectory(at: remote, withIntermediateDirectories: true)
        try vault.succeed(["remote", "add", "usb", remote.path])
        let book = try vault.succeed(["book", "add", "Shared"]).line
        let environment = vault.environment
        let failures = Failures()
        DispatchQueue.concurrentPerform(iterations: 2) { writer in
            for index in 0..<200 {
                let result = try? Binary.run(Binary.path, ["note", "add", book, "writer \(writer) note \(index)"], environment: environment)
                if result?.status != 0 { failures.record("writer \(writer) note \(index): \(result?.description ?? "did not run")") }
            }
        }
        #expect(failures.all.isEmpty, "\(failures.all.prefix(3))")
        let status = try #require(try vault.json(["status", "--json"]) as? [String: Any])
        #expect((status["counts"] as? [String: Int])?["notes"] == 400)
        #expect((status["outbox"] as? [String: Int])?["pending"] == 401)
        let bodies = try #require(try vault.json(["list", "--json"]) as? [[String: Any]]).compactMap { $0["body"] as? String }
        #expect(Set(bodies).count == 400)
    }
}

/// Failures collected from concurrent workers.
final class Failures: @unchecked Sendable {
    private let lock = NSLock()
    private var messages: [String] = []

    func record(_ message: String) {
        lock.lock()
        messages.append(message)
        lock.unlock()
    }

    var all: [String] {
        lock.lock()
        defer { lock.unlock() }
        return messages
    }
}
