/// Schema v19: remotes that carry book files. `remote.carries_files` (0 or 1) says whether
/// sync sends this device's encrypted book-file blobs to the remote and takes the ones it
/// lacks from it (`remote add --files`, `remote files NAME on|off`); off by default, so a
/// remote on a small USB stick or a metered server never receives a file unasked. A column
/// is added: no row is rewritten. FROZEN once shipped; never edit this text.
enum Migration0019RemoteFiles {
    static let migration = Migration(id: "0019_remote_files",
                                     summary: "remotes may carry book files (remote add --files, remote files NAME on|off)",
                                     schemaChecksum: "dcecadf259106c9fe9558d467a7d908cc14d3170adf41aea335a62499151f9c3",
                                     sql: """
        ALTER TABLE remote ADD COLUMN carries_files INTEGER NOT NULL DEFAULT 0 CHECK (carries_files IN (0, 1));
        """)
}
