import Foundation
import Testing
@testable import BookFiles
import TestSupport

/// Mutated EPUB, MOBI and PDF files (the other tests' fixtures) end with metadata or a typed
/// error, never a crash or a hang of libzip, libxml2, libmobi or qpdf; no error's description
/// holds the file's text.
@Suite struct BookFileFuzzTests {
    @Test func mutatedBookFilesNeverCrash() throws {
        let directory = try TemporaryDirectory.books()
        defer { directory.remove() }
        let epub = try fileBytes(EPUBTests.epub(directory, "fixture.epub", opf: EPUBTests.epub3, opfPath: "OEBPS/content.opf"))
        let mobi = MOBIFixture.complete.bytes
        let kf8 = MOBITests.hybrid().bytes
        let pdf = PDFFixture.book(info: PDFTests.info, xmp: Array(PDFFixture.xmp.utf8)).bytes
        var mutator = SeededMutator(seed: SeededMutator.firstSeed(default: 31))
        for _ in 0..<SeededMutator.cases(default: 100) {
            for (name, bytes) in [("book.epub", epub), ("book.mobi", mobi), ("hybrid.mobi", kf8), ("book.pdf", pdf)] {
                let path = try directory.put(mutator.mutate(bytes), at: name)
                if let error = inspectionError(path) {
                    #expect(!error.description.contains(canary))
                }
            }
        }
    }
}
