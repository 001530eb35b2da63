import Foundation
import Testing
@testable import BookFiles
import TestSupport

/// Files that are no book, or cannot be read: each a typed error whose description holds
/// nothing of the file.
@Suite struct BookFileErrorTests {
    /// chmod 000 stops anyone but root; tests often run as root, where it reads anyway, so a
    /// missing path stands in for it there.
    @Test func anUnreadableFileIsUnreadable() throws {
        let directory = try TemporaryDirectory.books()
        defer { directory.remove() }
        if getuid() == 0 {
            #expect(inspectionError(directory.file("missing.epub")) == .unreadable(errno: ENOENT))
        } else {
            let path = try directory.put(canary, at: "locked.epub")
            #expect(chmod(path, 0) == 0)
            defer { chmod(path, 0o600) }
            #expect(inspectionError(path) == .unreadable(errno: EACCES))
        }
        #expect(inspectionError(directory.file("missing.pdf")) == .unreadable(errno: ENOENT))
        #expect(inspectionError(directory.path) == .unreadable(errno: EISDIR))
        #expect(inspectionError(directory.file("missing/inside.pdf")) == .unreadable(errno: ENOENT))
    }

    @Test func aFIFOIsNoBookFile() throws {
        let directory = try TemporaryDirectory.books()
        defer { directory.remove() }
        #expect(mkfifo(directory.file("pipe"), 0o600) == 0)
        #expect(inspectionError(directory.file("pipe")) == .unreadable(errno: EINVAL))
    }

    @Test(arguments: ["", canary, "PK", "%PD", "BOOKMOBI", String(repeating: " ", count: 2048) + "%PDF-1.4"])
    func otherFilesAreUnknown(_ text: String) throws {
        let directory = try TemporaryDirectory.books()
        defer { directory.remove() }
        let path = try directory.put(text, at: "book.epub")
        #expect(inspectionError(path) == .unknownFormat)
    }

    @Test func descriptionsNameNoContent() {
        let errors: [BookFileError] = [
            .unreadable(errno: EACCES), .unknownFormat, .damaged(.pdf, reason: "its cross-reference table is broken"), .encrypted(.mobi),
        ]
        #expect(errors.map(\.description) == [
            "the book file cannot be read: Permission denied",
            "not a book file bmvault reads (an EPUB, MOBI, AZW3 or PDF)",
            "a damaged PDF file: its cross-reference table is broken",
            "an encrypted MOBI file (DRM or a password): its metadata cannot be read",
        ])
    }
}
