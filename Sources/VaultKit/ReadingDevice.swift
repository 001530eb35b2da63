internal import FileIO
public import Importers

/// What a reading device's drive (mounted, or a copy of it) holds for a journal, found where
/// each program keeps its files: a Kindle's clippings, a Kobo's database, KOReader's
/// statistics and its sidecars. A folder is a device when it holds any of the ``markers``;
/// a folder of sidecars alone is not (it is imported as KOReader's, as before).
public struct ReadingDevice: Sendable, Equatable {
    /// One file of the device, by its format and its path inside the device's folder.
    public struct File: Sendable, Equatable {
        public let format: ImportFormat
        /// `documents/My Clippings.txt`, `.kobo/KoboReader.sqlite`,
        /// `.adds/koreader/settings/statistics.sqlite3`; nil for KOReader's sidecars (many files).
        public let place: String?
    }

    /// The device's folder, as given.
    public let folder: String
    /// What it holds, in the order an import takes it in: the Kobo's own library first (its
    /// books carry ISBNs and the shop's titles), then KOReader's sidecars (highlights), its
    /// statistics (sessions, finding the books the sidecars named by their partial MD5), and
    /// a Kindle's clippings.
    public let files: [File]
    /// Every KOReader sidecar on the device: beside the books, in `docsettings/` and in
    /// `hashdocsettings/` (each walked from its own root too, so a deep mirror of the books'
    /// paths is not cut off by the depth limit).
    public let sidecars: [String]

    /// The places that make a folder a device, relative to it: a Kindle's clippings, a Kobo's
    /// database, KOReader's folder (on any device, or `.adds/koreader` on a Kobo), or
    /// KOReader's folder itself (its statistics).
    public static let markers = ["documents/My Clippings.txt", ".kobo/KoboReader.sqlite", "koreader", ".adds/koreader",
                                 "settings/statistics.sqlite3"]

    /// Where KOReader keeps its folder on a device: on a Kobo, on any other device, or the
    /// folder given is KOReader's own.
    static let koreaderFolders = [".adds/koreader", "koreader", ""]

    /// Whether the folder at `path` holds any of the ``markers`` (links not followed).
    public static func isDevice(_ path: String) -> Bool {
        markers.contains { FileSystem.exists(path + "/" + $0, followingLinks: false) }
    }

    /// What the device at `folder` holds; nil when it is no device (no marker).
    public init?(at folder: String) {
        guard Self.isDevice(folder) else { return nil }
        self.folder = folder
        var sidecars = Vault.koreaderSidecars(under: folder)
        var seen = Set(sidecars)
        for koreader in Self.koreaderFolders {
            for settings in ["docsettings", "hashdocsettings"] {
                for sidecar in Vault.koreaderSidecars(under: folder + "/" + Self.joined(koreader, settings))
                where seen.insert(sidecar).inserted {
                    sidecars.append(sidecar)
                }
            }
        }
        self.sidecars = sidecars
        files = [ImportFormat.kobo, .koreader, .koreaderStatistics, .kindle].compactMap { format in
            format == .koreader ? (sidecars.isEmpty ? nil : File(format: .koreader, place: nil))
                : Self.place(of: format, in: folder).map { File(format: format, place: $0) }
        }
    }

    /// Where in the device's `folder` its file of `format` lies, if it holds one: what
    /// `--from kindle|kobo|koreader-stats` reads of a device's folder.
    public static func place(of format: ImportFormat, in folder: String) -> String? {
        let places = switch format {
        case .kindle: ["documents/My Clippings.txt"]
        case .kobo: [".kobo/KoboReader.sqlite"]
        case .koreaderStatistics: koreaderFolders.map { joined($0, "settings/statistics.sqlite3") }
        case .koreader, .bmvault, .goodreads, .calibre, .readwise, .jrnl, .device: [String]()
        }
        return places.first { (try? FileSystem.status(folder + "/" + $0))?.kind == .regular }
    }

    private static func joined(_ folder: String, _ place: String) -> String {
        folder.isEmpty ? place : folder + "/" + place
    }
}
