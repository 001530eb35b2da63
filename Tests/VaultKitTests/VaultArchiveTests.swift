import Foundation
import Testing
import Journal
@testable import VaultKit
@testable import VaultStore
import TestSupport

/// Export and import through the facade: a round trip into another vault, idempotency, and
/// an archive that fails at its last record leaving the vault exactly as it was.
@Suite struct VaultArchiveTests {
    private func populated() throws -> VaultFixture {
        let fixture = try makeVault()
        let book = try fixture.vault.addBook(title: "Dune", authors: ["Frank Herbert"])
        _ = try fixture.vault.addAnnotation(to: book, kind: .note, body: "# a heading?\n> a quote?", locator: "p. 1")
        _ = try fixture.vault.addAnnotation(to: book, kind: .quote, body: "Fear is the mind-killer.", locator: "p. 8")
        _ = try fixture.vault.addSession(to: "Dune", pagesRead: 30, startedAt: fixture.clock.now(), endedAt: fixture.clock.now())
        return fixture
    }

    private func listed(_ vault: Vault) throws -> [String] {
        try vault.allAnnotations().compactMap { try? $0.get() }.map { "\($0.annotation.id) \($0.annotation.body) \($0.annotation.locator?.text ?? "")" }
    }

    @Test func anArchiveMovesTheJournalToAnotherVaultOnce() throws {
        let source = try populated()
        defer { source.directory.remove() }
        let archive = source.directory.path + "/archive"
        let exported = try source.vault.exportArchive(to: archive, includeDeleted: false)
        #expect(exported.archive.counts.notes == 1 && exported.archive.counts.quotes == 1 && exported.unreadable.isEmpty)
        let target = try makeVault()
        defer { target.directory.remove() }
        let first = try target.vault.importArchive(from: archive, dryRun: false, force: false)
        #expect(first.summary.added == JournalCounts(books: 1, sessions: 1, notes: 1, quotes: 1))
        #expect(try listed(target.vault) == listed(source.vault))
        let outbox = try target.vault.status().outbox
        let second = try target.vault.importArchive(from: archive, dryRun: false, force: false)
        #expect(second.summary.added.total == 0 && second.summary.updated.total == 0 && second.summary.unchanged == 4)
        #expect(try target.vault.status().outbox == outbox)
    }

    @Test func anArchiveThatFailsAtItsLastRecordChangesNothing() throws {
        let source = try populated()
        defer { source.directory.remove() }
        let archive = source.directory.path + "/archive"
        _ = try source.vault.exportArchive(to: archive, includeDeleted: false)
        // The last record (the session) names a book no one has: found only at the end.
        let journal = archive + "/journal.json"
        var text = try String(contentsOfFile: journal, encoding: .utf8)
        let last = try #require(text.range(of: "\"bookId\" : \"", options: .backwards))
        text.replaceSubrange(last.upperBound..<text.index(last.upperBound, offsetBy: 36), with: "0193f2a1-7c4e-7abc-8def-0123456789ab")
        try text.write(toFile: journal, atomically: true, encoding: .utf8)
        let target = try makeVault()
        defer { target.directory.remove() }
        _ = try target.vault.addBook(title: "Already here", authors: [])
        // The whole vault in the file (the import folds the WAL in before it writes).
        try target.vault.store.database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        let before = try databaseBytesIgnoringChangeCounter(target.databasePath)
        let error = vaultError { () throws(VaultError) in try target.vault.importArchive(from: archive, dryRun: false, force: true) }
        guard case .archive(.unknownBook(let file, _, _, let book)) = error else { Issue.record("\(String(describing: error))"); return }
        #expect(file == "journal.json" && book == "0193f2a1-7c4e-7abc-8def-0123456789ab")
        #expect(try databaseBytesIgnoringChangeCounter(target.databasePath) == before)
        #expect(countList(try target.vault.status()) == [1, 0, 0, 0])
        // Without --force the changed file is refused before anything is read.
        let refused = vaultError { () throws(VaultError) in try target.vault.importArchive(from: archive, dryRun: false, force: false) }
        guard case .archive(.checksumMismatch) = refused else { Issue.record("\(String(describing: refused))"); return }
    }

    @Test func aLockedVaultNeitherExportsNorImports() throws {
        let fixture = try populated()
        defer { fixture.directory.remove() }
        try fixture.vault.lock()
        let vault = try fixture.reopen()
        #expect(vaultError { () throws(VaultError) in try vault.exportArchive(to: fixture.directory.path + "/a", includeDeleted: false) } == .locked)
        #expect(!FileManager.default.fileExists(atPath: fixture.directory.path + "/a"))
        #expect(vaultError { () throws(VaultError) in try vault.importArchive(from: fixture.directory.path, dryRun: true, force: false) } == .locked)
    }
}
