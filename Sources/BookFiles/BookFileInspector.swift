/// A book file told by its format, and what it says about the book.
public struct BookFileInspection: Sendable, Equatable {
    public let format: BookFileFormat
    public let metadata: BookFileMetadata

    public init(format: BookFileFormat, metadata: BookFileMetadata) {
        self.format = format
        self.metadata = metadata
    }
}

/// Reads a book file's metadata with the format's own parser: libzip and libxml2 for an EPUB,
/// libmobi for MOBI and AZW3, qpdf (and libxml2 for its XMP) for a PDF. Only the parts that
/// hold metadata are read, never a chapter or a page, each with a bound on its size; what
/// grows with the file is only its index (a zip's central directory, a PDF's
/// cross-reference table), as in any reader of the format.
public enum BookFileInspector {
    /// Tells the format from the file's first bytes (never from its name) and reads its metadata.
    public static func inspect(path: String) throws(BookFileError) -> BookFileInspection {
        let file = try BookFileHandle(path: path)
        let prefix = try file.read(at: 0, count: BookFileSignature.prefixLength)
        switch BookFileSignature.detect(prefix) {
        case .zip:
            guard let metadata = try EPUBReader.read(path: path) else { throw .unknownFormat }
            return BookFileInspection(format: .epub, metadata: metadata.cleaned())
        case .mobipocket:
            let inspection = try MOBIReader.read(file)
            return BookFileInspection(format: inspection.format, metadata: inspection.metadata.cleaned())
        case .pdf:
            return BookFileInspection(format: .pdf, metadata: try PDFReader.read(path: path).cleaned())
        case nil:
            throw .unknownFormat
        }
    }
}
