import Foundation
import Testing
@testable import XML

/// The push parser a listing of any length is read with: the same events whatever the
/// pieces the document arrives in, nothing fetched or expanded, malformed input refused,
/// and nothing read once the handler stops.
@Suite struct XMLStreamTests {
    /// The events of `document` read in pieces of `size` bytes, as text (`<ns name` for a
    /// start, `>` for an end, text as it is), and whether it ended well-formed.
    static func events(_ document: String, pieces size: Int, stopAfter limit: Int = .max) -> (events: [String], error: XMLError?) {
        var events: [String] = []
        let stream = XMLStream { event in
            switch event {
            case .start(let namespace, let name): events.append("<\(namespace ?? "-") \(name)")
            case .text(let bytes):
                // One text node may come in several pieces: joined here.
                let text = String(decoding: bytes, as: UTF8.self)
                if let last = events.last, last.hasPrefix("'") { events[events.count - 1] = last + text } else { events.append("'" + text) }
            case .end: events.append(">")
            }
            return events.count < limit
        }
        let bytes = Array(document.utf8)
        do throws(XMLError) {
            for start in stride(from: 0, to: bytes.count, by: size) {
                // A copy of its own: `withUnsafeBytes` cannot pass on the typed error.
                let piece = Array(bytes[start..<min(start + size, bytes.count)])
                let pointer = UnsafeMutableRawBufferPointer.allocate(byteCount: piece.count, alignment: 1)
                defer { pointer.deallocate() }
                pointer.copyBytes(from: piece)
                try stream.read(UnsafeRawBufferPointer(pointer))
            }
            try stream.finish()
        } catch {
            return (events, error)
        }
        return (events, nil)
    }

    @Test func eventsAreTheSameWhateverThePieces() {
        let document = """
            <?xml version="1.0"?>
            <D:multistatus xmlns:D="DAV:"><D:response><D:href>/dav/a%20b.op &amp; &#233;</D:href>\
            <x:odd xmlns:x="urn:x"><![CDATA[<raw>]]></x:odd><plain/></D:response></D:multistatus>
            """
        let expected = ["<DAV: multistatus", "<DAV: response", "<DAV: href", "'/dav/a%20b.op & é", ">",
                        "<urn:x odd", "'<raw>", ">", "<- plain", ">", ">", ">"]
        for size in [1, 2, 5, 64, 100_000] {
            let (events, error) = Self.events(document, pieces: size)
            #expect(events == expected && error == nil, "pieces of \(size)")
        }
    }

    @Test(arguments: ["", "not xml", "<a><b></a>", "<a>", "<?xml version=\"1.0\"?>", "<a/><b/>"])
    func malformedDocumentsAreRefused(_ text: String) {
        #expect(Self.events(text, pieces: 2).error == .malformed)
    }

    /// An external entity naming a local file is never read, an internal one never
    /// substituted: a reference to either makes the document malformed, as none is recorded.
    @Test func entitiesAreNeverReadNorExpanded() throws {
        let secret = FileManager.default.temporaryDirectory.appendingPathComponent("bmvault-xml-\(UUID().uuidString)")
        try "CANARY-FILE-CONTENT".write(to: secret, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: secret) }
        for reference in ["&file;", "&word;"] {
            let document = """
                <?xml version="1.0"?>
                <!DOCTYPE a [<!ENTITY file SYSTEM "file://\(secret.path)"><!ENTITY word "expanded">]>
                <a>\(reference)</a>
                """
            let (events, error) = Self.events(document, pieces: 16)
            #expect(!events.joined().contains("CANARY") && !events.joined().contains("expanded"), "\(reference): \(events)")
            #expect(error == .malformed, "\(reference)")
        }
    }

    /// A handler that has had enough stops the reading: nothing more is handed on, and
    /// neither what follows nor the end is checked.
    @Test func aStopEndsTheReading() {
        let (events, error) = Self.events("<a><b/><c/><d/></a", pieces: 3, stopAfter: 3)
        #expect(events == ["<- a", "<- b", ">"] && error == nil)
    }
}
