/// The kinds of file `bmvault import` is given, told apart by content (not by name).
public enum ImportFormat: String, Sendable {
    /// A bmvault archive, or its journal.json.
    case bmvault
    /// A Kindle's `My Clippings.txt`.
    case kindle
    /// A KOReader sidecar, `<book>.sdr/metadata.<ext>.lua`.
    case koreader
    /// A Goodreads library export (`goodreads_library_export.csv`).
    case goodreads
    /// calibre's highlights export (its viewer's, or its library's annotation collection).
    case calibre
    /// A Readwise CSV export.
    case readwise
    /// A jrnl journal exported with `jrnl --export json`.
    case jrnl
    /// KOReader's statistics database (`settings/statistics.sqlite3`): reading sessions.
    case koreaderStatistics = "koreader-stats"
    /// A Kobo's database (`.kobo/KoboReader.sqlite`): books, highlights and notes.
    case kobo
    /// A reading device's drive (or a copy of it): every file above it holds, in one import.
    /// A folder, never a file: told by where the programs keep their files, not by content.
    case device

    /// The format of the file at `path` that begins with `prefix` (its first bytes), or nil.
    /// A database is told by its tables.
    public static func detect(prefix: [UInt8], at path: String) -> ImportFormat? {
        guard prefix.starts(with: ForeignDatabase.header) else { return detect(prefix: prefix) }
        if KOReaderStatistics.isStatistics(at: path) { return .koreaderStatistics }
        if KoboDatabase.isKoboDatabase(at: path) { return .kobo }
        return nil
    }

    /// The format of a text file that begins with `prefix` (its first bytes), or nil.
    public static func detect(prefix: [UInt8]) -> ImportFormat? {
        let text = String(decoding: prefix, as: UTF8.self)
        var start = Substring(text)
        while let first = start.first, first == "\u{FEFF}" || first.isWhitespace { start = start.dropFirst() }
        if start.hasPrefix("{"), start.containsBytes("\"archive\"") || start.containsBytes("bmvault-archive") { return .bmvault }
        // calibre and jrnl: JSON objects with their own members (calibre's type names itself).
        if start.hasPrefix("{"), start.containsBytes("\"calibre_highlights\"") || start.containsBytes("\"calibre_annotation_collection\"") {
            return .calibre
        }
        if KOReaderExport.isExport(prefix) { return .koreader }
        if start.hasPrefix("{"), start.containsBytes("\"entries\""), start.containsBytes("\"body\""), start.containsBytes("\"date\"") {
            return .jrnl
        }
        // Goodreads and Readwise: their header rows.
        if start.hasPrefix("Book Id,Title,Author,") { return .goodreads }
        if start.hasPrefix("Highlight,Book Title,Book Author") { return .readwise }
        // KOReader: comment lines, then a table literal with its own keys.
        let code = start.split(whereSeparator: \.isNewline).drop { $0.hasPrefix("--") }.first
        if let code, code.hasPrefix("return {"),
           ["[\"doc_props\"]", "[\"annotations\"]", "[\"highlight\"]", "[\"bookmarks\"]", "[\"partial_md5_checksum\"]"].contains(where: start.contains) {
            return .koreader
        }
        // Kindle: past any blank or separator lines, a title line, then a `- ` metadata line,
        // and a separator somewhere. Split on any line break (CR LF is one Character, which a
        // split on "\n" would not see).
        let lines = start.split(maxSplits: 16, omittingEmptySubsequences: false, whereSeparator: \.isNewline)
            .map { $0.drop { $0 == "\u{FEFF}" } }
            .drop { $0.allSatisfy(\.isWhitespace) || $0.trimmingPrefix(KindleClippingsParser.separator).allSatisfy(\.isWhitespace) }
        if lines.count >= 2, lines[lines.startIndex + 1].hasPrefix("- "), text.contains(KindleClippingsParser.separator) {
            return .kindle
        }
        return nil
    }

    /// How a person knows the format.
    public var name: String {
        switch self {
        case .bmvault: "a bmvault archive"
        case .kindle: "Kindle clippings (My Clippings.txt)"
        case .koreader: "KOReader highlights (a sidecar, metadata.lua, or its exporter's JSON)"
        case .goodreads: "a Goodreads library export"
        case .calibre: "calibre highlights"
        case .readwise: "a Readwise export"
        case .jrnl: "a jrnl journal (JSON)"
        case .koreaderStatistics: "KOReader statistics (statistics.sqlite3)"
        case .kobo: "a Kobo's database (KoboReader.sqlite)"
        case .device: "a reading device's drive"
        }
    }
}
