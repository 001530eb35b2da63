import Foundation
import XML

/// The metadata in an EPUB's package document (EPUB 2 and 3): Dublin Core elements, EPUB 3
/// refinements (`<meta refines="#id" property="…">`), and the manifest for the cover.
enum PackageDocument {
    static let opf = "http://www.idpf.org/2007/opf"
    /// Dublin Core 1.1, and 1.0, which old (OEB 1.2 style) package documents use.
    static let dublinCoreNamespaces = ["http://purl.org/dc/elements/1.1/", "http://purl.org/dc/elements/1.0/"]

    static func metadata(_ package: XMLElement) -> BookFileMetadata {
        // The package's own elements, in the OPF namespace or (sloppy writers) in none;
        // EPUB 2 may still nest Dublin Core in `<dc-metadata>`.
        let section = package.children.first { isPackageElement($0, "metadata") }
        let nested = section?.children.filter { isPackageElement($0, "dc-metadata") || isPackageElement($0, "x-metadata") } ?? []
        let items = (section?.children ?? []) + nested.flatMap(\.children)
        let refinements = Refinements(items.filter { isPackageElement($0, "meta") })
        func dublinCore(_ name: String) -> [XMLElement] {
            items.filter { $0.name == name && $0.namespace.map(dublinCoreNamespaces.contains) == true }
        }

        var metadata = BookFileMetadata()
        let titles = dublinCore("title").filter { !isBlank($0.text) }
        let main = titles.first { title in title.attribute(nil, "id").map { refinements.value(of: "title-type", for: $0) == "main" } == true }
        metadata.title = (main ?? titles.first)?.text
        metadata.creators = dublinCore("creator").map(\.text)
        metadata.language = dublinCore("language").first { !isBlank($0.text) }?.text
        metadata.identifiers = dublinCore("identifier").compactMap { identifier in
            BookIdentifier.make(identifier.text, scheme: identifier.attribute(opf, "scheme") ?? identifier.attribute(nil, "id").flatMap(refinements.identifierType))
        }
        metadata.publisher = dublinCore("publisher").first { !isBlank($0.text) }?.text
        let dates = dublinCore("date").filter { !isBlank($0.text) }
        metadata.date = (dates.first { $0.attribute(opf, "event") == "publication" } ?? dates.first)?.text

        let manifest = package.children.first { isPackageElement($0, "manifest") }?.children.filter { isPackageElement($0, "item") } ?? []
        let epub3Cover = manifest.contains { $0.attribute(nil, "properties")?.split(whereSeparator: \.isWhitespace).contains("cover-image") == true }
        let coverID = items.first { isPackageElement($0, "meta") && $0.attribute(nil, "name") == "cover" }?.attribute(nil, "content")
        // EPUB 2 names the item by its id; some writers put the image's href there instead.
        let epub2Cover = coverID.map { id in manifest.contains { $0.attribute(nil, "id") == id || $0.attribute(nil, "href") == id } } ?? false
        metadata.hasCover = epub3Cover || epub2Cover
        return metadata
    }

    private static func isPackageElement(_ element: XMLElement, _ name: String) -> Bool {
        element.name == name && (element.namespace == opf || element.namespace == nil)
    }

    private static func isBlank(_ text: String) -> Bool {
        text.allSatisfy(\.isWhitespace)
    }

    /// EPUB 3's `<meta refines="#id" property="…" scheme="…">value</meta>`, by the id refined.
    struct Refinements {
        private var byID: [String: [XMLElement]] = [:]

        init(_ metas: [XMLElement]) {
            for meta in metas {
                guard let target = meta.attribute(nil, "refines"), target.hasPrefix("#"), meta.attribute(nil, "property") != nil else { continue }
                byID[String(target.dropFirst()), default: []].append(meta)
            }
        }

        /// The value of the first refinement of `id` with this property, without white space.
        func value(of property: String, for id: String) -> String? {
            byID[id]?.first { $0.attribute(nil, "property") == property }.map { String($0.text.filter { !$0.isWhitespace }) }
        }

        /// The scheme an `identifier-type` refinement names: ONIX code list 5's codes
        /// (`02`, `15`: ISBN; `06`: DOI) or a name (`ISBN`, `uuid`); nil for another code.
        func identifierType(for id: String) -> String? {
            guard let meta = byID[id]?.first(where: { $0.attribute(nil, "property") == "identifier-type" }) else { return nil }
            let value = meta.text.trimmingCharacters(in: .whitespacesAndNewlines)
            switch value {
            case "02", "15": return "isbn"
            case "06": return "doi"
            case _ where value.isEmpty || value.allSatisfy(\.isNumber): return nil
            default: return value
            }
        }
    }
}
