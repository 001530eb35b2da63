internal import CQPDF
internal import FileIO
#if canImport(Glibc)
import Glibc
#endif

/// A PDF's metadata through qpdf's C API: the trailer's document information dictionary
/// (`/Title`, `/Author`, `/CreationDate`), the catalog's `/Lang`, and the XMP metadata
/// stream (`/Root /Metadata`), whose values win where it has them (Unicode, several
/// creators, identifiers). qpdf reads the cross-reference table and then only the objects
/// asked for: never a page. A PDF names no cover image (its first page is a page), so
/// `hasCover` is false.
enum PDFReader {
    /// The most bytes of an XMP packet parsed; real ones are a few kilobytes.
    static let xmpLimit = 4 << 20
    /// The most encoded bytes of a compressed XMP stream decoded: qpdf decodes a stream whole,
    /// and deflate can expand about a thousand times, so this bounds what decoding can take.
    static let compressedXMPLimit = 64 << 10
    /// The most bytes of one string of the information dictionary kept.
    static let stringLimit = 64 << 10

    static func read(path: String) throws(BookFileError) -> BookFileMetadata {
        var pdf: qpdf_data? = qpdf_init()
        guard let document = pdf else { throw .damaged(.pdf, because: "qpdf cannot set up") }
        defer {
            // An error no check took would be printed by qpdf_cleanup as unhandled.
            _ = qpdf_get_error(document)
            qpdf_cleanup(&pdf)
        }
        // Errors are checked here after each call, never printed; nor are warnings (a
        // damaged file qpdf recovers from has many).
        qpdf_silence_errors(document)
        qpdf_set_suppress_warnings(document, QPDF_TRUE)
        // No password: a file encrypted with an empty user password (permissions only) opens.
        _ = qpdf_read(document, path, nil)
        if qpdf_has_error(document) != QPDF_FALSE {
            switch qpdf_get_error_code(document, qpdf_get_error(document)) {
            case qpdf_e_password: throw .encrypted(.pdf)
            case qpdf_e_system: throw .unreadable(errno: openErrno(path))
            default: throw .damaged(.pdf, because: "qpdf cannot read its cross-reference table or trailer")
            }
        }
        let reader = Objects(pdf: document)
        let root = qpdf_get_root(document)
        guard !reader.failed(), qpdf_oh_is_dictionary(document, root) != QPDF_FALSE, !reader.failed() else {
            throw .damaged(.pdf, because: "it has no document catalog")
        }

        var metadata = BookFileMetadata()
        let info = reader.value(qpdf_get_trailer(document), "/Info")
        if let info, qpdf_oh_is_dictionary(document, info) != QPDF_FALSE, !reader.failed() {
            metadata.title = reader.string(info, "/Title")
            metadata.creators = reader.string(info, "/Author").map { $0.split(separator: ";").map(String.init) } ?? []
            metadata.date = reader.string(info, "/CreationDate")
        }
        metadata.language = reader.string(root, "/Lang")
        if let xmp = reader.value(root, "/Metadata").flatMap(reader.xmpPacket).flatMap(XMPMetadata.read) {
            metadata.title = xmp.title ?? metadata.title
            metadata.creators = xmp.creators.isEmpty ? metadata.creators : xmp.creators
            metadata.language = xmp.language ?? metadata.language
            metadata.identifiers = xmp.identifiers
            metadata.publisher = xmp.publisher
            metadata.date = xmp.date ?? metadata.date
        }
        return metadata
    }

    /// The error number opening `path` fails with now (qpdf's own error names none).
    private static func openErrno(_ path: String) -> Int32 {
        do {
            try FileDescriptor.open(path, .readOnly).close()
            return EIO
        } catch {
            return error.errno.rawValue
        }
    }

    /// Objects of the open document. A lookup that fails (a damaged object qpdf cannot
    /// recover) is a missing value, never an error: the rest may still be read.
    private struct Objects {
        let pdf: qpdf_data

        /// The value of a dictionary's (or a stream dictionary's) key, nil when it has none.
        func value(_ dictionary: qpdf_oh, _ key: String) -> qpdf_oh? {
            let value = qpdf_oh_get_key(pdf, dictionary, key)
            guard !failed(), qpdf_oh_is_null(pdf, value) == QPDF_FALSE, !failed() else { return nil }
            return value
        }

        /// A text string's value as UTF-8: qpdf decodes UTF-16BE (with its byte order mark)
        /// and PDFDocEncoding.
        func string(_ dictionary: qpdf_oh, _ key: String) -> String? {
            guard let value = value(dictionary, key), qpdf_oh_is_string(pdf, value) != QPDF_FALSE, !failed() else { return nil }
            var text: UnsafePointer<CChar>?
            var length = 0
            guard qpdf_oh_get_value_as_utf8(pdf, value, &text, &length) != QPDF_FALSE, !failed(), let text else { return nil }
            return String(decoding: UnsafeRawBufferPointer(start: text, count: min(length, PDFReader.stringLimit)), as: UTF8.self)
        }

        /// The bytes of an XMP metadata stream, decoded, nil when there is none or it is
        /// larger than bmvault reads.
        func xmpPacket(_ stream: qpdf_oh) -> [UInt8]? {
            guard qpdf_oh_is_stream(pdf, stream) != QPDF_FALSE, !failed() else { return nil }
            let dictionary = qpdf_oh_get_dict(pdf, stream)
            guard !failed() else { return nil }
            let compressed = value(dictionary, "/Filter") != nil
            var declared: Int64 = 0
            if let length = value(dictionary, "/Length") {
                guard qpdf_oh_get_value_as_longlong(pdf, length, &declared) != QPDF_FALSE, !failed() else { return nil }
            }
            guard declared >= 0, declared <= Int64(compressed ? PDFReader.compressedXMPLimit : PDFReader.xmpLimit) else { return nil }
            var filtered: QPDF_BOOL = QPDF_FALSE
            var buffer: UnsafeMutablePointer<UInt8>?
            var length = 0
            _ = qpdf_oh_get_stream_data(pdf, stream, qpdf_dl_generalized, &filtered, &buffer, &length)
            defer { free(buffer) }
            guard !failed(), !compressed || filtered != QPDF_FALSE, let buffer, length <= PDFReader.xmpLimit else {
                return nil
            }
            return Array(UnsafeBufferPointer(start: buffer, count: length))
        }

        /// Whether the last call failed. The error is taken, so the next call starts clean and
        /// qpdf_cleanup finds none left to print as unhandled.
        func failed() -> Bool {
            guard qpdf_has_error(pdf) != QPDF_FALSE else { return false }
            _ = qpdf_get_error(pdf)
            return true
        }
    }
}
