import Foundation
import Testing
@testable import Telemetry

/// Failure reports: a private file of their own, with the scrubbed event and recent
/// (already scrubbed) log lines, never content.
@Suite struct FailureReportTests {
    @Test func writesAPrivateReportWithTheScrubbedEventAndRecentLines() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let state = root.appendingPathComponent("state/bmvault").path
        let secret = makeCanary()
        let recent = RecentContent()
        let decrypted = makeCanary("decrypted-")
        recent.remember(decrypted)
        let path = try #require(FailureReport.write(
            stateDirectory: state, event: "cli.command.failed",
            fields: ["command": .public("note add"), "error": .public("VaultError.upgradeFailed"), "status": 1,
                     "title": .text(secret), "wrongly": .public(decrypted)],
            recentLines: ["2026-12-02T10:00:00.000Z info cli.command.started command=\"note add\"", "second line"],
            scrubber: Scrubber(recentContent: recent)))

        #expect(path.hasPrefix(state + "/reports/"))
        #expect(path.contains("-cli.command.failed-") && path.hasSuffix(".txt"))
        #expect(mode(of: state + "/reports") == 0o700)
        #expect(mode(of: path) == 0o600)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.hasPrefix("bmvault failure report\n"))
        #expect(text.contains(#" error cli.command.failed command="note add" error=VaultError.upgradeFailed status=1 title=<redacted> wrongly=<redacted>"#), "\(text)")
        #expect(text.contains("recent log lines:\n  2026-12-02T10:00:00.000Z info cli.command.started command=\"note add\"\n  second line\n"), "\(text)")
        #expect(!text.contains(secret) && !text.contains(decrypted), "\(text)")
        // Nothing else was written beside it.
        #expect(try FileManager.default.contentsOfDirectory(atPath: state + "/reports").count == 1)
    }

    @Test func anUnsafeEventNameCannotEscapeTheReportsDirectory() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let state = root.appendingPathComponent("state").path
        let path = try #require(FailureReport.write(stateDirectory: state, event: "../../escape me", fields: [:], recentLines: [],
                                                    scrubber: Scrubber(recentContent: RecentContent())))
        #expect(URL(fileURLWithPath: path).deletingLastPathComponent().path == state + "/reports")
        #expect(URL(fileURLWithPath: path).lastPathComponent.contains("-.._.._escape_me-"))
    }

    @Test func aReportThatCannotBeWrittenReturnsNil() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        // The state "directory" is a file: no reports directory can be made under it.
        let blocker = root.appendingPathComponent("state").path
        _ = FileManager.default.createFile(atPath: blocker, contents: Data())
        #expect(FailureReport.write(stateDirectory: blocker, event: "x", fields: [:], recentLines: [],
                                    scrubber: Scrubber(recentContent: RecentContent())) == nil)
    }
}
