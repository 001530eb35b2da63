import Journal

/// The plaintext of `book_title_cache.titles` (sealed as table `book_title_cache`, record
/// `1`, field `titles`), version 1, every number a big-endian UInt32:
///
///     0x01 | count | count × ( id: 36 ASCII bytes | title length | title | folded length | folded )
///
/// `folded` is the title lowercased, as BOOK arguments are matched, kept so that naming a
/// book lowercases nothing. Books are in `book list` order (oldest first).
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

    /// The titles, or `recordUnreadable` for anything that is not exactly this format
    /// (the cache is then rebuilt from the books).
    static func decode(_ bytes: [UInt8]) throws(StoreError) -> [BookTitle] {
        try bytes.withUnsafeBufferPointer { (buffer) throws(StoreError) in try decode(buffer) }
    }

    /// why a buffer: every title is read in place, with no copy of its bytes, as each
    /// command that names a book by its title decodes all of them.
    private static func decode(_ bytes: UnsafeBufferPointer<UInt8>) throws(StoreError) -> [BookTitle] {
        let damaged = StoreError.recordUnreadable(id: "1", field: "titles")
        var position = 1
        func number() throws(StoreError) -> Int {
            guard bytes.count - position >= 4 else { throw damaged }
            defer { position += 4 }
            return Int(bytes[position]) << 24 | Int(bytes[position + 1]) << 16 | Int(bytes[position + 2]) << 8 | Int(bytes[position + 3])
        }
        func text(count: Int) throws(StoreError) -> String {
            guard bytes.count - position >= count,
                  let text = String(utf8Bytes: UnsafeBufferPointer(rebasing: bytes[position..<(position + count)])) else { throw damaged }
            position += count
            return text
        }
        guard bytes.first == version else { throw damaged }
        let count = try number()
        // why this bound: each entry takes at least 44 bytes, so a damaged count cannot make us reserve much.
        guard count <= bytes.count / 44 else { throw damaged }
        var titles: [BookTitle] = []
        titles.reserveCapacity(count)
        for _ in 0..<count {
            guard let id = try? EntityID(validating: try text(count: 36)) else { throw damaged }
            let title = try text(count: try number())
            let folded = try text(count: try number())
            titles.append(BookTitle(id: id, title: title, folded: folded))
        }
        guard position == bytes.count else { throw damaged }
        return titles
    }

    private static func append(_ value: UInt32, to bytes: inout [UInt8]) {
        bytes.append(contentsOf: [UInt8(value >> 24), UInt8(value >> 16 & 0xff), UInt8(value >> 8 & 0xff), UInt8(value & 0xff)])
    }
}
