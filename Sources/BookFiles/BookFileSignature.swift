/// What a file's first bytes say it is, never its name. A zip archive is an EPUB only once its
/// `mimetype` member says so.
enum BookFileSignature: Equatable {
    /// `PK\x03\x04`: a zip archive's first local file header.
    case zip

    /// How many of the file's first bytes tell its kind.
    static let prefixLength = 1024

    /// The kind of file that begins with `prefix` (its first ``prefixLength`` bytes), or nil.
    static func detect(_ prefix: [UInt8]) -> BookFileSignature? {
        if prefix.starts(with: [0x50, 0x4B, 0x03, 0x04]) { return .zip }
        return nil
    }
}
