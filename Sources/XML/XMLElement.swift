internal import CXML

/// An element of an XML document, read by libxml2: its namespace and local name, its
/// attributes, the text directly inside it, and its child elements. Small documents only (an
/// EPUB's package document, a file's ETag on a WebDAV server): the whole tree is held in
/// memory. A document of any length (a folder's listing) is read with ``XMLStream``.
public struct XMLElement: Sendable, Equatable {
    /// The namespace URI (`DAV:`), nil when the element has none.
    public let namespace: String?
    public let name: String
    /// The element's attributes in document order; namespace declarations (`xmlns:x`) are none.
    public let attributes: [XMLAttribute]
    /// The element's own text and CDATA, concatenated (not its children's).
    public let text: String
    public let children: [XMLElement]

    /// Parses `bytes` as an XML document and returns its root element. Nothing is fetched
    /// (no network, no external DTD or entity) and entities are not expanded.
    public static func parse(_ bytes: [UInt8]) throws(XMLError) -> XMLElement {
        _ = initialisation
        guard bytes.count <= Int(Int32.max) else { throw .malformed }
        let document = bytes.withUnsafeBufferPointer { buffer in
            buffer.baseAddress.map { base in
                base.withMemoryRebound(to: CChar.self, capacity: buffer.count) { xmlReadMemory($0, Int32(buffer.count), nil, nil, options) }
            } ?? nil
        }
        guard let document else { throw .malformed }
        defer { xmlFreeDoc(document) }
        guard let root = xmlDocGetRootElement(document) else { throw .malformed }
        return XMLElement(root)
    }

    /// The first child with this namespace and name.
    public func child(_ namespace: String?, _ name: String) -> XMLElement? {
        children.first { $0.namespace == namespace && $0.name == name }
    }

    /// Every child with this namespace and name.
    public func children(_ namespace: String?, _ name: String) -> [XMLElement] {
        children.filter { $0.namespace == namespace && $0.name == name }
    }

    /// The value of the attribute with this namespace and name. An unprefixed attribute is in
    /// no namespace (nil), whatever the element's default namespace: `<item id="x">` has
    /// `attribute(nil, "id")`, `<dc:identifier opf:scheme="ISBN">` has
    /// `attribute("http://www.idpf.org/2007/opf", "scheme")`.
    public func attribute(_ namespace: String?, _ name: String) -> String? {
        attributes.first { $0.namespace == namespace && $0.name == name }?.value
    }

    private init(_ node: xmlNodePtr) {
        name = String(cString: node.pointee.name)
        namespace = node.pointee.ns.flatMap { $0.pointee.href }.map { String(cString: $0) }
        var attributes: [XMLAttribute] = []
        var property = node.pointee.properties
        while let current = property {
            attributes.append(XMLAttribute(current))
            property = current.pointee.next
        }
        self.attributes = attributes
        var text = ""
        var children: [XMLElement] = []
        var child = node.pointee.children
        while let current = child {
            switch current.pointee.type {
            case XML_ELEMENT_NODE: children.append(XMLElement(current))
            case XML_TEXT_NODE, XML_CDATA_SECTION_NODE: if let content = current.pointee.content { text += String(cString: content) }
            default: break
            }
            child = current.pointee.next
        }
        self.text = text
        self.children = children
    }

    /// libxml2's global state, set up once per process before the first parse.
    static let initialisation: Void = { xmlInitParser() }()

    /// How every document is read: no network (`NONET`), no entity expansion (`NOENT` is not
    /// set), and libxml2's own messages off (they may quote the document).
    static let options = Int32(XML_PARSE_NONET.rawValue | XML_PARSE_NOERROR.rawValue | XML_PARSE_NOWARNING.rawValue)
}

/// An attribute of an element: its namespace, local name and value.
public struct XMLAttribute: Sendable, Equatable {
    /// The namespace URI, nil for an unprefixed attribute.
    public let namespace: String?
    public let name: String
    /// The value as the parser normalised it: character and predefined entity references
    /// replaced; a reference to any other entity left out (entities are never expanded).
    public let value: String

    public init(namespace: String?, name: String, value: String) {
        self.namespace = namespace
        self.name = name
        self.value = value
    }

    fileprivate init(_ attribute: xmlAttrPtr) {
        name = String(cString: attribute.pointee.name)
        namespace = attribute.pointee.ns.flatMap { $0.pointee.href }.map { String(cString: $0) }
        var value = ""
        var child = attribute.pointee.children
        while let current = child {
            if current.pointee.type == XML_TEXT_NODE, let content = current.pointee.content { value += String(cString: content) }
            child = current.pointee.next
        }
        self.value = value
    }
}

/// Why a document could not be read.
public enum XMLError: Error, Equatable, Sendable {
    /// Not well-formed XML (or empty, or larger than libxml2 reads).
    case malformed
}
