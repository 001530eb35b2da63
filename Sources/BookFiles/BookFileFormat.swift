/// The kinds of book file bmvault reads the metadata of, told apart by their first bytes.
public enum BookFileFormat: String, Sendable, CaseIterable, Codable {
    /// A zip archive whose `mimetype` member says `application/epub+zip` (EPUB 2 or 3).
    case epub
    /// A Mobipocket book (a Palm database `BOOKMOBI`), a Kindle "KF7" file or a KF7/KF8 hybrid.
    case mobi
    /// A Kindle KF8 book only (what calibre writes as `.azw3`): the same database, version 8.
    case azw3
    case pdf

    /// How a person knows the format, for messages.
    var name: String {
        switch self {
        case .epub: "EPUB"
        case .mobi: "MOBI"
        case .azw3: "AZW3"
        case .pdf: "PDF"
        }
    }
}
