/// Schema v12: a note or quote can move to another book and change kind, so each kept
/// version records its own book and kind. `annotation_version.book_id` and `kind` are
/// those of the version (NULL: the note's own, as every version kept before bmvault 0.12,
/// when neither could change). In the clear, like the note's. Columns only, with no CHECK
/// constraint: every existing row stays as it was.
/// FROZEN once shipped in bmvault 0.12.0; never edit this text.
enum Migration0012Moves {
    static let migration = Migration(id: "0012_moves",
                                     summary: "kept versions of a note record its book and kind (notes can move and change kind)",
                                     schemaChecksum: "7417509e4fb8d14e480e179671c559d8f1bc32ccfe239f07a6103de11c38f05e",
                                     sql: """
        ALTER TABLE annotation_version ADD COLUMN book_id TEXT;
        ALTER TABLE annotation_version ADD COLUMN kind TEXT;
        """)
}
