/// A Mobipocket file written byte by byte, as kindlegen and calibre lay one out: a Palm
/// database (`BOOKMOBI`) whose record 0 holds the PalmDOC header, a MOBI header (232 bytes,
/// EXTH flag set), the EXTH records and the full title, then one uncompressed text record.
struct MOBIFixture {
    var pdbName = "The_Database_Name"
    var fullName = "The Full Name Title"
    /// 6 for a MOBI, 8 for a KF8 book (AZW3).
    var version: UInt32 = 6
    /// 0 none, 2 Mobipocket DRM.
    var encryption: UInt16 = 0
    var exth: [(tag: UInt32, value: [UInt8])] = []
    var text = "<html><body><p>\(canary).</p></body></html>"
    /// Records after the text record (a KF7/KF8 hybrid's boundary and KF8 part).
    var moreRecords: [[UInt8]] = []

    static func string(_ tag: UInt32, _ text: String) -> (tag: UInt32, value: [UInt8]) { (tag, Array(text.utf8)) }
    static func number(_ tag: UInt32, _ value: UInt32) -> (tag: UInt32, value: [UInt8]) { (tag, be32(value)) }

    /// Every field bmvault reads: two authors (100), publisher (101), ISBN (104), date (106),
    /// ASIN (113), cover offset (201), updated title (503), language (524).
    static let complete = MOBIFixture(exth: [
        string(100, "Ada Lovelace"), string(100, "Charles Babbage"), string(101, "Analytical Press"),
        string(104, "978-0-306-40615-7"), string(106, "2007-03-01"), string(113, "B000FC1PJI"),
        number(201, 0), string(503, "The Updated Title &amp; More"), string(524, "en"),
    ])

    var bytes: [UInt8] {
        let records = [record0, Array(text.utf8)] + moreRecords
        // Palm database header, record list, two bytes of gap, records.
        var file = Array(pdbName.utf8.prefix(31))
        file += [UInt8](repeating: 0, count: 32 - file.count)
        file += be16(0) + be16(0) + be32(0x5A5A_5A5A) + be32(0x5A5A_5A5A) + be32(0) + be32(0) + be32(0) + be32(0)
        file += Array("BOOKMOBI".utf8) + be32(UInt32(2 * records.count - 1)) + be32(0) + be16(UInt16(records.count))
        var offset = 78 + records.count * 8 + 2
        for (index, record) in records.enumerated() {
            file += be32(UInt32(offset)) + [0] + [0, 0, UInt8(2 * index)]
            offset += record.count
        }
        file += [0, 0]
        return file + records.joined()
    }

    /// Record 0: PalmDOC, MOBI and EXTH headers, and the full name.
    var record0: [UInt8] {
        let record1 = Array(text.utf8)
        var record0: [UInt8] = []
        // PalmDOC header: no compression, the text's length, one text record of at most 4096.
        record0 += be16(1) + be16(0) + be32(UInt32(record1.count)) + be16(1) + be16(4096) + be16(encryption) + be16(0)
        // EXTH: its records, then padding to four bytes that its length leaves out.
        var records: [UInt8] = []
        for (tag, value) in exth { records += be32(tag) + be32(UInt32(8 + value.count)) + value }
        var exthBlock = Array("EXTH".utf8) + be32(UInt32(12 + records.count)) + be32(UInt32(exth.count)) + records
        while exthBlock.count % 4 != 0 { exthBlock.append(0) }
        let name = Array(fullName.utf8)
        let mobiLength = 232
        let nameOffset = 16 + mobiLength + exthBlock.count
        // MOBI header, offsets from its start.
        var mobi = [UInt8](repeating: 0, count: mobiLength)
        func put(_ value: [UInt8], at offset: Int) { mobi.replaceSubrange(offset..<(offset + value.count), with: value) }
        put(Array("MOBI".utf8), at: 0)
        put(be32(UInt32(mobiLength)), at: 4)
        put(be32(2), at: 8)                      // a book
        put(be32(65001), at: 12)                 // UTF-8
        put(be32(0x1234_5678), at: 16)           // unique id
        put(be32(version), at: 20)
        for offset in stride(from: 24, to: 64, by: 4) { put(be32(.max), at: offset) } // no indexes
        put(be32(2), at: 64)                     // first record after the text
        put(be32(UInt32(nameOffset)), at: 68)
        put(be32(UInt32(name.count)), at: 72)
        put(be32(9), at: 76)                     // locale: English
        put(be32(version), at: 88)               // minimum reader version
        put(be32(.max), at: 92)                  // no images
        put(be32(0x50), at: 112)                 // EXTH flag (0x40)
        put(be32(.max), at: 148)
        put(be32(.max), at: 152)                 // no DRM
        if version >= 8 {
            put(be32(.max), at: 176)             // no FDST
        } else {
            put(be16(1) + be16(1), at: 176)      // first and last text record
        }
        put(be32(1), at: 180)
        put(be32(.max), at: 184)
        put(be32(.max), at: 192)
        put(be32(.max), at: 208)
        put(be32(.max), at: 216)
        put(be32(.max), at: 220)
        put(be32(.max), at: 228)                 // no NCX
        record0 += mobi + exthBlock + name + [0, 0]
        while record0.count % 4 != 0 { record0.append(0) }
        return record0
    }
}

func be16(_ value: UInt16) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xFF)] }
func be32(_ value: UInt32) -> [UInt8] { [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
