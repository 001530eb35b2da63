import Foundation
import Testing

/// Book files for the end-to-end tests of `bmvault file`, made as a reader's files are:
/// EPUBs by the `zip` tool, PDFs written by hand (the layout of Tests/BookFilesTests'
/// builders and of Scripts/bench-run.py's `large_pdf`, copied here: this target cannot
/// import that one).
///
/// Every member of an EPUB is *stored*, not deflated, so the chapter's text lies in the
/// file's bytes as it is: a copy kept in the clear anywhere would show it.
enum BookFileSamples {
    static let container = """
        <?xml version="1.0"?>
        <container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
          <rootfiles><rootfile full-path="content.opf" media-type="application/oebps-package+xml"/></rootfiles>
        </container>
        """

    /// An EPUB 3 package document naming `title`, `author` and `identifier` (a `urn:uuid:`,
    /// or an ISBN: a different edition of the same book).
    static func opf(title: String, author: String, identifier: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="id">
          <metadata xmlns:dc="http://purl.org/dc/elements/1.1/">
            <dc:identifier id="id">\(identifier)</dc:identifier>
            <dc:title>\(title)</dc:title>
            <dc:creator>\(author)</dc:creator>
            <dc:language>en</dc:language>
          </metadata>
          <manifest><item id="c1" href="OEBPS/chapter1.xhtml" media-type="application/xhtml+xml"/></manifest>
          <spine><itemref idref="c1"/></spine>
        </package>
        """
    }

    static func chapter(_ text: String) -> String {
        """
        <?xml version="1.0" encoding="utf-8"?>
        <html xmlns="http://www.w3.org/1999/xhtml"><head><title>One</title></head>
        <body><p>\(text)</p></body></html>
        """
    }

    /// Writes an EPUB to `target` (which must not exist): `mimetype` first, then the
    /// container, the package document and one chapter holding `text`, all stored.
    @discardableResult
    static func epub(at target: URL, title: String, author: String = "Mira Ostrova",
                     identifier: String = "urn:uuid:\(UUID().uuidString.lowercased())", text: String) throws -> Data {
        let staging = target.deletingLastPathComponent().appendingPathComponent(".staging-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: staging) }
        let members = [
            "mimetype": "application/epub+zip",
            "META-INF/container.xml": container,
            "content.opf": opf(title: title, author: author, identifier: identifier),
            "OEBPS/chapter1.xhtml": chapter(text),
        ]
        for (member, content) in members {
            let file = staging.appendingPathComponent(member)
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(content.utf8).write(to: file)
        }
        let zipped = try Binary.run("/bin/sh", ["-c", #"cd "$1" && zip -X -0 -q "$2" mimetype && zip -X -0 -q -r "$2" META-INF content.opf OEBPS"#,
                                                "sh", staging.path, target.path],
                                    environment: ProcessInfo.processInfo.environment)
        try #require(zipped.status == 0, "zip failed (Scripts/install installs it): \(zipped)")
        return try Data(contentsOf: target)
    }

    /// `offset` in ten digits, as a cross-reference table writes it.
    static func padded(_ offset: Int) -> String {
        let digits = String(offset)
        return String(repeating: "0", count: max(0, 10 - digits.count)) + digits
    }

    /// A small PDF of one page: a catalog, a page tree, an information dictionary.
    static func pdf(title: String, author: String) -> Data {
        let objects = ["<< /Type /Catalog /Pages 2 0 R >>",
                       "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
                       "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>",
                       "<< /Title (\(title)) /Author (\(author)) >>"]
        var file = Data("%PDF-1.7\n%".utf8) + Data([0xE2, 0xE3, 0xCF, 0xD3, 0x0A])
        var offsets: [Int] = []
        for (index, body) in objects.enumerated() {
            offsets.append(file.count)
            file += Data("\(index + 1) 0 obj\n\(body)\nendobj\n".utf8)
        }
        let xref = file.count
        file += Data("xref\n0 \(objects.count + 1)\n0000000000 65535 f \n".utf8)
        for offset in offsets { file += Data((padded(offset) + " 00000 n \n").utf8) }
        file += Data("trailer\n<< /Size \(objects.count + 1) /Root 1 0 R /Info 4 0 R >>\nstartxref\n\(xref)\n%%EOF\n".utf8)
        return file
    }

    /// A valid PDF of about `size` bytes at `target`: an Info dictionary, one page, and an
    /// image stream of random (incompressible) bytes making up the size, as a scanned
    /// book's images do. Written 8 MiB at a time.
    static func largePDF(at target: URL, size: Int, title: String, author: String) throws {
        guard FileManager.default.createFile(atPath: target.path, contents: nil),
              let out = FileHandle(forWritingAtPath: target.path),
              let random = FileHandle(forReadingAtPath: "/dev/urandom") else {
            throw CocoaError(.fileWriteUnknown)
        }
        defer { try? out.close(); try? random.close() }
        let objects = ["<< /Type /Catalog /Pages 2 0 R >>",
                       "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
                       "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /XObject << /Im1 5 0 R >> >> >>",
                       "<< /Title (\(title)) /Author (\(author)) >>"]
        var written = 0
        func write(_ data: Data) throws {
            try out.write(contentsOf: data)
            written += data.count
        }
        try write(Data("%PDF-1.7\n%".utf8) + Data([0xE2, 0xE3, 0xCF, 0xD3, 0x0A]))
        var offsets: [Int] = []
        for (index, body) in objects.enumerated() {
            offsets.append(written)
            try write(Data("\(index + 1) 0 obj\n\(body)\nendobj\n".utf8))
        }
        let image = size - written - 400
        offsets.append(written)
        try write(Data("5 0 obj\n<< /Type /XObject /Subtype /Image /Width 1 /Height 1 /ColorSpace /DeviceGray /BitsPerComponent 8 /Length \(image) >>\nstream\n".utf8))
        var left = image
        while left > 0 {
            let chunk = try #require(try random.read(upToCount: min(left, 8 << 20)))
            try write(chunk)
            left -= chunk.count
        }
        try write(Data("\nendstream\nendobj\n".utf8))
        let xref = written
        var table = "xref\n0 6\n0000000000 65535 f \n"
        for offset in offsets { table += padded(offset) + " 00000 n \n" }
        try write(Data((table + "trailer\n<< /Size 6 /Root 1 0 R /Info 4 0 R >>\nstartxref\n\(xref)\n%%EOF\n").utf8))
    }
}
