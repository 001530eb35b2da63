import XML

/// What a PDF's XMP packet says (RDF/XML): Dublin Core's title (a language alternative),
/// creators (an ordered list), language, identifiers, publisher and date; XMP's
/// identifiers and creation date; PRISM's ISBN and DOI. Only non-blank values are kept, so
/// the information dictionary's stand where the packet has nothing.
struct XMPMetadata {
    static let rdf = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
    static let dublinCore = "http://purl.org/dc/elements/1.1/"
    static let xmp = "http://ns.adobe.com/xap/1.0/"
    static let identifierQualifier = "http://ns.adobe.com/xmp/Identifier/qual/1.0/"
    static let prism = ["http://prismstandard.org/namespaces/basic/2.0/", "http://prismstandard.org/namespaces/basic/1.2/",
                        "http://prismstandard.org/namespaces/basic/3.0/"]
    static let xmlNamespace = "http://www.w3.org/XML/1998/namespace"

    var title: String?
    var creators: [String] = []
    var language: String?
    var identifiers: [String] = []
    var publisher: String?
    var date: String?

    /// nil when the packet is not well-formed XML.
    static func read(_ bytes: [UInt8]) -> XMPMetadata? {
        guard let root = try? XMLElement.parse(bytes) else { return nil }
        var descriptions: [XMLElement] = []
        collectDescriptions(root, into: &descriptions)
        var metadata = XMPMetadata()
        var created: String?
        // A packet may split its properties over several descriptions: the first value wins.
        for description in descriptions {
            let properties = Properties(description)
            metadata.title = metadata.title ?? properties.alternative(dublinCore, "title")
            if metadata.creators.isEmpty { metadata.creators = properties.values(dublinCore, "creator") }
            metadata.language = metadata.language ?? properties.values(dublinCore, "language").first
            metadata.identifiers += properties.values(dublinCore, "identifier").compactMap { BookIdentifier.make($0, scheme: nil) }
            metadata.identifiers += properties.identifiers(xmp, "Identifier")
            for namespace in prism {
                metadata.identifiers += properties.values(namespace, "isbn").compactMap { BookIdentifier.make($0, scheme: "isbn") }
                metadata.identifiers += properties.values(namespace, "doi").compactMap { BookIdentifier.make($0, scheme: "doi") }
            }
            metadata.publisher = metadata.publisher ?? properties.values(dublinCore, "publisher").first
            metadata.date = metadata.date ?? properties.values(dublinCore, "date").first
            created = created ?? properties.values(xmp, "CreateDate").first
        }
        metadata.date = metadata.date ?? created
        return metadata
    }

    /// Every `rdf:Description` under `element`, in document order.
    private static func collectDescriptions(_ element: XMLElement, into descriptions: inout [XMLElement]) {
        if element.namespace == rdf, element.name == "Description" {
            descriptions.append(element)
            return
        }
        for child in element.children { collectDescriptions(child, into: &descriptions) }
    }

    /// The properties of one `rdf:Description`: child elements, or attributes for simple ones.
    private struct Properties {
        let description: XMLElement

        init(_ description: XMLElement) {
            self.description = description
        }

        /// A property's values: the items of its `rdf:Seq`, `rdf:Bag` or `rdf:Alt`, else its
        /// text, else the attribute of that name; blank ones left out.
        func values(_ namespace: String, _ name: String) -> [String] {
            items(namespace, name).compactMap(Self.value).filter { !$0.allSatisfy(\.isWhitespace) }
                + [description.attribute(namespace, name)].compactMap { $0 }.filter { !$0.allSatisfy(\.isWhitespace) }
        }

        /// A language alternative's default (`xml:lang="x-default"`), else its first item.
        func alternative(_ namespace: String, _ name: String) -> String? {
            let items = items(namespace, name).filter { Self.value($0).map { !$0.allSatisfy(\.isWhitespace) } == true }
            let preferred = items.first { $0.attribute(XMPMetadata.xmlNamespace, "lang") == "x-default" } ?? items.first
            return preferred.flatMap(Self.value) ?? values(namespace, name).first
        }

        /// `xmp:Identifier`'s items, each with the scheme its `xmpidq:Scheme` qualifier names.
        func identifiers(_ namespace: String, _ name: String) -> [String] {
            items(namespace, name).compactMap { item in
                let scheme = item.child(XMPMetadata.identifierQualifier, "Scheme")?.text ?? item.attribute(XMPMetadata.identifierQualifier, "Scheme")
                return Self.value(item).flatMap { BookIdentifier.make($0, scheme: scheme) }
            }
        }

        /// The property's elements: its container's `rdf:li` items, or the property itself.
        private func items(_ namespace: String, _ name: String) -> [XMLElement] {
            description.children(namespace, name).flatMap { property in
                let containers = property.children.filter { $0.namespace == XMPMetadata.rdf && ["Seq", "Bag", "Alt"].contains($0.name) }
                return containers.isEmpty ? [property] : containers.flatMap { $0.children(XMPMetadata.rdf, "li") }
            }
        }

        /// An item's value: its text, else its `rdf:value` (a qualified value), else nil.
        private static func value(_ item: XMLElement) -> String? {
            if !item.text.allSatisfy(\.isWhitespace) { return item.text }
            return item.child(XMPMetadata.rdf, "value")?.text ?? item.attribute(XMPMetadata.rdf, "value")
        }
    }
}
