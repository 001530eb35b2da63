import Journal

/// The plaintext of `book_title_cache.titles` (sealed as table `book_title_cache`, record
/// `1`, field `titles`), version 1, every number a big-endian UInt32:
///
///     0x01 | count | count × ( id: 36 ASCII bytes | title length | title | folded length | folded )
///
/// `folded` is the title lowercased, as BOOK arguments are matched, kept so that naming a
/// book lowercases nothing. Books are in `book list` order (oldest first). It is read in
/// place by ``BookTitleIndex``.
enum BookTitleCacheFormat {
    static let version: UInt8 = 1

    static func encode(_ titles: [BookTitle]) -> [UInt8] {
        var bytes: [UInt8] = [version]
        append(UInt32(titles.count), to: &bytes)
        for title in titles {
            bytes.append(contentsOf: title.id.rawValue.utf8)
            for text in [title.title, title.folded] {
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
