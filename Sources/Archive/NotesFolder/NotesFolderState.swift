import Foundation
import Journal

/// The names and numbers of a notes folder (Docs/NOTES-FOLDER.md).
public enum NotesFolderFormat {
    /// The state file, in the folder: what bmvault wrote there (hidden from notes apps by its dot).
    public static let stateFile = ".bmvault-notes.json"
    /// The value of the state file's `format`: raised only for a change an older bmvault
    /// would misread.
    public static let currentVersion = 1
    /// How a note is rendered: raised whenever a note's text would come out otherwise from
    /// the same journal (every note is then rendered again once, and written where it differs).
    static let renderVersion = 1
    /// The prefix of a note being written, beside its final name, until the export commits.
    static let temporaryPrefix = ".bmvault-notes-tmp-"
    /// The largest state file read (a journal of 100,000 notes in 2,000 books writes ~1 MB).
    static let stateLimit = 64 << 20
    /// The largest note file read (a book's note of 1 MiB quotes and more).
    static let noteLimit = 256 << 20

    /// What a note's text depends on besides the journal: the rendering and the time zone
    /// its dates are shown in. A change renders every note again.
    static var context: String { "render \(renderVersion); time zone \(TimeZone.process.identifier)" }
}

/// The state file: for each book's note, its file and what bmvault last wrote in it.
struct NotesFolderState: Equatable {
    struct Hashes: Equatable {
        /// SHA-256 (hex) of the managed region as written, markers included.
        var region: String
        /// SHA-256 (hex) of the managed properties' values (``BookNoteRenderer/canonical(_:)``).
        var properties: String
    }

    struct Note: Equatable {
        /// Relative to the folder, `/` between components.
        var file: String
        /// Names the note had before (a rename the reader made in their notes app, followed).
        var oldFiles: [String]
        /// The journal's fingerprint of the book when the note was last made.
        var journal: String
        var written: Hashes
        /// What the note held before this export, while the export is being committed: a
        /// note found in either state is not an edit (an export killed between writing the
        /// notes and the state file's final version).
        var previous: Hashes?
        /// Size and modification time (ms) as last written or seen: a file that has both is
        /// not read again when its book did not change.
        var size: Int64
        var modified: Int64
    }

    var generator: String
    var context: String
    var notes: [EntityID: Note]

    static func empty(generator: String) -> NotesFolderState {
        NotesFolderState(generator: generator, context: NotesFolderFormat.context, notes: [:])
    }

    // MARK: - Text

    /// The state as written: keys sorted, books by id, two-space indentation.
    func jsonText() -> String {
        func string(_ text: String) -> String { JSONText.string(text) }
        func hashes(_ hashes: Hashes, indent: String) -> String {
            "{\n\(indent)  \"properties\" : \(string(hashes.properties)),\n"
                + "\(indent)  \"region\" : \(string(hashes.region))\n\(indent)}"
        }
        var text = "{\n  \"context\" : \(string(context)),\n  \"format\" : \(NotesFolderFormat.currentVersion),\n"
        text += "  \"generator\" : \(string(generator)),\n  \"notes\" : {"
        for (index, id) in notes.keys.sorted().enumerated() {
            let note = notes[id]!
            text += (index == 0 ? "\n" : ",\n") + "    \(string(id.rawValue)) : {\n"
            text += "      \"file\" : \(string(note.file)),\n"
            text += "      \"journal\" : \(string(note.journal)),\n"
            text += "      \"modified\" : \(note.modified),\n"
            text += "      \"oldFiles\" : [" + note.oldFiles.map(string).joined(separator: ", ") + "],\n"
            if let previous = note.previous { text += "      \"previous\" : \(hashes(previous, indent: "      ")),\n" }
            text += "      \"size\" : \(note.size),\n"
            text += "      \"written\" : \(hashes(note.written, indent: "      "))\n    }"
        }
        text += notes.isEmpty ? "}\n}\n" : "\n  }\n}\n"
        return text
    }

    /// Reads a state file of any version this build reads; a newer one is refused naming
    /// both versions, before anything else in it is trusted. Read as it streams
    /// (``JSONStreamReader``, strict JSON), never through a symbolic link.
    static func read(path: String) throws(NotesFolderError) -> NotesFolderState {
        do {
            let reader = try JSONStreamReader(path: path, displayName: NotesFolderFormat.stateFile)
            var format: Int?
            var generator = "", context = ""
            var notes: [EntityID: Note] = [:]
            try reader.beginObject()
            while let key = try reader.nextKey() {
                switch key {
                case "format":
                    guard let value = try reader.readValue().integerValue else { throw NotesFolderError.malformedState(reason: "no format version") }
                    guard value <= NotesFolderFormat.currentVersion else {
                        throw NotesFolderError.newerState(found: Int(value), supported: NotesFolderFormat.currentVersion)
                    }
                    guard value >= 1 else { throw NotesFolderError.malformedState(reason: "an unknown format version") }
                    format = Int(value)
                case "generator": generator = try reader.readValue().stringValue ?? ""
                case "context": context = try reader.readValue().stringValue ?? ""
                case "notes":
                    // The format comes first in a state file bmvault writes (keys sorted:
                    // "context", "format"): a newer one is refused before its notes are read.
                    guard format != nil else { throw NotesFolderError.malformedState(reason: "no format version") }
                    try reader.beginObject()
                    while let id = try reader.nextKey() {
                        guard let book = try? EntityID(validating: id), let note = note(try reader.readValue()) else {
                            throw NotesFolderError.malformedState(reason: "a note's entry is not one bmvault writes")
                        }
                        notes[book] = note
                    }
                default:
                    try reader.skipValue()
                }
            }
            try reader.finish()
            guard format != nil else { throw NotesFolderError.malformedState(reason: "no format version") }
            return NotesFolderState(generator: generator, context: context, notes: notes)
        } catch let error as NotesFolderError {
            throw error
        } catch let error as ArchiveError {
            if case .io(let operation, _, let code) = error { throw .io(operation: operation, path: "the state file", errno: code) }
            throw .malformedState(reason: "not JSON as bmvault writes it")
        } catch {
            throw .malformedState(reason: "not JSON as bmvault writes it")
        }
    }

    private static func note(_ value: JSONValue) -> Note? {
        guard let file = value["file"]?.stringValue, isSafeRelativePath(file), let journal = value["journal"]?.stringValue,
              let written = hashes(value["written"]), let size = value["size"]?.integerValue,
              let modified = value["modified"]?.integerValue else { return nil }
        var oldFiles: [String] = []
        if case .array(let items)? = value["oldFiles"] { oldFiles = items.compactMap(\.stringValue) }
        return Note(file: file, oldFiles: oldFiles, journal: journal, written: written, previous: hashes(value["previous"]),
                    size: size, modified: modified)
    }

    private static func hashes(_ value: JSONValue?) -> Hashes? {
        guard let region = value?["region"]?.stringValue, let properties = value?["properties"]?.stringValue else { return nil }
        return Hashes(region: region, properties: properties)
    }

    /// A path inside the folder: relative, components neither empty, `.` nor `..`, ending in `.md`.
    static func isSafeRelativePath(_ path: String) -> Bool {
        guard !path.hasPrefix("/"), path.hasSuffix(".md"), !path.utf8.contains(0) else { return false }
        return path.split(separator: "/", omittingEmptySubsequences: false).allSatisfy { !$0.isEmpty && $0 != "." && $0 != ".." }
    }
}
