import Foundation
import Testing

/// Issue 41 (minor): `sync` and `status` count the conflicts `conflicts` lists: one another
/// device made and resolved, both pulled in one sync, is not counted; one is "1 conflict".
@Suite("Conflict counts", .serialized)
struct ConflictCountTests {
    @Test func syncAndStatusCountWhatConflictsLists() throws {
        let world = try SyncWorld()
        defer { withExtendedLifetime(world) {} }
        let a = world.first
        let b = try world.join()
        let note = try a.succeed(["note", "add", try a.succeed(["book", "add", "Shared"]).line, "the original"]).line
        try a.succeed(["sync"]); try b.succeed(["sync"])

        try a.succeed(["edit", note, "edited on A"])
        try a.succeed(["sync"])
        try b.succeed(["edit", note, "edited on B"])
        let made = try b.succeed(["sync"])
        #expect(made.stdout.contains(", 1 conflict, "), "\(made)")
        let status = try b.succeed(["status"]).stdout
        #expect(status.contains("; 1 conflict, see `bmvault conflicts`"), "\(status)")
        let copy = try #require(try b.conflicts().first?["id"] as? String)
        try b.succeed(["conflicts", "resolve", copy, "--keep", "note"])
        try b.succeed(["sync"])

        // A takes in B's concurrent edit and its resolution at once: nothing is left to resolve.
        let pulled = try a.succeed(["sync"])
        #expect(pulled.stdout.contains(", 0 conflicts, "), "\(pulled)")
        #expect(!pulled.stderr.contains("bmvault conflicts"), "\(pulled)")
        #expect(try a.succeed(["conflicts"]).stdout.contains("No conflicts."))
        #expect(!(try a.succeed(["status"]).stdout.contains("conflict")))
    }
}
