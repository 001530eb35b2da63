import Foundation
import Testing
@testable import BookFiles
import TestSupport

/// Books of a gigabyte (sparse files: no disk is filled) are read without reading their
/// text or pages: the process's peak memory grows by far less than the file's size.
@Suite struct LargeFileTests {
    static let size = 1 << 30

    /// Writes `head`, a hole of `hole` bytes (zeros nobody wrote), then `tail`.
    static func writeSparse(_ path: String, head: [UInt8], hole: Int, tail: [UInt8]) throws {
        #expect(FileManager.default.createFile(atPath: path, contents: Data(head)))
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        try handle.seek(toOffset: UInt64(head.count + hole))
        try handle.write(contentsOf: tail)
    }

    /// The process's peak resident memory so far, in bytes.
    static func peakMemory() -> Int {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return usage.ru_maxrss * 1024
    }

    /// A MOBI whose text record is a gigabyte: libmobi would read it all; it is given record 0.
    @Test func aGigabyteMOBI() throws {
        let directory = try TemporaryDirectory.books()
        defer { directory.remove() }
        var fixture = MOBIFixture.complete
        fixture.text = ""
        let path = directory.file("large.mobi")
        try Self.writeSparse(path, head: fixture.bytes, hole: Self.size, tail: [0])
        let before = Self.peakMemory()
        let inspection = try BookFileInspector.inspect(path: path)
        #expect(inspection.metadata.title == "The Updated Title & More")
        #expect(Self.peakMemory() - before < 256 << 20)
    }

    /// A PDF whose one page's content stream is a gigabyte: qpdf reads the objects asked for.
    @Test func aGigabytePDF() throws {
        let directory = try TemporaryDirectory.books()
        defer { directory.remove() }
        var objects = PDFFixture.book(info: PDFTests.info).objects
        objects[2] = PDFFixture.text("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 7 0 R >>")
        var head = PDFFixture(objects: objects, root: 1, info: 6).bytes
        head.removeSubrange(head.lastRange(of: Array("xref".utf8))!.lowerBound...)
        var offsets: [Int] = []
        var position = 0
        for number in 1...6 {
            position = head[position...].firstRange(of: Array("\(number) 0 obj".utf8))!.lowerBound
            offsets.append(position)
        }
        offsets.append(head.count)
        head += Array("7 0 obj\n<< /Length \(Self.size) >>\nstream\n".utf8)
        var tail = Array("\nendstream\nendobj\n".utf8)
        let xref = head.count + Self.size + tail.count
        tail += Array("xref\n0 8\n0000000000 65535 f \n".utf8)
        for offset in offsets { tail += Array((String(repeating: "0", count: 10 - String(offset).count) + "\(offset) 00000 n \n").utf8) }
        tail += Array("trailer\n<< /Size 8 /Root 1 0 R /Info 6 0 R >>\nstartxref\n\(xref)\n%%EOF\n".utf8)
        let path = directory.file("large.pdf")
        try Self.writeSparse(path, head: head, hole: Self.size, tail: tail)
        let before = Self.peakMemory()
        let inspection = try BookFileInspector.inspect(path: path)
        #expect(inspection.metadata.title == "Café")
        #expect(Self.peakMemory() - before < 256 << 20)
    }
}
