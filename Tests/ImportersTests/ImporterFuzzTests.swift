import Foundation
import Testing
@testable import Importers
import TestSupport

/// Mutated files of every format an import reads (from the samples of the other tests and
/// the real files in shared/fixtures) end with a result or a thrown error: never a crash or
/// a hang; so does telling their format apart. `Scripts/fuzz` runs more cases from fresh seeds.
@Suite struct ImporterFuzzTests {
    @Test func mutatedFilesOfEveryFormatNeverCrash() throws {
        var mutator = SeededMutator(seed: SeededMutator.firstSeed(default: 20))
        let kindle = try Fixtures.kindle("hadynz__first-scenario.txt")
        let goodreads = try Fixtures.goodreads()
        let sidecars = try ["noted__the_prophet.sdr__metadata.epub.lua", "harmtemolder__alice.sdr__metadata.epub.lua"].map(Fixtures.koreader)
        for index in 0..<SeededMutator.cases(default: 200) {
            let csv = mutator.mutate(goodreads)
            _ = ImportFormat.detect(prefix: Array(csv.prefix(4096)))
            _ = try? GoodreadsExport.read(csv)
            let sidecar = mutator.mutate(sidecars[index % sidecars.count])
            _ = ImportFormat.detect(prefix: Array(sidecar.prefix(4096)))
            _ = try? KOReaderSidecar.read(sidecar)
            _ = try? CalibreHighlights.read(mutator.mutate(Array(OtherFormatsTests.calibre.utf8)))
            _ = try? ReadwiseExport.read(mutator.mutate(Array(OtherFormatsTests.readwise.utf8)))
            _ = try? JrnlExport.read(mutator.mutate(Array(OtherFormatsTests.jrnl.utf8)))
            _ = try? KOReaderExport.read(mutator.mutate(Array(OtherFormatsTests.koreaderExport.utf8)))
            if let clippings = try? KindleClippingsParser.parse(mutator.mutate(kindle)) {
                #expect(KindleImportPlan(clippings).totals.clippings == clippings.count)
                for clipping in clippings { _ = clipping.rawDate.flatMap(KindleDate.timestamp) }
            }
            let date = mutator.mutate(Array("添加于 2023年2月9日星期四 下午6:35:21 | Added on Monday, 11 May 2020 01:09:56 PM".utf8))
            _ = KindleDate.timestamp(String(decoding: date, as: UTF8.self))
        }
    }

    /// KOReader's statistics and a Kobo's database, mutated and written to a file (they are
    /// read by path, through SQLite): a result or an ``ImportError``, never a crash.
    @Test func mutatedDatabasesNeverCrash() throws {
        var mutator = SeededMutator(seed: SeededMutator.firstSeed(default: 43))
        let statistics = Array(try Data(contentsOf: URL(fileURLWithPath: ReadingDeviceDatabaseTests.statistics)))
        let kobo = Array(try Data(contentsOf: URL(fileURLWithPath: ReadingDeviceDatabaseTests.kobo)))
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("bmv-fuzz-\(UUID().uuidString).sqlite")
        defer { try? FileManager.default.removeItem(at: file) }
        for index in 0..<SeededMutator.cases(default: 40) {
            let bytes = mutator.mutate(index % 4 == 3 ? kobo : statistics)
            try Data(bytes).write(to: file)
            _ = ImportFormat.detect(prefix: Array(bytes.prefix(4096)), at: file.path)
            _ = try? KOReaderStatistics.read(at: file.path)
            _ = try? KoboDatabase.read(at: file.path)
        }
    }
}
