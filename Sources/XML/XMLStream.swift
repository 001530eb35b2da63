internal import CXML

/// An XML document read as it arrives, chunk by chunk (a WebDAV listing straight from
/// libcurl's write callback): libxml2's push parser hands each element's start, its text and
/// its end to `handle` as it reads them, so memory stays at libxml2's buffers and what
/// `handle` keeps, however long the document. A listing of millions of entries read whole
/// into an ``XMLElement`` tree cost gigabytes.
///
/// The same rules as ``XMLElement/parse(_:)``: nothing is fetched and no entity is expanded.
/// The SAX handler has no entity callbacks, so a declared entity is not even recorded (a
/// reference to one makes the document malformed); no DTD is loaded.
public final class XMLStream {
    /// What the parser found, in document order.
    public enum Event {
        /// An element begins: its namespace URI (nil: none) and local name. Attributes are
        /// not read (no caller needs them).
        case start(namespace: String?, name: String)
        /// Text or CDATA directly inside the innermost open element, in pieces as they
        /// arrive (one text node may come in several); the bytes, UTF-8, are valid during
        /// the call only.
        case text(UnsafeRawBufferPointer)
        /// The innermost open element ends.
        case end
    }

    /// Receives each event; false stops the reading (the handler has had enough, or refuses
    /// the rest), and nothing more is parsed or handed on.
    private let handle: (Event) -> Bool
    private var context: xmlParserCtxtPtr?
    /// Whether `handle` stopped the reading.
    public private(set) var stopped = false

    public init(_ handle: @escaping (Event) -> Bool) {
        _ = XMLElement.initialisation
        self.handle = handle
        var sax = xmlSAXHandler()
        sax.initialized = XML_SAX2_MAGIC
        sax.startElementNs = { user, name, _, namespace, _, _, _, _, _ in
            guard let user, let name else { return }
            XMLStream.from(user).deliver(.start(namespace: namespace.map { String(cString: $0) }, name: String(cString: name)))
        }
        sax.endElementNs = { user, _, _, _ in
            guard let user else { return }
            XMLStream.from(user).deliver(.end)
        }
        let text: charactersSAXFunc = { user, bytes, count in
            guard let user, let bytes else { return }
            XMLStream.from(user).deliver(.text(UnsafeRawBufferPointer(start: bytes, count: Int(count))))
        }
        sax.characters = text
        sax.cdataBlock = text
        context = xmlCreatePushParserCtxt(&sax, Unmanaged.passUnretained(self).toOpaque(), nil, 0, nil)
        if let context { xmlCtxtUseOptions(context, XMLElement.options) }
    }

    deinit {
        xmlFreeParserCtxt(context)
    }

    /// Parses the next chunk of the document. Throws ``XMLError/malformed`` as soon as what
    /// has arrived is not well-formed XML (or libxml2 could not start); after `handle`
    /// stopped the reading, returns at once.
    public func read(_ bytes: UnsafeRawBufferPointer) throws(XMLError) {
        guard let context else { throw .malformed }
        guard !stopped, let base = bytes.baseAddress else { return }
        // libxml2 takes a chunk's length as an Int32.
        var offset = 0
        while offset < bytes.count {
            let count = min(bytes.count - offset, 1 << 20)
            _ = xmlParseChunk(context, base.advanced(by: offset).assumingMemoryBound(to: CChar.self), Int32(count), 0)
            if stopped { return }
            guard context.pointee.wellFormed != 0 else { throw .malformed }
            offset += count
        }
    }

    /// The end of the document: throws ``XMLError/malformed`` unless it was whole and
    /// well-formed (a root element, closed). Nothing to check after a stop.
    public func finish() throws(XMLError) {
        guard let context else { throw .malformed }
        guard !stopped else { return }
        _ = xmlParseChunk(context, nil, 0, 1)
        guard stopped || context.pointee.wellFormed != 0 else { throw .malformed }
    }

    private static func from(_ user: UnsafeMutableRawPointer) -> XMLStream {
        Unmanaged<XMLStream>.fromOpaque(user).takeUnretainedValue()
    }

    private func deliver(_ event: Event) {
        guard !stopped else { return }
        if !handle(event) {
            stopped = true
            xmlStopParser(context)
        }
    }
}
