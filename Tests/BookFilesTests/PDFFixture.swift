/// A PDF written by hand: numbered objects, a cross-reference table with each object's
/// byte offset, a trailer naming the catalog and the document information dictionary.
struct PDFFixture {
    /// The objects' bodies, object 1 first.
    var objects: [[UInt8]]
    var root: Int
    var info: Int?

    var bytes: [UInt8] {
        var file = Array("%PDF-1.7\n%".utf8) + [0xE2, 0xE3, 0xCF, 0xD3, 0x0A]
        var offsets: [Int] = []
        for (index, body) in objects.enumerated() {
            offsets.append(file.count)
            file += Array("\(index + 1) 0 obj\n".utf8) + body + Array("\nendobj\n".utf8)
        }
        let xref = file.count
        file += Array("xref\n0 \(objects.count + 1)\n0000000000 65535 f \n".utf8)
        for offset in offsets {
            let digits = String(offset)
            file += Array((String(repeating: "0", count: 10 - digits.count) + digits + " 00000 n \n").utf8)
        }
        let infoEntry = info.map { " /Info \($0) 0 R" } ?? ""
        file += Array("trailer\n<< /Size \(objects.count + 1) /Root \(root) 0 R\(infoEntry) >>\nstartxref\n\(xref)\n%%EOF\n".utf8)
        return file
    }

    static func text(_ text: String) -> [UInt8] { Array(text.utf8) }

    static func stream(_ dictionary: String, _ data: [UInt8]) -> [UInt8] {
        text("<< \(dictionary) /Length \(data.count) >>\nstream\n") + data + text("\nendstream")
    }

    /// A UTF-16BE text string with its byte order mark, in hex: how PDF writes non-Latin text.
    static func utf16(_ string: String) -> String {
        "<FEFF" + string.utf16.map { String(repeatElement("0", count: 4 - String($0, radix: 16).count)) + String($0, radix: 16).uppercased() }.joined() + ">"
    }

    /// One page that shows ``canary``, a catalog (with `catalogExtra`, and `/Metadata 7 0 R`
    /// when `xmp` is given, encoded with `xmpFilter`) and an information dictionary.
    static func book(info: String, catalogExtra: String = "", xmp: [UInt8]? = nil, xmpFilter: String = "") -> PDFFixture {
        var objects = [
            text("<< /Type /Catalog /Pages 2 0 R\(xmp == nil ? "" : " /Metadata 7 0 R") \(catalogExtra) >>"),
            text("<< /Type /Pages /Kids [3 0 R] /Count 1 >>"),
            text("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>"),
            stream("", text("BT /F1 12 Tf 72 712 Td (\(canary)) Tj ET")),
            text("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"),
            text(info),
        ]
        if let xmp { objects.append(stream("/Type /Metadata /Subtype /XML \(xmpFilter)", xmp)) }
        return PDFFixture(objects: objects, root: 1, info: 6)
    }

    static let xmp = """
        <?xpacket begin="\u{FEFF}" id="W5M0MpCehiHzreSzNTczkc9d"?>
        <x:xmpmeta xmlns:x="adobe:ns:meta/">
         <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
          <rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmp:CreateDate="2007-03-01T10:00:00Z"
              xmp:CreatorTool="\(canary)">
          </rdf:Description>
          <rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/"
              xmlns:prism="http://prismstandard.org/namespaces/basic/2.0/">
           <dc:title><rdf:Alt><rdf:li xml:lang="fr">Un café</rdf:li><rdf:li xml:lang="x-default">Café au lait — XMP</rdf:li></rdf:Alt></dc:title>
           <dc:creator><rdf:Seq><rdf:li>Ada Lovelace</rdf:li><rdf:li>Charles Babbage</rdf:li></rdf:Seq></dc:creator>
           <dc:language><rdf:Bag><rdf:li>fr</rdf:li></rdf:Bag></dc:language>
           <dc:publisher><rdf:Bag><rdf:li>Analytical Press</rdf:li></rdf:Bag></dc:publisher>
           <dc:identifier>urn:uuid:6f1a1d2e-0000-4000-8000-000000000003</dc:identifier>
           <prism:isbn>978-0-306-40615-7</prism:isbn>
           <dc:description><rdf:Alt><rdf:li xml:lang="x-default">\(canary)</rdf:li></rdf:Alt></dc:description>
          </rdf:Description>
         </rdf:RDF>
        </x:xmpmeta>
        <?xpacket end="w"?>
        """
}
