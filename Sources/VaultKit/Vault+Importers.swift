internal import FileIO
public import Importers

extension Vault {
    /// The largest file of another program's that `import` reads (a `My Clippings.txt` of
    /// 100,000 clippings is about 40 MiB).
    public static let largestImportFile = 256 << 20

    /// The format of the file at `path`, by its content: a bmvault archive (a directory, or
    /// its journal.json) or a file another program wrote; a folder, by what it holds: a
    /// reading device's drive (``ReadingDevice``), or KOReader's sidecars. Nil: no format
    /// bmvault reads. Anything else that is not a regular file (another folder, a pipe,
    /// nothing) is left to the archive's reader, which says what it is; a pipe is never opened here.
    public static func importFormat(at path: String) -> ImportFormat? {
        let kind = (try? FileSystem.status(path))?.kind
        guard kind == .regular else {
            guard kind == .directory, !isArchiveFolder(path) else { return .bmvault }
            // A reading device's drive: a Kindle's clippings, a Kobo's database or KOReader's
            // folder where each keeps it (``ReadingDevice/markers``).
            if ReadingDevice.isDevice(path) { return .device }
            // A folder of KOReader sidecars alone (a copy of docsettings) is not an archive;
            // one sidecar found is enough to tell.
            if !koreaderSidecars(under: path, atMost: 1).isEmpty { return .koreader }
            return .bmvault
        }
        guard let prefix = filePrefix(at: path) else { return .bmvault }
        return ImportFormat.detect(prefix: prefix, at: path)
    }

    /// The first 64 KiB of the regular file at `path` (what a format is told by); nil when
    /// it cannot be opened.
    static func filePrefix(at path: String) -> [UInt8]? {
        guard let descriptor = try? FileDescriptor.open(path, .readOnly) else { return nil }
        defer { try? descriptor.close() }
        var prefix = [UInt8](repeating: 0, count: 64 << 10)
        let count = (try? descriptor.read(into: &prefix)) ?? 0
        return Array(prefix[0..<count])
    }

    /// What a Kindle's `My Clippings.txt` holds for a journal, book by book: read, never
    /// written anywhere (the file may be large; it is read once, up to ``largestImportFile``).
    public static func kindleImportPlan(at path: String) throws(VaultError) -> KindleImportPlan {
        let bytes = try importBytes(at: path)
        do { return KindleImportPlan(try KindleClippingsParser.parse(bytes)) } catch { throw .importFile(error) }
    }

    /// What a KOReader sidecar holds for a journal, read as data (never run).
    public static func koreaderSidecar(at path: String) throws(VaultError) -> KOReaderSidecar {
        let bytes = try importBytes(at: path)
        do { return try KOReaderSidecar.read(bytes) } catch { throw .importFile(error) }
    }

    /// Whether `path` holds what every archive folder does (a device's drive has a `books`
    /// folder too, so that alone says nothing).
    private static func isArchiveFolder(_ path: String) -> Bool {
        ["journal.json", "manifest.json"].contains { FileSystem.exists(path + "/" + $0, followingLinks: false) }
    }

    /// The deepest a KOReader folder is walked (a device's drive: `books/author/Title.sdr/`).
    static let deepestSidecar = 8

    /// Every KOReader sidecar under `folder`, by path: `metadata.<ext>.lua` inside a `*.sdr`
    /// folder, and its `.lua.old` backup only where the live file is missing (KOReader keeps
    /// both; reading both would read every highlight twice). Links are not followed.
    public static func koreaderSidecars(under folder: String, atMost limit: Int = .max) -> [String] {
        var found: [String] = []
        func walk(_ directory: String, depth: Int) {
            guard depth <= deepestSidecar, found.count < limit, let names = try? FileSystem.entries(of: directory) else { return }
            for name in names.sorted() where found.count < limit {
                let path = directory + "/" + name
                guard let status = try? FileSystem.status(path, followingLinks: false) else { continue }
                if status.kind == .directory {
                    walk(path, depth: depth + 1)
                } else if status.kind == .regular, directory.hasSuffix(".sdr"), name.hasPrefix("metadata."),
                          name.hasSuffix(".lua") || (name.hasSuffix(".lua.old") && !names.contains(String(name.dropLast(4)))) {
                    found.append(path)
                }
            }
        }
        walk(folder, depth: 0)
        return found
    }

    private static func importBytes(at path: String) throws(VaultError) -> [UInt8] {
        do { return try FileSystem.readRegularFile(at: path, limit: largestImportFile) } catch { throw .notImportable(path: path) }
    }
}
