import FileIO
import Foundation
import Testing
import Journal
import Sync
import SyncWire
@testable import VaultStore
import VaultCrypto
import TestSupport

/// Book files in the Store (schema v17): a file of several chunks stored encrypted and read
/// back byte for byte, the same content kept once, sealed fields carried through a rekey,
/// a tampered blob refused, orphans swept, and a purged book's files gone with it.
@Suite struct FileStoreTests {
    /// Bytes that are not all alike, over several 1 MiB chunks and a short last one.
    static let plain: [UInt8] = (0..<(FileStream.chunkSize * 3 + 4321)).map { UInt8(truncatingIfNeeded: ($0 &* 2_654_435_761) >> 13) }

    func write(_ bytes: [UInt8], to path: String) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    func readBack(_ store: Store, _ file: AttachedFile, in fixture: Fixture) throws -> [UInt8] {
        let path = fixture.directory.file("read-back-\(UUID().uuidString)")
        let output = try FileDescriptor.create(path)
        try store.files.read(file, into: output)
        try output.close()
        return try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
    }

    @Test func aStoredFileReadsBackByteForByteAndHoldsNoPlaintext() throws {
        let fixture = try makeFixture()
        defer { fixture.directory.remove() }
        let book = try newBook(clock: fixture.clock)
        try fixture.store.write { tables throws(StoreError) in try tables.books.add(book) }
        let source = fixture.directory.file("book.pdf")
        try write(Self.plain, to: source)
        var reported: [Int64] = []
        let added = try fixture.store.files.add(at: source, format: "pdf", metadata: #"{"title":"Secret Title"}"#, linkOnly: false,
                                                book: .book(book.id), progress: { reported.append($0) })
        #expect(added.contentIsNew && !added.wasAttached && !added.bookIsNew)
        #expect(added.file.content.checksum == SHA256.hex(of: Self.plain))
        #expect(added.file.content.size == Int64(Self.plain.count) && reported.last == Int64(Self.plain.count))
        let blob = fixture.store.fileStore.blobPath(added.file.content.id.rawValue)
        let stored = try [UInt8](Data(contentsOf: URL(fileURLWithPath: blob)))
        #expect(Int64(stored.count) == FileStream.sealedSize(ofPlainSize: Int64(Self.plain.count)))
        #expect(!contains(stored, Array(Self.plain[100_000..<100_064])))
        try fixture.store.database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        let database = try [UInt8](Data(contentsOf: URL(fileURLWithPath: fixture.path)))
        #expect(!contains(database, Array("Secret Title".utf8)) && !contains(database, Array(added.file.content.checksum.utf8)))
        #expect(try readBack(fixture.store, added.file, in: fixture) == Self.plain)
        #expect(try fixture.store.check().findings.filter { $0.kind != "keyslot" }.isEmpty)
    }

    @Test func theSameContentIsKeptOnceAndGoesWithItsLastBook() throws {
        let fixture = try makeFixture()
        defer { fixture.directory.remove() }
        let first = try newBook("First", clock: fixture.clock), second = try newBook("Second", clock: fixture.clock)
        try fixture.store.write { tables throws(StoreError) in try tables.books.add(first) }
        try fixture.store.write { tables throws(StoreError) in try tables.books.add(second) }
        let source = fixture.directory.file("a.epub"), copy = fixture.directory.file("b.epub")
        try write(Self.plain, to: source)
        try write(Self.plain, to: copy)
        let one = try fixture.store.files.add(at: source, format: "epub", metadata: "{}", linkOnly: false, book: .book(first.id))
        let again = try fixture.store.files.add(at: copy, format: "epub", metadata: "{}", linkOnly: false, book: .book(first.id))
        #expect(again.wasAttached && !again.contentIsNew && again.file.id == one.file.id)
        let other = try fixture.store.files.add(at: copy, format: "epub", metadata: "{}", linkOnly: true, book: .book(second.id))
        #expect(!other.contentIsNew && !other.wasAttached && other.file.content.id == one.file.content.id && other.file.content.isStored)
        #expect(VaultStore.FileSystem.entries(of: fixture.store.fileStore.directory) == [one.file.content.id.rawValue])
        try fixture.store.files.remove(one.file.id)
        #expect(fixture.store.files.holdsBlob(of: one.file.content), "the second book still has it")
        try fixture.store.files.remove(other.file.id)
        #expect(!fixture.store.files.holdsBlob(of: one.file.content))
        #expect(try fixture.store.read { tables throws(StoreError) in try tables.bookFiles.attached() }.isEmpty)
    }

    @Test func sealedFieldsFollowARekeyAndATamperedBlobIsRefused() throws {
        let fixture = try makeFixture()
        defer { fixture.directory.remove() }
        let book = try newBook(clock: fixture.clock)
        try fixture.store.write { tables throws(StoreError) in try tables.books.add(book) }
        let source = fixture.directory.file("book.mobi")
        try write(Self.plain, to: source)
        let added = try fixture.store.files.add(at: source, format: "mobi", metadata: #"{"title":"T"}"#, linkOnly: false, book: .book(book.id))
        let locator = try Locator("loc 1234")
        try fixture.store.write { tables throws(StoreError) in try tables.bookFiles.setLocator(added.file.id, to: locator) }
        let newKey = try VaultKey.generate()
        try fixture.store.rekey.begin(from: fixture.key, to: newKey, keyslots: try placeholderKeyslots())
        try fixture.store.rekey.resume(from: fixture.key, to: newKey) { _ in }
        let store = try Store.open(at: fixture.path, clock: fixture.clock, generatorVersion: testGeneratorVersion)
        try store.attach(newKey)
        let file = try store.read { tables throws(StoreError) in try tables.bookFiles.attached(added.file.id) }
        #expect(file.locator == "loc 1234" && file.content.metadata == #"{"title":"T"}"# && file.content.checksum == SHA256.hex(of: Self.plain))
        #expect(try readBack(store, file, in: fixture) == Self.plain, "the file's own key was re-sealed, the blob is untouched")
        #expect(try store.check().findings.filter { $0.kind != "keyslot" }.isEmpty)
        // One bit flipped in the second chunk: refused, and the copy is not what was added.
        let blob = store.fileStore.blobPath(file.content.id.rawValue)
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: blob)))
        bytes[FileStream.headerCount + FileStream.sealedChunkSize + 10] ^= 0x20
        try write(bytes, to: blob)
        #expect(throws: StoreError.crypto(.authenticationFailed)) { try store.files.read(file, into: nil) }
        // Cut after a whole chunk: the end is missing.
        try write(Array(bytes.prefix(FileStream.headerCount + FileStream.sealedChunkSize)), to: blob)
        #expect(throws: StoreError.crypto(.malformed)) { try store.files.read(file, into: nil) }
    }

    @Test func aLinkedFileThatChangedIsNotReadAsTheOneAdded() throws {
        let fixture = try makeFixture()
        defer { fixture.directory.remove() }
        let book = try newBook(clock: fixture.clock)
        try fixture.store.write { tables throws(StoreError) in try tables.books.add(book) }
        let source = fixture.directory.file("linked.pdf")
        try write(Array(Self.plain.prefix(5000)), to: source)
        let added = try fixture.store.files.add(at: source, format: "pdf", metadata: "{}", linkOnly: true, book: .book(book.id))
        #expect(!added.file.content.isStored && added.file.content.link?.path == source)
        #expect(VaultStore.FileSystem.entries(of: fixture.store.fileStore.directory).isEmpty, "nothing is copied")
        try fixture.store.files.read(added.file, into: nil)
        try write(Array(Self.plain.prefix(5001)), to: source)
        #expect(throws: StoreError.fileChanged(id: added.file.id.rawValue, stored: false)) { try fixture.store.files.read(added.file, into: nil) }
    }

    @Test func orphansAreSweptAndAPurgedBooksFilesGoWithIt() throws {
        let fixture = try makeFixture()
        defer { fixture.directory.remove() }
        let book = try newBook(clock: fixture.clock)
        try fixture.store.write { tables throws(StoreError) in try tables.books.add(book) }
        let source = fixture.directory.file("book.epub")
        try write(Self.plain, to: source)
        let added = try fixture.store.files.add(at: source, format: "epub", metadata: "{}", linkOnly: false, book: .book(book.id))
        // What a killed `file add` leaves: a blob no row names, and an unfinished one.
        let directory = fixture.store.fileStore.directory
        try write([1, 2, 3], to: directory + "/01a24a02-74f9-754a-aaa9-03959ca1c034")
        try write([4, 5, 6], to: directory + "/.incoming-01a24a02-74f9-754a-aaa9-03959ca1c035")
        try fixture.store.files.sweep()
        #expect(VaultStore.FileSystem.entries(of: directory) == [added.file.content.id.rawValue])
        try fixture.store.write { tables throws(StoreError) in try tables.books.delete(book.id) }
        #expect(try fixture.store.read { tables throws(StoreError) in try tables.bookFiles.attached() }.count == 1, "a deleted book keeps its files until it is purged")
        let clock = try HybridTimestamp(parsing: try fixture.store.rawRows("SELECT hlc FROM book")[0][0])
        #expect(try fixture.store.purge.tombstones([Tombstone(kind: .book, id: book.id, clock: clock,
                                                             deletedAt: try fixture.store.read { tables throws(StoreError) in try tables.books.book(book.id) }.deletedAt ?? fixture.clock.now(),
                                                             operations: [])]) == 1)
        // The rows stay, removed as of the deletion and emptied, as every tombstone does.
        #expect(try fixture.store.integer("SELECT count(*) FROM book_file WHERE removed_at IS NOT NULL AND locator IS NULL") == 1)
        #expect(try fixture.store.integer("SELECT count(*) FROM file WHERE length(metadata) = 0 AND file_key IS NULL") == 1)
        #expect(try fixture.store.read { tables throws(StoreError) in try tables.bookFiles.attached() }.isEmpty)
        #expect(VaultStore.FileSystem.entries(of: directory).isEmpty)
    }
}
