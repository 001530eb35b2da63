import Foundation
import Testing
@testable import Importers
import TestSupport

/// Mutated files of every format an import reads (from the samples of the other tests) end
/// with a result or a thrown error: never a crash or a hang. `Scripts/fuzz` runs more cases
/// from fresh seeds.
@Suite struct ImporterFuzzTests {
    @Test func mutatedFilesOfEveryFormatNeverCrash() throws {
        var mutator = SeededMutator(seed: SeededMutator.firstSeed(default: 20))
        let kindle = try Fixtures.kindle("hadynz__first-scenario.txt")
        for _ in 0..<SeededMutator.cases(default: 200) {
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
}
