import Foundation
import Testing
@testable import BookFiles
import TestSupport

/// EPUBs written by a real zip writer (the `zip` tool: `mimetype` stored first, the rest
/// deflated), read through libzip and libxml2.
@Suite struct EPUBTests {
    static let container = """
        <?xml version="1.0"?>
        <container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
          <rootfiles><rootfile full-path="PATH" media-type="application/oebps-package+xml"/></rootfiles>
        </container>
        """

    static let chapter = """
        <?xml version="1.0" encoding="utf-8"?>
        <html xmlns="http://www.w3.org/1999/xhtml"><head><title>One</title></head>
        <body><p>\(canary).</p></body></html>
        """

    /// An EPUB at `name` in `directory` with `opf` as its package document at `opfPath`;
    /// `extra` adds (or, with nil, leaves out) members.
    static func epub(_ directory: TemporaryDirectory, _ name: String, opf: String?, opfPath: String = "content.opf",
                     mimetype: String = "application/epub+zip", extra: [String: String?] = [:]) throws -> String {
        let staging = directory.file("staging-\(name)")
        var members: [String: String?] = [
            "mimetype": mimetype,
            "META-INF/container.xml": container.replacingOccurrences(of: "PATH", with: opfPath),
            opfPath: opf,
            "OEBPS/chapter1.xhtml": chapter,
        ]
        members.merge(extra) { $1 }
        for case let (member, text?) in members {
            try directory.put(text, at: "staging-\(name)/\(member)")
        }
        let target = directory.file(name)
        if members["mimetype"] != nil {
            try run("zip", ["-X", "-0", "-q", target, "mimetype"], in: staging)
        }
        let rest = members.compactMap { $0.value == nil || $0.key == "mimetype" ? nil : $0.key }.sorted()
        try run("zip", ["-X", "-9", "-q", target] + rest, in: staging)
        return target
    }

    static let epub2 = """
        <?xml version="1.0" encoding="UTF-8"?>
        <package xmlns="http://www.idpf.org/2007/opf" version="2.0" unique-identifier="BookId">
          <metadata xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:opf="http://www.idpf.org/2007/opf">
            <dc:title>Le Petit Café</dc:title>
            <dc:creator opf:role="aut" opf:file-as="Doe, Jane">Jane Doe</dc:creator>
            <dc:language>fr</dc:language>
            <dc:identifier id="BookId" opf:scheme="ISBN">978-0-306-40615-7</dc:identifier>
            <dc:identifier opf:scheme="uuid">urn:uuid:6f1a1d2e-0000-4000-8000-000000000001</dc:identifier>
            <dc:identifier opf:scheme="calibre">1234</dc:identifier>
            <dc:identifier opf:scheme="MOBI-ASIN">B000FC1PJI</dc:identifier>
            <dc:publisher>Éditions Exemple</dc:publisher>
            <dc:date opf:event="modification">2010-01-01</dc:date>
            <dc:date opf:event="publication">2007-03-01</dc:date>
            <meta name="cover" content="cover-image"/>
          </metadata>
          <manifest>
            <item id="cover-image" href="images/cover.jpg" media-type="image/jpeg"/>
            <item id="chapter1" href="OEBPS/chapter1.xhtml" media-type="application/xhtml+xml"/>
          </manifest>
          <spine><itemref idref="chapter1"/></spine>
        </package>
        """

    @Test func epub2MetadataIsRead() throws {
        let directory = try TemporaryDirectory.books()
        defer { directory.remove() }
        let path = try Self.epub(directory, "two.epub", opf: Self.epub2)
        let inspection = try BookFileInspector.inspect(path: path)
        #expect(inspection.format == .epub)
        #expect(inspection.metadata == BookFileMetadata(
            title: "Le Petit Café", creators: ["Jane Doe"], language: "fr",
            identifiers: ["isbn:9780306406157", "uuid:6f1a1d2e-0000-4000-8000-000000000001", "calibre:1234", "asin:B000FC1PJI"],
            publisher: "Éditions Exemple", date: "2007-03-01", hasCover: true))
        #expect(try !allText(inspection).contains(canary))
    }

    static let epub3 = """
        <?xml version="1.0" encoding="UTF-8"?>
        <package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="pub-id">
          <metadata xmlns:dc="http://purl.org/dc/elements/1.1/">
            <dc:identifier id="pub-id">urn:uuid:A1B2C3D4-0000-4000-8000-000000000002</dc:identifier>
            <dc:identifier id="isbn">0-306-40615-2</dc:identifier>
            <meta refines="#isbn" property="identifier-type" scheme="onix:codelist5">02</meta>
            <dc:identifier id="doi">doi:10.1000/182</dc:identifier>
            <dc:identifier id="bare">9780306406157</dc:identifier>
            <dc:identifier id="other">  internal-42  </dc:identifier>
            <dc:title id="subtitle">A Subtitle First</dc:title>
            <dc:title id="main">
                The   Main
                Title
            </dc:title>
            <meta refines="#main" property="title-type">main</meta>
            <meta refines="#subtitle" property="title-type">subtitle</meta>
            <dc:creator id="c1">Ada Lovelace</dc:creator>
            <dc:creator id="c2"> Charles Babbage </dc:creator>
            <dc:creator id="c3">   </dc:creator>
            <dc:language>en-GB</dc:language>
            <dc:date>2007-03-01T00:00:00Z</dc:date>
            <meta property="dcterms:modified">2020-01-01T00:00:00Z</meta>
          </metadata>
          <manifest>
            <item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>
            <item id="img" href="images/front.png" media-type="image/png" properties="cover-image"/>
            <item id="chapter1" href="chapter1.xhtml" media-type="application/xhtml+xml"/>
          </manifest>
          <spine><itemref idref="chapter1"/></spine>
        </package>
        """

    /// EPUB 3: the title refined as `main`, an ISBN named by an ONIX code, identifiers' schemes
    /// from their prefixes, a bare ISBN recognised, the cover by its `properties`, and the
    /// package document in a subfolder.
    @Test func epub3MetadataIsReadFromASubfolder() throws {
        let directory = try TemporaryDirectory.books()
        defer { directory.remove() }
        let path = try Self.epub(directory, "three.epub", opf: Self.epub3, opfPath: "OEBPS/content.opf")
        let inspection = try BookFileInspector.inspect(path: path)
        #expect(inspection.format == .epub)
        #expect(inspection.metadata == BookFileMetadata(
            title: "The Main Title", creators: ["Ada Lovelace", "Charles Babbage"], language: "en-GB",
            identifiers: ["uuid:A1B2C3D4-0000-4000-8000-000000000002", "isbn:0306406152", "doi:10.1000/182",
                          "isbn:9780306406157", "id:internal-42"],
            publisher: nil, date: "2007-03-01T00:00:00Z", hasCover: true))
        #expect(try !allText(inspection).contains(canary))
    }

    @Test func aMissingTitleIsNilAndTheRestIsRead() throws {
        let directory = try TemporaryDirectory.books()
        defer { directory.remove() }
        let opf = Self.epub2.replacingOccurrences(of: "<dc:title>Le Petit Café</dc:title>", with: "<dc:title>  </dc:title>")
            .replacingOccurrences(of: "<meta name=\"cover\" content=\"cover-image\"/>", with: "")
        let path = try Self.epub(directory, "untitled.epub", opf: opf)
        let metadata = try BookFileInspector.inspect(path: path).metadata
        #expect(metadata.title == nil)
        #expect(metadata.creators == ["Jane Doe"])
        #expect(metadata.identifiers.first == "isbn:9780306406157")
        #expect(metadata.hasCover == false)
    }

    @Test func theFileNameDoesNotMatter() throws {
        let directory = try TemporaryDirectory.books()
        defer { directory.remove() }
        let path = try Self.epub(directory, "book.pdf", opf: Self.epub2)
        #expect(try BookFileInspector.inspect(path: path).format == .epub)
    }

    /// A valid EPUB cut in half has lost its central directory: libzip cannot open it.
    @Test func aTruncatedEPUBIsDamaged() throws {
        let directory = try TemporaryDirectory.books()
        defer { directory.remove() }
        let path = try Self.epub(directory, "whole.epub", opf: Self.epub2)
        let bytes = try fileBytes(path)
        let cut = try directory.put(Array(bytes.prefix(bytes.count / 2)), at: "cut.epub")
        guard case .damaged(.epub, _)? = inspectionError(cut) else {
            Issue.record("a truncated EPUB is \(String(describing: inspectionError(cut)))")
            return
        }
    }

    @Test func aZipThatIsNoEPUBIsUnknown() throws {
        let directory = try TemporaryDirectory.books()
        defer { directory.remove() }
        try directory.put(canary, at: "staging/notes.txt")
        try run("zip", ["-q", directory.file("notes.zip"), "notes.txt"], in: directory.file("staging"))
        #expect(inspectionError(directory.file("notes.zip")) == .unknownFormat)
        let wrongType = try Self.epub(directory, "odt.epub", opf: Self.epub2, mimetype: "application/vnd.oasis.opendocument.text")
        #expect(inspectionError(wrongType) == .unknownFormat)
    }

    @Test func aMalformedPackageDocumentIsDamaged() throws {
        let directory = try TemporaryDirectory.books()
        defer { directory.remove() }
        let opf = Self.epub2.replacingOccurrences(of: "</metadata>", with: "<dc:title>\(canary)</metadata>")
        let path = try Self.epub(directory, "malformed.epub", opf: opf)
        let error = inspectionError(path)
        #expect(error == .damaged(.epub, reason: "its package document is not well-formed XML"))
        #expect(error.map { !String(describing: $0).contains(canary) } == true)
    }

    @Test func aMissingContainerOrPackageDocumentIsDamaged() throws {
        let directory = try TemporaryDirectory.books()
        defer { directory.remove() }
        let noContainer = try Self.epub(directory, "no-container.epub", opf: Self.epub2, extra: ["META-INF/container.xml": nil])
        #expect(inspectionError(noContainer) == .damaged(.epub, reason: "it has no META-INF/container.xml"))
        let noPackage = try Self.epub(directory, "no-package.epub", opf: nil)
        #expect(inspectionError(noPackage) == .damaged(.epub, reason: "its container.xml names no package document in the archive"))
        let badContainer = try Self.epub(directory, "bad-container.epub", opf: Self.epub2, extra: ["META-INF/container.xml": "<container"])
        #expect(inspectionError(badContainer) == .damaged(.epub, reason: "its container.xml is not well-formed XML"))
    }
}
