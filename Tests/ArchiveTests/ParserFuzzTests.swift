import Foundation
import Testing
@testable import Archive
import TestSupport

/// Seeded fuzzing of the archive's parsers of outside input (issue 23): the streaming JSON
/// reader over journal.json and the Markdown reader over each book file, fed mutations of
/// the golden v1 archive. Every case must end, as a parse or as an ``ArchiveError``: a
/// crash or a trap kills the test run. `Scripts/fuzz` runs more cases from other seeds
/// (`BMVAULT_FUZZ_CASES`, `BMVAULT_FUZZ_SEED`); a seed that ever broke one is kept in
/// ``regressionSeeds``.
@Suite struct ParserFuzzTests {
    static let regressionSeeds: [UInt64] = []

    /// `Tests/Fixtures/archives/v1/archive`, found from this file's own path.
    static let archive = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/archives/v1/archive")

    private static func seeds(default first: UInt64, cases: Int) -> [UInt64] {
        let start = SeededMutator.firstSeed(default: first)
        return regressionSeeds + (0..<UInt64(SeededMutator.cases(default: cases))).map { start &+ $0 }
    }

    @Test func theJSONReaderEndsOnEveryMutatedJournal() throws {
        let original = Array(try Data(contentsOf: Self.archive.appendingPathComponent("journal.json")))
        let directory = try TemporaryDirectory("fuzz-json")
        defer { directory.remove() }
        var (parsed, refused) = (0, 0)
        for seed in Self.seeds(default: 1, cases: 1500) {
            var mutator = SeededMutator(seed: seed)
            let path = directory.file("journal-\(seed).json")
            try Data(mutator.mutate(original)).write(to: URL(fileURLWithPath: path))
            do throws(ArchiveError) {
                let reader = try JSONStreamReader(path: path, displayName: "journal.json")
                _ = try reader.readValue()
                try reader.finish()
                parsed += 1
            } catch {
                refused += 1
            }
            try FileManager.default.removeItem(atPath: path)
        }
        // Not vacuous: some mutations leave valid JSON (in a string), most do not.
        #expect(parsed > 0 && refused > 0, "parsed \(parsed), refused \(refused)")
    }

    @Test func theMarkdownReaderEndsOnEveryMutatedBookFile() throws {
        let books = try FileManager.default.contentsOfDirectory(atPath: Self.archive.appendingPathComponent("books").path).sorted()
        let originals = try books.map { Array(try Data(contentsOf: Self.archive.appendingPathComponent("books/\($0)"))) }
        let directory = try TemporaryDirectory("fuzz-markdown")
        defer { directory.remove() }
        var (parsed, refused) = (0, 0)
        for seed in Self.seeds(default: 10_001, cases: 1500) {
            var mutator = SeededMutator(seed: seed)
            let path = directory.file("book-\(seed).md")
            try Data(mutator.mutate(originals[Int(seed % UInt64(originals.count))])).write(to: URL(fileURLWithPath: path))
            do throws(ArchiveError) {
                _ = try BookMarkdownReader.read(path: path, displayName: "books/book.md")
                parsed += 1
            } catch {
                refused += 1
            }
            try FileManager.default.removeItem(atPath: path)
        }
        #expect(parsed > 0 && refused > 0, "parsed \(parsed), refused \(refused)")
    }
}
