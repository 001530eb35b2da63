/// Schema v15: WebDAV remotes. `remote.kind` may be `webdav` (its `location` is then the
/// folder's URL), and a remote records the user name its server asks for (`user`) and the
/// certificates to trust instead of the system's (`ca_file`, a path); the password is kept
/// in the Secret Service, never here. The columns are added first, then the CHECK
/// constraint's text is widened in place (`editsSchemaText`, as 0005 did): no stored row can
/// violate the wider one, so none is rewritten. FROZEN: shipped in bmvault 0.15.0; never edit
/// this text.
enum Migration0015WebDAVRemotes {
    static let migration = Migration(id: "0015_webdav_remotes",
                                     summary: "WebDAV remotes: a remote's kind may be webdav, with a user name and a CA file",
                                     schemaChecksum: "9bb56bf35c9e6d6a95c5186b13f9f874f82ec285c7d5ffa343f9491d6a6bd3ac",
                                     sql: """
        ALTER TABLE remote ADD COLUMN user TEXT;
        ALTER TABLE remote ADD COLUMN ca_file TEXT;
        PRAGMA writable_schema = ON;
        UPDATE sqlite_master
        SET sql = replace(sql, 'CHECK (kind IN (''folder''))', 'CHECK (kind = ''folder'' OR kind = ''webdav'')')
        WHERE type = 'table' AND name = 'remote';
        PRAGMA writable_schema = RESET;
        """, editsSchemaText: true)
}
