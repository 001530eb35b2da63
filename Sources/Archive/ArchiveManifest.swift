public import Journal

/// manifest.json: what the archive is, who wrote it when, what it holds, and the size and
/// SHA-256 of every other file, so an import can tell a damaged or edited archive from the
/// one that was written.
public struct ArchiveManifest: Equatable, Sendable {
    public var formatVersion: Int
    public var generatorVersion: String
    public var exportedAt: Timestamp
    public var includesDeleted: Bool
    /// How many records journal.json holds, by kind; books, notes and quotes include the
    /// tombstones counted again in `deleted` (only with `--include-deleted`).
    public var counts: JournalCounts
    public var deleted: JournalCounts
    /// Every file but the manifest, by path.
    public var files: [ArchiveFileEntry]

    /// The manifest as written: keys sorted, files by path in byte order.
    func jsonText() -> String {
        func count(_ key: String, _ value: Int, last: Bool = false) -> String {
            "    \(JSONText.string(key)) : \(value)" + (last ? "\n" : ",\n")
        }
        var text = "{\n  \"counts\" : {\n"
        text += count("books", counts.books) + count("notes", counts.notes) + count("quotes", counts.quotes)
            + count("sessions", counts.sessions, last: true)
        text += "  },\n  \"deleted\" : {\n"
        text += count("books", deleted.books) + count("notes", deleted.notes) + count("quotes", deleted.quotes, last: true)
        text += "  },\n  \"exportedAt\" : \(JSONText.string(exportedAt.iso8601)),\n  \"files\" : {"
        let sorted = files.sorted { $0.path.utf8.lexicographicallyPrecedes($1.path.utf8) }
        for (index, file) in sorted.enumerated() {
            text += (index == 0 ? "\n" : ",\n") + "    \(JSONText.string(file.path)) : {\n"
            text += "      \"bytes\" : \(file.bytes),\n      \"sha256\" : \(JSONText.string(file.sha256))\n    }"
        }
        text += sorted.isEmpty ? "},\n" : "\n  },\n"
        text += "  \"format\" : \(JSONText.string(ArchiveFormat.name)),\n  \"formatVersion\" : \(formatVersion),\n"
        text += "  \"generator\" : {\n    \"name\" : \"bmvault\",\n    \"version\" : \(JSONText.string(generatorVersion))\n  },\n"
        text += "  \"includesDeleted\" : \(includesDeleted)\n}\n"
        return text
    }

    /// Reads a manifest of any version this build reads; a newer one is refused naming both
    /// versions, before anything else in it is trusted.
    static func read(path: String) throws(ArchiveError) -> ArchiveManifest {
        let file = ArchiveFormat.manifestFile
        let reader = try JSONStreamReader(path: path, displayName: file)
        let value = try reader.readValue()
        try reader.finish()
        guard value["format"]?.stringValue == ArchiveFormat.name else { throw .notAnArchive(path: file) }
        guard let version = value["formatVersion"]?.integerValue.flatMap({ Int(exactly: $0) }) else {
            throw .missingField(file: file, line: nil, record: nil, field: "formatVersion")
        }
        try ArchiveFormat.checkReadable(version, file: file)
        guard case .object(let listed) = value["files"] else { throw .missingField(file: file, line: nil, record: nil, field: "files") }
        var files: [ArchiveFileEntry] = []
        for (path, entry) in listed {
            guard let bytes = entry["bytes"]?.integerValue, let sha256 = entry["sha256"]?.stringValue,
                  sha256.utf8.count == 64, isSafeRelativePath(path) else {
                throw .invalidField(file: file, line: nil, record: nil, field: "files", reason: "an entry without a safe path, bytes and sha256")
            }
            files.append(ArchiveFileEntry(path: path, bytes: bytes, sha256: sha256.lowercased()))
        }
        func counts(_ key: String) -> JournalCounts {
            func count(_ kind: String) -> Int { Int(value[key]?[kind]?.integerValue ?? 0) }
            return JournalCounts(books: count("books"), sessions: count("sessions"), notes: count("notes"), quotes: count("quotes"))
        }
        return ArchiveManifest(formatVersion: version, generatorVersion: value["generator"]?["version"]?.stringValue ?? "",
                               exportedAt: value["exportedAt"]?.stringValue.flatMap { try? Timestamp(iso8601: $0) } ?? Timestamp(millisecondsSince1970: 0),
                               includesDeleted: value["includesDeleted"]?.boolValue ?? false,
                               counts: counts("counts"), deleted: counts("deleted"),
                               files: files.sorted { $0.path.utf8.lexicographicallyPrecedes($1.path.utf8) })
    }

    /// A path inside the archive: relative, no `..`, no empty component, and one printable
    /// line (no control character or bidirectional override, ``TextRules/line(_:field:)``).
    /// A manifest can never make an import read a file outside the archive, nor put escape
    /// sequences on the reader's terminal through an error message that names a file.
    static func isSafeRelativePath(_ path: String) -> Bool {
        guard !path.isEmpty, !path.hasPrefix("/"), (try? TextRules.line(path, field: "path")) == path else { return false }
        return path.split(separator: "/", omittingEmptySubsequences: false).allSatisfy { !$0.isEmpty && $0 != "." && $0 != ".." }
    }
}
