import Journal

/// The plaintext of `book_title_cache.titles` (sealed as table `book_title_cache`, record
/// `1`, field `titles`), version 2, every number a big-endian UInt32:
///
///     0x02 | count | count × ( id: 36 ASCII bytes | 4 × ( length | text ) )
///
/// The four texts are the title, the title folded (``TextFolding``), the authors (one per
/// line) and the authors folded: BOOK arguments and searches compare folded text, kept so
/// that naming a book folds nothing. Books are in `book list` order (oldest first). It is
/// read in place by ``BookTitleIndex``. A cache of another version (bmvault 0.9 wrote
/// version 1, titles only) is rebuilt, as a damaged one is.
enum BookTitleCacheFormat {
    static let version: UInt8 = 2

    static func encode(_ titles: [BookTitle]) -> [UInt8] {
        var bytes: [UInt8] = [version]
        append(UInt32(titles.count), to: &bytes)
        for title in titles {
            bytes.append(contentsOf: title.id.rawValue.utf8)
            for text in [title.title, title.folded, title.authors.joined(separator: "\n"), title.foldedAuthors] {
                append(UInt32(text.utf8.count), to: &bytes)
                bytes.append(contentsOf: text.utf8)
            }
        }
        return bytes
    }

    private static func append(_ value: UInt32, to bytes: inout [UInt8]) {
        bytes.append(contentsOf: [UInt8(value >> 24), UInt8(value >> 16 & 0xff), UInt8(value >> 8 & 0xff), UInt8(value & 0xff)])
    }
}
