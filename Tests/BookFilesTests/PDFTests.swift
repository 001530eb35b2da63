import Foundation
import Testing
@testable import BookFiles
import TestSupport

/// PDFs written by hand (``PDFFixture``), checked by `qpdf --check` where it is installed,
/// read through qpdf's C API.
@Suite struct PDFTests {
    static let info = "<< /Title \(PDFFixture.utf16("Café")) /Author (Ren\\351e Doe; John Roe) /CreationDate (D:20070301120000Z) /Producer (\(canary)) >>"

    /// qpdf's own verdict on a fixture, so a test cannot pass on a file no reader would open.
    static func check(_ path: String) throws {
        guard toolPath("qpdf") != nil else { return }
        try run("qpdf", ["--check", path])
    }

    @Test func theInformationDictionaryIsRead() throws {
        let directory = try TemporaryDirectory.books()
        defer { directory.remove() }
        let path = try directory.put(PDFFixture.book(info: Self.info, catalogExtra: "/Lang (en-US)").bytes, at: "book.pdf")
        try Self.check(path)
        let inspection = try BookFileInspector.inspect(path: path)
        #expect(inspection == BookFileInspection(format: .pdf, metadata: BookFileMetadata(
            title: "Café", creators: ["Renée Doe", "John Roe"], language: "en-US", date: "D:20070301120000Z")))
        #expect(try !allText(inspection).contains(canary))
    }

    /// The XMP packet's values win over the information dictionary's where it has them.
    @Test func xmpWinsOverTheInformationDictionary() throws {
        let directory = try TemporaryDirectory.books()
        defer { directory.remove() }
        let path = try directory.put(PDFFixture.book(info: Self.info, xmp: Array(PDFFixture.xmp.utf8)).bytes, at: "xmp.pdf")
        try Self.check(path)
        let inspection = try BookFileInspector.inspect(path: path)
        #expect(inspection.metadata == BookFileMetadata(
            title: "Café au lait — XMP", creators: ["Ada Lovelace", "Charles Babbage"], language: "fr",
            identifiers: ["uuid:6f1a1d2e-0000-4000-8000-000000000003", "isbn:9780306406157"],
            publisher: "Analytical Press", date: "2007-03-01T10:00:00Z"))
        #expect(try !allText(inspection).contains(canary))
    }

    /// An XMP packet that is not XML, or holds nothing bmvault reads, leaves the
    /// information dictionary's values.
    @Test func aBrokenOrEmptyXMPPacketIsPassedOver() throws {
        let directory = try TemporaryDirectory.books()
        defer { directory.remove() }
        let expected = BookFileMetadata(title: "Café", creators: ["Renée Doe", "John Roe"], date: "D:20070301120000Z")
        for (name, packet) in [("broken", "<x:xmpmeta"), ("empty", "<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"/>")] {
            let path = try directory.put(PDFFixture.book(info: Self.info, xmp: Array(packet.utf8)).bytes, at: "\(name).pdf")
            #expect(try BookFileInspector.inspect(path: path).metadata == expected)
        }
    }

    /// `data` deflated by python3's zlib, as `/FlateDecode` has it.
    static func deflated(_ data: [UInt8], in directory: TemporaryDirectory) throws -> [UInt8] {
        let input = try directory.put(data, at: "deflate-in")
        try run("python3", ["-c", "import sys, zlib; open(sys.argv[2], 'wb').write(zlib.compress(open(sys.argv[1], 'rb').read()))",
                            input, directory.file("deflate-out")])
        return try fileBytes(directory.file("deflate-out"))
    }

    @Test func aCompressedXMPPacketIsDecoded() throws {
        let directory = try TemporaryDirectory.books()
        defer { directory.remove() }
        let packet = try Self.deflated(Array(PDFFixture.xmp.utf8), in: directory)
        let path = try directory.put(PDFFixture.book(info: Self.info, xmp: packet, xmpFilter: "/Filter /FlateDecode").bytes, at: "flate.pdf")
        try Self.check(path)
        #expect(try BookFileInspector.inspect(path: path).metadata.creators == ["Ada Lovelace", "Charles Babbage"])
    }

    /// A packet larger than bmvault reads (over 4 MiB, or over 64 KiB compressed, which
    /// could decode to far more) is passed over; the information dictionary still counts.
    @Test func anOversizedXMPPacketIsPassedOver() throws {
        let directory = try TemporaryDirectory.books()
        defer { directory.remove() }
        let padding = (0..<100_000).map { _ in UInt8.random(in: 0...255) }
        let comment = "<!-- \(Data(padding).base64EncodedString()) -->"
        let big = PDFFixture.xmp.replacingOccurrences(of: "<x:xmpmeta", with: comment + "<x:xmpmeta")
        let compressed = try Self.deflated(Array(big.utf8), in: directory)
        #expect(compressed.count > PDFReader.compressedXMPLimit)
        let flate = try directory.put(PDFFixture.book(info: Self.info, xmp: compressed, xmpFilter: "/Filter /FlateDecode").bytes, at: "flate.pdf")
        #expect(try BookFileInspector.inspect(path: flate).metadata.creators == ["Renée Doe", "John Roe"])
        let huge = PDFFixture.xmp.replacingOccurrences(of: "<x:xmpmeta", with: String(repeating: " ", count: PDFReader.xmpLimit) + "<x:xmpmeta")
        let plain = try directory.put(PDFFixture.book(info: Self.info, xmp: Array(huge.utf8)).bytes, at: "plain.pdf")
        #expect(try BookFileInspector.inspect(path: plain).metadata.creators == ["Renée Doe", "John Roe"])
    }

    /// qpdf's own rewrite: objects in compressed object streams, a cross-reference stream.
    @Test func objectStreamsAreRead() throws {
        guard toolPath("qpdf") != nil else { return }
        let directory = try TemporaryDirectory.books()
        defer { directory.remove() }
        let plain = try directory.put(PDFFixture.book(info: Self.info, xmp: Array(PDFFixture.xmp.utf8)).bytes, at: "plain.pdf")
        try run("qpdf", ["--object-streams=generate", "--compress-streams=y", plain, directory.file("packed.pdf")])
        #expect(try BookFileInspector.inspect(path: directory.file("packed.pdf")).metadata.title == "Café au lait — XMP")
    }

    @Test func leadingBytesBeforeTheHeaderAreAllowed() throws {
        let directory = try TemporaryDirectory.books()
        defer { directory.remove() }
        let path = try directory.put(Array(repeating: 0x20, count: 500) + PDFFixture.book(info: Self.info).bytes, at: "junk.pdf")
        let inspection = try BookFileInspector.inspect(path: path)
        #expect(inspection.format == .pdf)
        #expect(inspection.metadata.title == "Café")
    }

    /// Encrypted with a user password: nothing can be read without it. Encrypted with an
    /// empty one (permissions only), it opens as any reader opens it.
    @Test func aPasswordIsEncryptedAnEmptyOneIsNot() throws {
        guard toolPath("qpdf") != nil else { return }
        let directory = try TemporaryDirectory.books()
        defer { directory.remove() }
        let plain = try directory.put(PDFFixture.book(info: Self.info).bytes, at: "plain.pdf")
        try run("qpdf", ["--encrypt", "secret", "owner", "256", "--", plain, directory.file("locked.pdf")])
        #expect(inspectionError(directory.file("locked.pdf")) == .encrypted(.pdf))
        try run("qpdf", ["--encrypt", "", "owner", "256", "--print=none", "--", plain, directory.file("restricted.pdf")])
        #expect(try BookFileInspector.inspect(path: directory.file("restricted.pdf")).metadata.title == "Café")
    }

    @Test func aTrailerWithoutACatalogIsDamaged() throws {
        let directory = try TemporaryDirectory.books()
        defer { directory.remove() }
        let path = try directory.put(PDFFixture(objects: [PDFFixture.text("42"), PDFFixture.text("(\(canary))")], root: 1, info: 2).bytes,
                                     at: "nocatalog.pdf")
        #expect(inspectionError(path) == .damaged(.pdf, reason: "it has no document catalog"))
    }

    @Test func garbageAfterTheHeaderIsDamaged() throws {
        let directory = try TemporaryDirectory.books()
        defer { directory.remove() }
        let path = try directory.put("%PDF-1.4\n\(canary)\n" + String(repeating: "garbage ", count: 100), at: "garbage.pdf")
        let error = inspectionError(path)
        guard case .damaged(.pdf, _)? = error else {
            Issue.record("garbage is \(String(describing: error))")
            return
        }
        #expect(!String(describing: error).contains(canary))
    }

    /// Bytes inserted before the second object move it and every object after it: the
    /// cross-reference table's offsets and `startxref` are all wrong. qpdf rebuilds the table
    /// by scanning the objects, and the metadata is read as from the whole file.
    @Test func aWrongCrossReferenceTableIsRebuilt() throws {
        let directory = try TemporaryDirectory.books()
        defer { directory.remove() }
        var bytes = PDFFixture.book(info: Self.info, xmp: Array(PDFFixture.xmp.utf8)).bytes
        let second = try #require((0..<bytes.count).first { bytes[$0...].starts(with: "2 0 obj".utf8) })
        bytes.insert(contentsOf: "% bytes that move every later object\n".utf8, at: second)
        let path = try directory.put(bytes, at: "moved.pdf")
        let metadata = try BookFileInspector.inspect(path: path).metadata
        #expect(metadata.title == "Café au lait — XMP")
        #expect(metadata.identifiers.contains("isbn:9780306406157"))
    }

    /// qpdf rebuilds a cross-reference table it cannot find from the objects it can, so a
    /// cut file may still be read; either way it is no crash, and no text of the file is in
    /// an error.
    @Test(arguments: [0.3, 0.5, 0.7, 0.9, 0.98])
    func aTruncatedPDFIsDamagedOrRead(_ fraction: Double) throws {
        let directory = try TemporaryDirectory.books()
        defer { directory.remove() }
        let bytes = PDFFixture.book(info: Self.info, xmp: Array(PDFFixture.xmp.utf8)).bytes
        let path = try directory.put(Array(bytes.prefix(Int(Double(bytes.count) * fraction))), at: "cut.pdf")
        switch Result(catching: { () throws(BookFileError) in try BookFileInspector.inspect(path: path) }) {
        case .success(let inspection):
            #expect(inspection.format == .pdf)
            #expect(try !allText(inspection).contains(canary))
        case .failure(.damaged(.pdf, let reason)):
            #expect(!reason.contains(canary))
        case .failure(let error):
            Issue.record("cut at \(fraction): \(error)")
        }
    }
}
