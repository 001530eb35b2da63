/// What a file's first bytes say it is, never its name. A zip archive is an EPUB only once its
/// `mimetype` member says so.
enum BookFileSignature: Equatable {
    /// `PK\x03\x04`: a zip archive's first local file header.
    case zip
    /// A Palm database of type `BOOK` by creator `MOBI` (type and creator at offset 60):
    /// Mobipocket, and Kindle's KF7 and KF8 books.
    case mobipocket
    /// `%PDF-`, at the start or, as PDF readers allow, after up to 1024 bytes of anything.
    case pdf

    /// How many of the file's first bytes tell its kind.
    static let prefixLength = 1024

    /// The kind of file that begins with `prefix` (its first ``prefixLength`` bytes), or nil.
    static func detect(_ prefix: [UInt8]) -> BookFileSignature? {
        let pdfHeader = Array("%PDF-".utf8)
        if prefix.starts(with: pdfHeader) { return .pdf }
        if prefix.starts(with: [0x50, 0x4B, 0x03, 0x04]) { return .zip }
        if prefix.count >= 68, prefix[60..<68].elementsEqual("BOOKMOBI".utf8) { return .mobipocket }
        if prefix.count >= pdfHeader.count,
           (0...(prefix.count - pdfHeader.count)).contains(where: { prefix[$0..<($0 + pdfHeader.count)].elementsEqual(pdfHeader) }) {
            return .pdf
        }
        return nil
    }
}
