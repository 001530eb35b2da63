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
