internal import CZip
#if canImport(Glibc)
import Glibc
#endif

/// A zip archive opened read-only by libzip; its members are read whole but never past a
/// bound, whatever size the archive claims for them. Discarded when dropped.
struct ZipArchive: ~Copyable {
    private let archive: OpaquePointer

    /// A file libzip cannot open as an archive (a truncated one has lost its central
    /// directory) is a damaged EPUB: only a file that begins like a zip archive gets here.
    init(path: String) throws(BookFileError) {
        var code: Int32 = 0
        guard let archive = zip_open(path, ZIP_RDONLY, &code) else {
            let system = errno
            switch code {
            case ZIP_ER_NOENT: throw .unreadable(errno: ENOENT)
            case ZIP_ER_OPEN, ZIP_ER_READ, ZIP_ER_SEEK: throw .unreadable(errno: system != 0 ? system : EIO)
            default: throw .damaged(.epub, because: "not a zip archive libzip can open")
            }
        }
        self.archive = archive
    }

    deinit { zip_discard(archive) }

    /// The index of the member with this name (exactly, else ignoring case as some readers
    /// do), nil when there is none.
    func member(named name: String) -> UInt64? {
        var index = zip_name_locate(archive, name, 0)
        if index < 0 { index = zip_name_locate(archive, name, ZIP_FL_NOCASE) }
        return index >= 0 ? UInt64(index) : nil
    }

    /// The member's bytes, nil when there are more than `limit` of them (declared or read).
    func read(_ index: UInt64, limit: Int) throws(BookFileError) -> [UInt8]? {
        var status = zip_stat_t()
        zip_stat_init(&status)
        if zip_stat_index(archive, index, 0, &status) == 0, status.valid & UInt64(ZIP_STAT_SIZE) != 0, status.size > UInt64(limit) {
            return nil
        }
        guard let file = zip_fopen_index(archive, index, 0) else {
            switch zip_error_code_zip(zip_get_error(archive)) {
            case ZIP_ER_NOPASSWD, ZIP_ER_WRONGPASSWD, ZIP_ER_ENCRNOTSUPP: throw .encrypted(.epub)
            case ZIP_ER_COMPNOTSUPP: throw .damaged(.epub, because: "a member is compressed in a way libzip does not read")
            default: throw .damaged(.epub, because: "a member of the archive cannot be read")
            }
        }
        defer { zip_fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let count = chunk.withUnsafeMutableBytes { buffer in zip_fread(file, buffer.baseAddress!, UInt64(buffer.count)) }
            guard count >= 0 else { throw .damaged(.epub, because: "a member of the archive is damaged (its data or checksum)") }
            if count == 0 { return bytes }
            bytes += chunk[..<Int(count)]
            if bytes.count > limit { return nil }
        }
    }
}
