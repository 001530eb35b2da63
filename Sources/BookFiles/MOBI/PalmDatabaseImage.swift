/// A MOBI file cut down to what holds its metadata: the Palm database header, a record list
/// of one, and record 0 (the PalmDOC, MOBI and EXTH headers, and the full title). libmobi's
/// loader reads every record of the file it is given into memory; given this image instead,
/// it reads one record, so memory stays bounded by record 0 whatever the book's size.
///
/// A KF7/KF8 hybrid then loads as its KF7 part: libmobi finds its KF8 boundary only through
/// the records this image leaves out. That part carries the same EXTH metadata, and the
/// file is the `.mobi` it is named as; only a book that is KF8 throughout (version 8 in
/// record 0) reads as AZW3.
struct PalmDatabaseImage {
    /// The Palm database header's length, without its record list.
    static let headerLength = 78
    /// A record list entry: offset, attributes, unique id.
    static let entryLength = 8
    /// The most bytes of record 0 read: real ones are a few kilobytes (PalmDOC 16, MOBI
    /// about 250, EXTH what the metadata takes).
    static let record0Limit = 1 << 20

    let bytes: [UInt8]

    /// The image of `file`, read with plain reads of its header, its first two record list
    /// entries and record 0. A file that does not hold what its header promises is damaged.
    init(_ file: borrowing BookFileHandle) throws(BookFileError) {
        let header = try file.read(at: 0, count: Self.headerLength)
        guard header.count == Self.headerLength else { throw .damaged(.mobi, because: "its Palm database header is cut short") }
        let recordCount = Int(header[76]) << 8 | Int(header[77])
        guard recordCount > 0 else { throw .damaged(.mobi, because: "it has no records") }
        let entries = try file.read(at: Self.headerLength, count: min(recordCount, 2) * Self.entryLength)
        guard entries.count == min(recordCount, 2) * Self.entryLength else { throw .damaged(.mobi, because: "its record list is cut short") }
        let start = Self.bigEndian32(entries, at: 0)
        let end = recordCount > 1 ? Self.bigEndian32(entries, at: Self.entryLength) : file.size
        guard start >= Self.headerLength + recordCount * Self.entryLength, start < end, end <= file.size else {
            throw .damaged(.mobi, because: "its first record lies outside the file")
        }
        guard end - start <= Self.record0Limit else { throw .damaged(.mobi, because: "its first record is larger than bmvault reads") }
        let record0 = try file.read(at: start, count: end - start)
        guard record0.count == end - start else { throw .damaged(.mobi, because: "its first record is cut short") }

        // The same header with a record count of one, the one entry (record 0's own
        // attributes and id, its new offset), the customary two bytes of gap, record 0.
        var image = header
        image[76] = 0
        image[77] = 1
        let offset = Self.headerLength + Self.entryLength + 2
        image += [UInt8(offset >> 24 & 0xFF), UInt8(offset >> 16 & 0xFF), UInt8(offset >> 8 & 0xFF), UInt8(offset & 0xFF)]
        image += entries[4..<8]
        image += [0, 0]
        image += record0
        bytes = image
    }

    private static func bigEndian32(_ bytes: [UInt8], at offset: Int) -> Int {
        Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
    }
}
