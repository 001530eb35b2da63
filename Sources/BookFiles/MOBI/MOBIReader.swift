internal import CMobi
#if canImport(Glibc)
import Glibc
#endif

/// A Mobipocket or Kindle book's metadata, through libmobi: its EXTH records (authors,
/// publisher, ISBN, ASIN, language, date, cover), else the MOBI header's full title.
enum MOBIReader {
    /// Whether the file is MOBI or AZW3 (KF8), and its metadata.
    static func read(_ file: borrowing BookFileHandle) throws(BookFileError) -> BookFileInspection {
        var image = try PalmDatabaseImage(file).bytes
        guard let book = mobi_init() else { throw .damaged(.mobi, because: "libmobi cannot set up") }
        defer { mobi_free(book) }
        let loaded = image.withUnsafeMutableBytes { buffer -> MOBI_RET in
            guard let stream = fmemopen(buffer.baseAddress, buffer.count, "rb") else { return MOBI_MALLOC_FAILED }
            defer { fclose(stream) }
            return mobi_load_file(book, stream)
        }
        guard loaded == MOBI_SUCCESS else { throw .damaged(.mobi, because: "libmobi cannot read its first record") }
        guard mobi_exists_mobiheader(book) else { throw .damaged(.mobi, because: "its first record has no MOBI header") }
        // The MOBI header says an EXTH header follows (flag 0x40); libmobi drops one it cannot
        // parse, and the book's metadata with it.
        if let flags = book.pointee.mh.pointee.exth_flags, flags.pointee & 0x40 != 0, book.pointee.eh == nil {
            throw .damaged(.mobi, because: "its EXTH metadata header is damaged")
        }
        let format: BookFileFormat = mobi_is_kf8(book) ? .azw3 : .mobi
        guard !mobi_is_encrypted(book) else { throw .encrypted(format) }

        var metadata = BookFileMetadata()
        metadata.title = take(mobi_meta_get_title(book))
        // Each author its own EXTH record (calibre, kindlegen), or several in one with ";".
        metadata.creators = strings(book, EXTH_AUTHOR).flatMap { $0.split(separator: ";").map(String.init) }
        metadata.language = take(mobi_meta_get_language(book))
        metadata.identifiers = strings(book, EXTH_ISBN).compactMap { BookIdentifier.make($0, scheme: "isbn") }
            + (strings(book, EXTH_ASIN) + strings(book, EXTH_ASIN504)).compactMap { BookIdentifier.make($0, scheme: "asin") }
        metadata.publisher = strings(book, EXTH_PUBLISHER).first
        metadata.date = strings(book, EXTH_PUBLISHINGDATE).first
        // The cover is an image record named by its offset; 0xFFFFFFFF is no image at all.
        if let cover = mobi_get_exthrecord_by_tag(book, EXTH_COVEROFFSET), let data = cover.pointee.data {
            metadata.hasCover = mobi_decode_exthvalue(data.assumingMemoryBound(to: UInt8.self), Int(cover.pointee.size)) != UInt32.max
        }
        return BookFileInspection(format: format, metadata: metadata)
    }

    /// Every EXTH record with this tag, as text (libmobi converts CP1252 and resolves HTML
    /// entities), in the file's order.
    private static func strings(_ book: UnsafeMutablePointer<MOBIData>, _ tag: MOBIExthTag) -> [String] {
        var values: [String] = []
        var start: UnsafeMutablePointer<MOBIExthHeader>? = nil
        while let record = mobi_next_exthrecord_by_tag(book, tag, &start) {
            if let data = record.pointee.data, let value = take(mobi_decode_exthstring(book, data.assumingMemoryBound(to: UInt8.self), Int(record.pointee.size))) {
                values.append(value)
            }
            // libmobi starts over from the first record when the one found was the last.
            if start == nil { break }
        }
        return values
    }

    /// A string libmobi allocated, copied and freed.
    private static func take(_ string: UnsafeMutablePointer<CChar>?) -> String? {
        guard let string else { return nil }
        defer { free(string) }
        return String(cString: string)
    }
}
