// swift-tools-version: 6.0
import PackageDescription

// bmvault depends on the Swift toolchain and system C libraries only: libsodium, OpenSSL's libcrypto
// (SHA-256 only: checksums of data that is not secret), SQLite and libsecret, libcurl (a WebDAV
// remote), libxml2 (reading XML), libcsv (reading CSV exports), libyaml (reading the YAML
// front matter of a notes folder's notes), and libzip, libmobi and qpdf (reading a book file's
// metadata: EPUB, MOBI/AZW3, PDF), plus glibc.
// Each C module has exactly one Swift importer, which imports it `internal`.
let package = Package(
    name: "bmvault",
    products: [
        .executable(name: "bmvault", targets: ["bmvault"]),
    ],
    targets: [
        // C libraries (and the glibc calls Swift's Glibc module hides), wrapped once.
        .systemLibrary(name: "CSodium", pkgConfig: "libsodium", providers: [.apt(["libsodium-dev"])]),
        .systemLibrary(name: "CCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CSecret", pkgConfig: "libsecret-1", providers: [.apt(["libsecret-1-dev"])]),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "CXML", pkgConfig: "libxml-2.0", providers: [.apt(["libxml2-dev"])]),
        .systemLibrary(name: "CCSV", providers: [.apt(["libcsv-dev"])]),
        .systemLibrary(name: "CYAML", pkgConfig: "yaml-0.1", providers: [.apt(["libyaml-dev"])]),
        .systemLibrary(name: "CZip", pkgConfig: "libzip", providers: [.apt(["libzip-dev"])]),
        .systemLibrary(name: "CMobi", pkgConfig: "libmobi", providers: [.apt(["libmobi-dev"])]),
        .systemLibrary(name: "CQPDF", pkgConfig: "libqpdf", providers: [.apt(["libqpdf-dev"])]),
        .systemLibrary(name: "CFileIO"),

        // The model: depends on nothing of ours.
        .target(name: "Journal"),
        // Every file-system call, retried on EINTR, with typed errors and (in debug builds)
        // injectable faults: the only importer of CFileIO; depends on nothing else of ours.
        .target(name: "FileIO", dependencies: ["CFileIO"]),
        // Logging, redaction and reports: depends on FileIO only.
        .target(name: "Telemetry", dependencies: ["FileIO"]),
        // Keys, sealed fields, keyslots: the only importer of libsodium. SHA-256 too: the only
        // importer of libcrypto, which computes it and nothing else.
        .target(name: "VaultCrypto", dependencies: ["CSodium", "CCrypto"]),
        // The vault key in the freedesktop Secret Service, through libsecret: the only importer of CSecret.
        .target(name: "Keystore", dependencies: ["CSecret", "FileIO", "VaultCrypto", "Telemetry"]),
        // HTTP/1.1 with TLS, through libcurl: the only importer of CCurl; depends on nothing else of ours.
        .target(name: "HTTP", dependencies: ["CCurl"]),
        // XML documents read through libxml2: the only importer of CXML; depends on nothing else of ours.
        .target(name: "XML", dependencies: ["CXML"]),
        // What devices exchange, and nothing that moves it: operation documents and snapshots, the
        // operation cipher, derived ids, and SyncJournal, the contract the Store fulfils for the engine.
        // Used by storage (the outbox is kept in this format) and by the engine alike.
        .target(name: "SyncWire", dependencies: ["FileIO", "Journal", "VaultCrypto"]),
        // The engine that drains the outbox and merges other devices' changes, and the remotes (a
        // folder, a WebDAV server) that only move sealed bytes. It holds no key (sealing is handed in)
        // and depends on the journal through SyncJournal, not on the Store.
        .target(name: "Sync", dependencies: ["FileIO", "HTTP", "Journal", "SyncWire", "Telemetry", "VaultCrypto", "XML"]),
        // SQLite connections, statements and rows: the only importer of CSQLite; depends on FileIO
        // only. The Store's database, and another program's opened read-only by an importer.
        .target(name: "SQLiteDatabase", dependencies: ["CSQLite", "FileIO"]),
        // Migrations, the Store: the one owner of the vault's file. It keeps the outbox in the
        // wire format and conforms to SyncJournal; it imports nothing of the engine, HTTP or XML.
        .target(name: "VaultStore", dependencies: ["SQLiteDatabase", "FileIO", "SyncWire", "VaultCrypto", "Journal", "Telemetry"]),
        // The one applier: every record from elsewhere (a pulled operation, an archive's record,
        // another program's) meets the vault's through JournalMerge here, and the decision is
        // applied through the Store's tables.
        .target(name: "Applier", dependencies: ["Journal", "SyncWire", "VaultStore", "VaultCrypto"]),
        // The export archive: versioned JSON + Markdown writers, and a reader for every version ever written.
        // The only importer of CYAML (a notes folder's front matter, read as values).
        .target(name: "Archive", dependencies: ["CYAML", "FileIO", "Journal", "VaultCrypto"]),
        // Files other programs write (a Kindle's clippings, KOReader's statistics, a Kobo's
        // database, ...), read into what they hold: depends on the journal's rules, SHA-256 and
        // the SQLite wrapper (another program's database, opened read-only), never on the Store.
        // The only importer of CCSV.
        .target(name: "Importers", dependencies: ["CCSV", "Journal", "SQLiteDatabase", "VaultCrypto"]),
        // A book file's metadata (EPUB, MOBI/AZW3, PDF), read by real parsers: the only importer
        // of CZip, CMobi and CQPDF; depends on XML only.
        .target(name: "BookFiles", dependencies: ["CZip", "CMobi", "CQPDF", "FileIO", "XML"]),
        // The facade the CLI talks to.
        .target(name: "VaultKit", dependencies: ["Applier", "BookFiles", "FileIO", "HTTP", "VaultStore", "Sync", "SyncWire", "Archive", "Importers", "Keystore", "VaultCrypto", "Journal", "Telemetry"]),
        // Commands, parsing, help, terminal I/O.
        .target(name: "BMCLI", dependencies: ["BookFiles", "FileIO", "VaultKit", "Journal", "Telemetry"]),
        .executableTarget(name: "bmvault", dependencies: ["BMCLI"]),
        // Writes a large, seeded journal for Scripts/bench (not shipped).
        .executableTarget(name: "bmvault-bench-journal",
                          dependencies: ["VaultKit", "VaultStore", "VaultCrypto", "Keystore", "Journal"]),

        // What several test targets share: a clock tests move, temporary directories, file bytes,
        // seeded generators and mutations (the fuzz tests).
        .target(name: "TestSupport", dependencies: ["Journal"], path: "Tests/TestSupport"),

        .testTarget(name: "JournalTests", dependencies: ["Journal"]),
        .testTarget(name: "FileIOTests", dependencies: ["FileIO", "TestSupport"]),
        .testTarget(name: "XMLTests", dependencies: ["XML"]),
        .testTarget(name: "ImportersTests", dependencies: ["Importers", "TestSupport"]),
        .testTarget(name: "BookFilesTests", dependencies: ["BookFiles", "TestSupport"]),
        .testTarget(name: "TelemetryTests", dependencies: ["Telemetry"]),
        .testTarget(name: "VaultCryptoTests", dependencies: ["VaultCrypto", "TestSupport"]),
        .testTarget(name: "KeystoreTests", dependencies: ["Keystore", "VaultCrypto"]),
        .testTarget(name: "VaultStoreTests", dependencies: ["Applier", "FileIO", "VaultStore", "Sync", "SyncWire", "VaultCrypto", "Journal", "TestSupport"]),
        .testTarget(name: "ArchiveTests", dependencies: ["FileIO", "Archive", "Journal", "VaultCrypto", "TestSupport"]),
        .testTarget(name: "SyncTests", dependencies: ["Applier", "Sync", "SyncWire", "HTTP", "FileIO", "VaultStore", "VaultCrypto", "Journal", "TestSupport"]),
        .testTarget(name: "VaultKitTests", dependencies: ["Applier", "VaultKit", "VaultStore", "Keystore", "VaultCrypto", "Journal", "TestSupport"]),
        .testTarget(name: "BMCLITests", dependencies: ["BMCLI", "VaultKit"]),
        .testTarget(name: "EndToEndTests", dependencies: ["bmvault", "SQLiteDatabase", "TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
