/// Schema v8: the key chain. `retired_key` holds each vault key a rekey replaced, sealed
/// under the current key (see `RetiredKey`), so that operation files other devices wrote
/// under an older key, and that a device joining later must read, still open. Every rekey
/// seals the whole chain again under its new key. Schema only: a vault upgraded from v7 has
/// an empty chain, as it had no way to keep one.
/// FROZEN: shipped in bmvault 0.8.0; never edit this text.
enum Migration0008KeyChain {
    static let migration = Migration(id: "0008_key_chain",
                                     summary: "key chain: vault keys a rekey replaced, sealed under the current key",
                                     schemaChecksum: "2af4c64748f366e50f13f8d43abd280c0912c97ff0f7f41bd0a0fb6620ae50fb",
                                     sql: """
        CREATE TABLE retired_key (
            key_id     TEXT PRIMARY KEY NOT NULL,
            sealed_key BLOB NOT NULL,
            retired_at INTEGER NOT NULL
        ) WITHOUT ROWID;
        """)
}
