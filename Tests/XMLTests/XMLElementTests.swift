import Foundation
import Testing
@testable import XML

/// What a WebDAV listing and an EPUB package document need of libxml2: namespaces, text,
/// children; malformed input refused; nothing fetched and no entity expanded.
@Suite struct XMLElementTests {
    @Test func namespacesTextAndChildrenAreRead() throws {
        let document = """
            <?xml version="1.0" encoding="utf-8"?>
            <D:multistatus xmlns:D="DAV:"><D:response><D:href>/dav/a%20b.op</D:href>
            <D:propstat><D:prop><D:resourcetype><D:collection/></D:resourcetype><x:odd xmlns:x="urn:x">é<![CDATA[<raw>]]></x:odd></D:prop></D:propstat>
            </D:response><D:response><D:href>/dav/second</D:href></D:response></D:multistatus>
            """
        let root = try XMLElement.parse(Array(document.utf8))
        #expect(root.namespace == "DAV:" && root.name == "multistatus")
        let responses = root.children("DAV:", "response")
        #expect(responses.count == 2)
        #expect(responses.map { $0.child("DAV:", "href")?.text } == ["/dav/a%20b.op", "/dav/second"])
        let prop = responses[0].child("DAV:", "propstat")?.child("DAV:", "prop")
        #expect(prop?.child("DAV:", "resourcetype")?.child("DAV:", "collection") != nil)
        #expect(prop?.child("urn:x", "odd")?.text == "é<raw>")
        #expect(prop?.child("DAV:", "odd") == nil)
    }

    /// What an EPUB's package document needs of attributes: a prefixed one is found by its
    /// namespace, an unprefixed one only with a nil namespace (the default namespace is the
    /// element's, never an attribute's), and values arrive with references resolved.
    @Test func attributesAreReadByNamespace() throws {
        let document = """
            <?xml version="1.0"?>
            <package xmlns="http://www.idpf.org/2007/opf" xmlns:opf="http://www.idpf.org/2007/opf"
                     xmlns:dc="http://purl.org/dc/elements/1.1/" version="2.0" unique-identifier="id">
              <metadata><dc:identifier id="id" opf:scheme="ISBN">978-0</dc:identifier>
                <meta name="cover" content="a &amp; b &#233;"/></metadata>
              <item xml:lang="fr" properties="cover-image nav"/>
            </package>
            """
        let opf = "http://www.idpf.org/2007/opf"
        let root = try XMLElement.parse(Array(document.utf8))
        #expect(root.attribute(nil, "version") == "2.0")
        #expect(root.attribute(opf, "version") == nil)
        #expect(root.attributes.map(\.name) == ["version", "unique-identifier"])
        let identifier = root.child(opf, "metadata")?.child("http://purl.org/dc/elements/1.1/", "identifier")
        #expect(identifier?.attribute(opf, "scheme") == "ISBN")
        #expect(identifier?.attribute(nil, "scheme") == nil)
        #expect(identifier?.attribute(nil, "id") == "id")
        #expect(identifier?.attributes == [
            XMLAttribute(namespace: nil, name: "id", value: "id"),
            XMLAttribute(namespace: opf, name: "scheme", value: "ISBN"),
        ])
        let meta = root.child(opf, "metadata")?.child(opf, "meta")
        #expect(meta?.attribute(nil, "name") == "cover")
        #expect(meta?.attribute(nil, "content") == "a & b é")
        let item = root.child(opf, "item")
        #expect(item?.attribute("http://www.w3.org/XML/1998/namespace", "lang") == "fr")
        #expect(item?.attribute(nil, "properties") == "cover-image nav")
        #expect(item?.attribute(nil, "missing") == nil)
    }

    /// An entity declared in the document is not expanded into an attribute either.
    @Test func attributeEntitiesAreNotExpanded() throws {
        let document = """
            <?xml version="1.0"?>
            <!DOCTYPE a [<!ENTITY word "expanded">]>
            <a title="x&word;y"/>
            """
        let root = try? XMLElement.parse(Array(document.utf8))
        #expect(root?.attribute(nil, "title")?.contains("expanded") != true)
    }

    @Test(arguments: ["", "not xml", "<a><b></a>", "<a>", "<?xml version=\"1.0\"?>"])
    func malformedDocumentsAreRefused(_ text: String) {
        #expect(throws: XMLError.malformed) { try XMLElement.parse(Array(text.utf8)) }
    }

    /// An external entity naming a local file is neither read nor expanded, and an
    /// internal one is not substituted into the text either.
    @Test func externalEntitiesAreNeverRead() throws {
        let secret = FileManager.default.temporaryDirectory.appendingPathComponent("bmvault-xml-\(UUID().uuidString)")
        try "CANARY-FILE-CONTENT".write(to: secret, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: secret) }
        let document = """
            <?xml version="1.0"?>
            <!DOCTYPE a [<!ENTITY file SYSTEM "file://\(secret.path)"><!ENTITY word "expanded">]>
            <a>&file;|&word;</a>
            """
        let root = try? XMLElement.parse(Array(document.utf8))
        #expect(root?.text.contains("CANARY") != true)
        #expect(root?.text.contains("expanded") != true)
    }
}
