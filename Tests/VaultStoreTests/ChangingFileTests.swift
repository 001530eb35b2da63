import Foundation
import Testing
import FileIO
@testable import VaultStore
import VaultCrypto
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Issue 40, item 5: a book file cut short while `file add` reads it (a download restarted,
/// a sync tool rewriting it) is refused, stored or linked, and nothing is kept: no blob, no
/// row. Deterministic: the file is cut by the progress callback, after its first chunk.
@Suite struct ChangingFileTests {
    @Test(arguments: [false, true])
    func aFileCutShortWhileItIsAddedIsRefusedAndNothingIsKept(linkOnly: Bool) throws {
        let fixture = try makeFixture()
        defer { fixture.directory.remove() }
        let book = try newBook(clock: fixture.clock)
        try fixture.store.write { tables throws(StoreError) in try tables.books.add(book) }
        let source = fixture.directory.file("book.pdf")
        try Data(FileStoreTests.plain).write(to: URL(fileURLWithPath: source))
        var cut = false
        #expect(throws: StoreError.fileChangedWhileRead) {
            try fixture.store.files.add(at: source, format: "pdf", metadata: "{}", linkOnly: linkOnly, book: .book(book.id), progress: { _ in
                guard !cut else { return }
                cut = true
                #expect(truncate(source, 1_000) == 0)
            })
        }
        #expect(cut)
        #expect(try fixture.store.integer("SELECT count(*) FROM file") == 0)
        #expect(try fixture.store.integer("SELECT count(*) FROM book_file") == 0)
        let blobs = (try? FileManager.default.contentsOfDirectory(atPath: fixture.store.fileStore.directory)) ?? []
        #expect(blobs.isEmpty, "kept: \(blobs)")
    }
}
