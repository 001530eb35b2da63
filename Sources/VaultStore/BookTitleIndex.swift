public import Journal
import Telemetry
import VaultCrypto

/// The live books' titles as the title cache holds them (``BookTitleCacheFormat``): one
/// decrypted buffer, read in place, and wiped when the index goes away.
///
/// Naming a book compares the BOOK argument with every title. Decoding the cache into a
/// `String` for every title and folded title and an ``EntityID`` for every book was most
/// of the work of a `note add` at 2,000 books (6 M of its 23 M instructions, and 3 M more
/// to free them again); here a comparison reads the folded title's bytes, and only what
/// it cannot decide, and the book it names, become values.
public final class BookTitleIndex {
    /// Where one book's id, title, authors and their folded forms are in ``bytes``.
    private struct Entry {
        let id: Int
        let title: Range<Int>
        let folded: Range<Int>
        let authors: Range<Int>
        let foldedAuthors: Range<Int>
    }

    private var bytes: [UInt8]
    private let entries: [Entry]

    /// The index of `titles`, in their order (a rebuilt cache; tests).
    public convenience init(_ titles: [BookTitle]) {
        self.init(encoded: BookTitleCacheFormat.encode(titles))
    }

    /// The index of a decrypted cache: `recordUnreadable` for anything that is not exactly
    /// the format, or an id not in its stored form (the cache is then rebuilt from the books).
    /// Texts are taken as UTF-8: they were encoded from `String`s and sealed, so nothing
    /// but this code could have written them.
    init(plaintext: [UInt8]) throws(StoreError) {
        bytes = plaintext
        entries = try Self.entries(of: plaintext)
    }

    /// What ``BookTitleCacheFormat/encode(_:)`` made, which always reads back.
    private init(encoded plaintext: [UInt8]) {
        bytes = plaintext
        entries = (try? Self.entries(of: plaintext)) ?? []
    }

    deinit {
        wipe(&bytes)
    }

    public var count: Int { entries.count }

    /// The id of the book at `index`.
    public func id(at index: Int) throws(StoreError) -> EntityID {
        let entry = entries[index]
        guard let id = try? EntityID(validating: String(decoding: bytes[entry.id..<(entry.id + 36)], as: UTF8.self)) else {
            throw .recordUnreadable(id: "1", field: "titles")
        }
        return id
    }

    /// The title of the book at `index` (remembered for the log's backstop, as every
    /// decrypted text that becomes a value is).
    public func title(at index: Int) -> String {
        let title = String(decoding: bytes[entries[index].title], as: UTF8.self)
        RecentContent.shared.remember(title)
        return title
    }

    /// The authors of the book at `index` (remembered, as titles are).
    public func authors(at index: Int) -> [String] {
        let joined = String(decoding: bytes[entries[index].authors], as: UTF8.self)
        let authors = joined.isEmpty ? [] : joined.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        authors.forEach(RecentContent.shared.remember)
        return authors
    }

    /// The folded title of the book at `index`, as a `String`.
    public func folded(at index: Int) -> String {
        String(decoding: bytes[entries[index].folded], as: UTF8.self)
    }

    /// The folded authors of the book at `index`, one per line, as a `String`.
    public func foldedAuthors(at index: Int) -> String {
        String(decoding: bytes[entries[index].foldedAuthors], as: UTF8.self)
    }

    /// Runs `body` with the UTF-8 bytes of the id, the folded title and the folded authors
    /// (one per line) of the book at `index`, valid only inside `body`.
    public func withBytes<Result>(at index: Int,
                                  _ body: (_ id: UnsafeBufferPointer<UInt8>, _ folded: UnsafeBufferPointer<UInt8>,
                                           _ foldedAuthors: UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        let entry = entries[index]
        return bytes.withUnsafeBufferPointer { all in
            body(UnsafeBufferPointer(rebasing: all[entry.id..<(entry.id + 36)]), UnsafeBufferPointer(rebasing: all[entry.folded]),
                 UnsafeBufferPointer(rebasing: all[entry.foldedAuthors]))
        }
    }

    /// Every book's title and authors, as values (for listings that show titles next to notes).
    public func titles() throws(StoreError) -> [BookTitle] {
        var titles: [BookTitle] = []
        titles.reserveCapacity(count)
        for index in 0..<count {
            titles.append(BookTitle(id: try id(at: index), title: title(at: index), authors: authors(at: index),
                                    folded: folded(at: index), foldedAuthors: foldedAuthors(at: index)))
        }
        return titles
    }

    /// Where every entry of `bytes` is; `recordUnreadable` unless they are exactly the format.
    ///
    /// why a buffer: this runs over every book for every command that names one by its title.
    private static func entries(of bytes: [UInt8]) throws(StoreError) -> [Entry] {
        let entries = bytes.withUnsafeBufferPointer { bytes -> [Entry]? in
            var position = 1
            func number() -> Int? {
                guard bytes.count - position >= 4 else { return nil }
                defer { position += 4 }
                return Int(bytes[position]) << 24 | Int(bytes[position + 1]) << 16 | Int(bytes[position + 2]) << 8 | Int(bytes[position + 3])
            }
            func range(count: Int) -> Range<Int>? {
                guard bytes.count - position >= count else { return nil }
                defer { position += count }
                return position..<(position + count)
            }
            guard bytes.first == BookTitleCacheFormat.version, let count = number(),
                  // why this bound: each entry takes at least 52 bytes, so a damaged count cannot make us reserve much.
                  count <= bytes.count / 52 else { return nil }
            var entries: [Entry] = []
            entries.reserveCapacity(count)
            for _ in 0..<count {
                guard let id = range(count: 36), EntityID.isStoredForm(UnsafeBufferPointer(rebasing: bytes[id])),
                      let titleCount = number(), let title = range(count: titleCount),
                      let foldedCount = number(), let folded = range(count: foldedCount),
                      let authorsCount = number(), let authors = range(count: authorsCount),
                      let foldedAuthorsCount = number(), let foldedAuthors = range(count: foldedAuthorsCount) else { return nil }
                entries.append(Entry(id: id.lowerBound, title: title, folded: folded, authors: authors, foldedAuthors: foldedAuthors))
            }
            return position == bytes.count ? entries : nil
        }
        guard let entries else { throw .recordUnreadable(id: "1", field: "titles") }
        return entries
    }
}
