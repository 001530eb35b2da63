internal import FileIO
public import Journal
import VaultCrypto

/// What a note the export did not write is, and why.
public struct NotesFolderProblem: Sendable, Equatable {
    public enum Reason: Sendable, Equatable {
        /// The reader changed text in the managed region (or a managed property, or removed
        /// a marker) since bmvault last wrote it.
        case edited
        /// A symbolic link, a folder or something else that is not a regular file stands
        /// where the note was: never followed, never replaced.
        case notAFile
        /// The note changed while the export ran (a notes app saved it): left for the next export.
        case changedDuringExport
    }

    /// The note's file, relative to the folder.
    public let file: String
    public let book: EntityID
    public let reason: Reason
    /// `--show-edits`: a unified diff from the note as it is to the note bmvault would write.
    public let diff: String?
}

/// What `export --markdown-folder` did.
public struct NotesFolderSummary: Sendable, Equatable {
    public let path: String
    /// Notes written for the first time, written again, and left as they were.
    public let created: Int
    public let updated: Int
    public let unchanged: Int
    /// Notes of books no longer in the journal: removed (the file held nothing but
    /// bmvault's parts), or given back to the reader without bmvault's parts.
    public let removed: Int
    public let released: Int
    /// Notes the reader renamed or moved in the folder, found again by their `bmvault-id`.
    public let followed: Int
    /// Notes left as they were because of the reader (``NotesFolderProblem``).
    public let problems: [NotesFolderProblem]
    /// Files a killed export left beside the notes, removed.
    public let removedLeftovers: Int
}

/// Options of an export into a notes folder.
public struct NotesFolderOptions: Sendable {
    /// Write notes whose managed parts the reader edited (their text outside stays).
    public var overwriteEdited = false
    /// Attach a diff to each edited note reported.
    public var showEdits = false
    /// Write into a folder that is not empty and holds no state file.
    public var intoExisting = false

    public init(overwriteEdited: Bool = false, showEdits: Bool = false, intoExisting: Bool = false) {
        self.overwriteEdited = overwriteEdited
        self.showEdits = showEdits
        self.intoExisting = intoExisting
    }
}

/// An export into a notes folder, updated in place (Docs/NOTES-FOLDER.md). The caller (VaultKit)
/// hands over every live book's fingerprint (``survey(_:fingerprint:)``, which says whether
/// the book's records are needed) and, for those, its records (``update(_:fingerprint:)``);
/// then ``commit()`` writes: every changed note is written beside its final name, the file
/// system is synced once, the state file is written with both the old and the new hashes,
/// the notes are renamed into place, and the state file is written again. So a note is
/// always whole, and an export killed at any point leaves notes the next one recognises.
///
/// Safe by construction: nothing is written through a symbolic link (notes are read with
/// `O_NOFOLLOW`, written as new files and renamed; folders on the way are checked), a file
/// bmvault did not write (one not in the state file) is never replaced, and a note the reader
/// changed inside bmvault's parts is reported and left, unless `overwriteEdited`.
///
/// The notes are made on a second thread (``BackgroundWriter``: render, splice, write beside),
/// while the exporting thread decrypts the next book's records. `@unchecked Sendable`: the
/// export is used by one thread at a time: the caller's for ``survey(_:fingerprint:)`` and
/// ``reserveNames(_:)`` (all of them before the first ``update(_:fingerprint:)``), then the
/// writer thread for every update, then the caller's again in ``commit()``, which first
/// waits for the writer thread to finish.
public final class NotesFolderExport: @unchecked Sendable {
    public let directory: String
    private let options: NotesFolderOptions
    private let descriptor: FileDescriptor
    private var state: NotesFolderState
    private let contextChanged: Bool
    private let generator: String

    /// A note as it stands in the folder, read when needed.
    private struct Found {
        var relativePath: String
        /// nil: no file there.
        var status: FileStatus?
        var bytes: [UInt8]?
        var edited = false
        var notAFile = false
    }

    private var found: [EntityID: Found] = [:]
    /// Notes to put in place at commit.
    private struct Staged {
        let book: EntityID
        let temporary: String
        let relativePath: String
        /// The file's status when it was read (nil for a new note): it must still be so.
        let expected: FileStatus?
        let note: NotesFolderState.Note
        let isNew: Bool
        /// The state's entry before this export: restored if the note cannot be put in place.
        let before: NotesFolderState.Note?
    }

    private var staged: [Staged] = []
    /// Notes to remove at commit (a deleted book's note that holds nothing of the reader's).
    private var removals: [(book: EntityID, relativePath: String, expected: FileStatus)] = []
    private var live = Set<EntityID>()
    private var problems: [NotesFolderProblem] = []
    private var unchanged = 0, released = 0, followed = 0
    private var removedLeftovers = 0
    /// Names taken in the folder, by ``NoteFileName/clashKey(_:)``: every note of the state,
    /// and every file found in the folder.
    private var taken = Set<String>()
    private var scannedForIDs: [EntityID: String]?

    /// Opens (or creates, 0700, with missing parents) `directory`, takes its lock, removes
    /// what a killed export left, and reads its state file. A folder with files but without
    /// a state file is refused unless `intoExisting`.
    public init(directory: String, options: NotesFolderOptions, generator: String) throws(NotesFolderError) {
        var directory = directory
        while directory.count > 1 && directory.hasSuffix("/") { directory.removeLast() }
        self.directory = directory
        self.options = options
        self.generator = generator
        if !FileSystem.exists(directory, followingLinks: false) {
            do { try FileSystem.makeDirectories(directory, permissions: 0o700) } catch { throw .io(error, path: "the folder") }
        }
        // The folder itself is the reader's to name: a symbolic link to a folder is taken as
        // they gave it. Nothing inside it is followed.
        guard (try? FileSystem.status(directory))?.kind == .directory else { throw .notADirectory }
        do {
            descriptor = try FileDescriptor.open(directory, .readOnly, options: .directory)
        } catch {
            throw .io(error, path: "the folder")
        }
        let locked: Bool
        do { locked = try descriptor.lockExclusively(waiting: false) } catch {
            try? descriptor.close()
            throw .io(error, path: "the folder")
        }
        guard locked else {
            try? descriptor.close()
            throw .busy
        }
        let names: [String]
        do { names = try FileSystem.entries(of: directory) } catch {
            try? descriptor.close()
            throw .io(error, path: "the folder")
        }
        for name in names where name.hasPrefix(NotesFolderFormat.temporaryPrefix) {
            if (try? FileSystem.unlink(directory + "/" + name)) != nil { removedLeftovers += 1 }
        }
        let statePath = directory + "/" + NotesFolderFormat.stateFile
        let stateStatus = try? FileSystem.status(statePath, followingLinks: false)
        if let stateStatus {
            guard stateStatus.kind == .regular else {
                try? descriptor.close()
                throw .notAFile(what: "the state file")
            }
            do { state = try NotesFolderState.read(path: statePath) } catch {
                try? descriptor.close()
                throw error
            }
            writtenState = state
        } else {
            let others = names.filter { !$0.hasPrefix(NotesFolderFormat.temporaryPrefix) }
            guard others.isEmpty || options.intoExisting else {
                try? descriptor.close()
                throw .notEmpty
            }
            state = .empty(generator: generator)
        }
        contextChanged = state.context != NotesFolderFormat.context
        // What a killed export left beside notes in subfolders.
        for folder in Set(state.notes.values.compactMap { note in note.file.lastIndex(of: "/").map { String(note.file[..<$0]) } }) {
            guard parentsAreFolders(folder + "/x.md") else { continue }
            for name in (try? FileSystem.entries(of: directory + "/" + folder)) ?? [] where name.hasPrefix(NotesFolderFormat.temporaryPrefix) {
                if (try? FileSystem.unlink(directory + "/" + folder + "/" + name)) != nil { removedLeftovers += 1 }
            }
        }
        for name in names { taken.insert(NoteFileName.clashKey(name)) }
        for note in state.notes.values { taken.insert(NoteFileName.clashKey(note.file)) }
    }

    deinit {
        background.drain()
        for note in staged { try? FileSystem.unlink(path(note.temporary)) }
        try? descriptor.close()
    }

    private func path(_ relativePath: String) -> String { directory + "/" + relativePath }

    // MARK: - Surveying

    /// Looks at the note of live book `id`, whose journal fingerprint is `fingerprint`, and
    /// says whether its records are needed (``update(_:fingerprint:)``): they are for a book
    /// without a note yet, one that changed, a note that is gone, and (with
    /// `overwriteEdited` or `showEdits`) a note the reader edited. Otherwise the note is left
    /// as it is.
    public func survey(_ id: EntityID, fingerprint: String) -> Bool {
        live.insert(id)
        guard let note = state.notes[id] else { return true }
        var current = look(at: note.file)
        if current.status == nil, !current.notAFile, let moved = findMoved(id) {
            current = look(at: moved)
        }
        if current.status != nil, !current.notAFile,
           current.status?.size != note.size || current.status?.modifiedMilliseconds != note.modified || current.relativePath != note.file {
            read(&current, note: note)
        }
        found[id] = current
        if current.notAFile {
            problems.append(NotesFolderProblem(file: current.relativePath, book: id, reason: .notAFile, diff: nil))
            return false
        }
        if current.status == nil { return true }
        if current.edited {
            if options.overwriteEdited || options.showEdits { return true }
            problems.append(NotesFolderProblem(file: current.relativePath, book: id, reason: .edited, diff: nil))
            return false
        }
        if note.journal != fingerprint || contextChanged { return true }
        if current.relativePath != note.file {
            // Renamed or moved by the reader: followed.
            var kept = note
            kept.oldFiles.append(note.file)
            kept.file = current.relativePath
            kept.size = current.status?.size ?? note.size
            kept.modified = current.status?.modifiedMilliseconds ?? note.modified
            state.notes[id] = kept
            followed += 1
        } else if let status = current.status, status.size != note.size || status.modifiedMilliseconds != note.modified {
            // Changed outside bmvault's parts: remembered if the state file is written anyway,
            // so the note is not read again next time; the state file is not written for it alone.
            refreshedStatus[id] = status
        }
        unchanged += 1
        return false
    }

    /// What is at `relativePath`, without following a link (on the way there too).
    private func look(at relativePath: String) -> Found {
        var result = Found(relativePath: relativePath)
        var components = relativePath.split(separator: "/").map(String.init)
        components.removeLast()
        var prefix = directory
        for component in components {
            prefix += "/" + component
            // A folder on the way that is gone: so is the note. One that is a link or a file:
            // nothing behind it is looked at.
            let status: FileStatus
            do { status = try FileSystem.status(prefix, followingLinks: false) } catch {
                // Gone: so is the note. Not to be looked at (permission): left alone, reported.
                if error.errno != .notFound { result.notAFile = true }
                return result
            }
            guard status.kind == .directory else {
                result.notAFile = true
                return result
            }
        }
        let status: FileStatus
        do { status = try FileSystem.status(path(relativePath), followingLinks: false) } catch {
            if error.errno != .notFound { result.notAFile = true }
            return result
        }
        result.status = status
        if status.kind != .regular { result.notAFile = true }
        return result
    }

    /// Reads the note and tells whether the reader edited bmvault's parts of it.
    private func read(_ current: inout Found, note: NotesFolderState.Note) {
        guard current.bytes == nil else { return }
        do {
            current.bytes = try FileSystem.readRegularFile(at: path(current.relativePath), limit: NotesFolderFormat.noteLimit)
        } catch {
            current.notAFile = true
            return
        }
        let document = NoteDocument(current.bytes!)
        let accepted = [note.written] + (note.previous.map { [$0] } ?? [])
        let region = document.regionBytes.map { Self.hash($0) }
        let properties = Self.hash(document.canonicalProperties()[...])
        current.edited = !(document.regionIntact && accepted.contains { $0.region == region } && accepted.contains { $0.properties == properties })
    }

    /// Whether every folder on the way to `relativePath` is a folder (not a link to one).
    private func parentsAreFolders(_ relativePath: String) -> Bool {
        var components = relativePath.split(separator: "/").map(String.init)
        components.removeLast()
        var prefix = directory
        for component in components {
            prefix += "/" + component
            guard (try? FileSystem.status(prefix, followingLinks: false))?.kind == .directory else { return false }
        }
        return true
    }

    /// A note the reader renamed or moved (in their notes app): the `.md` file in the folder
    /// (hidden folders and links left out) whose front matter has `bmvault-id: <id>`. The
    /// folder is read once, the first time a note is missing.
    private func findMoved(_ id: EntityID) -> String? {
        if scannedForIDs == nil {
            var byID: [EntityID: String] = [:]
            let known = Set(state.notes.values.map(\.file))
            scan("", depth: 0) { relativePath in
                guard !known.contains(relativePath), let bytes = Self.start(of: path(relativePath)) else { return }
                let document = NoteDocument(bytes)
                if let items = document.managedValues()["bmvault-id"], let text = items?.first,
                   let found = try? EntityID(validating: text), byID[found] == nil {
                    byID[found] = relativePath
                }
            }
            scannedForIDs = byID
        }
        return scannedForIDs?[id]
    }

    /// The first 64 KiB of a regular file (never through a link), where its front matter is:
    /// the reader's own notes may be many and long, and only that part is looked at.
    private static func start(of path: String) -> [UInt8]? {
        guard let file = try? FileDescriptor.open(path, .readOnly, options: [.noFollow]) else { return nil }
        defer { try? file.close() }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while bytes.count < 1 << 16 {
            guard let count = try? file.read(into: &chunk), count > 0 else { break }
            bytes += chunk[0..<min(count, (1 << 16) - bytes.count)]
        }
        return bytes
    }

    private func scan(_ relative: String, depth: Int, _ body: (String) -> Void) {
        guard depth <= 8, let names = try? FileSystem.entries(of: relative.isEmpty ? directory : path(relative)) else { return }
        for name in names.sorted() where !name.hasPrefix(".") {
            let child = relative.isEmpty ? name : relative + "/" + name
            guard let status = try? FileSystem.status(path(child), followingLinks: false) else { continue }
            if status.kind == .directory { scan(child, depth: depth + 1, body) }
            else if status.kind == .regular, name.hasSuffix(".md") { body(child) }
        }
    }

    // MARK: - Writing

    /// Names for the new notes of `books` (id and title, oldest first), given in that order
    /// before any is written, so that of two books with one title the older gets the plain
    /// name whatever order their notes are made in.
    public func reserveNames(_ books: [(id: EntityID, title: String)]) {
        for book in books where state.notes[book.id] == nil && reservedNames[book.id] == nil {
            let name = NoteFileName.name(for: book.title) { taken.contains(NoteFileName.clashKey($0)) }
            taken.insert(NoteFileName.clashKey(name))
            reservedNames[book.id] = name
        }
    }

    private var reservedNames: [EntityID: String] = [:]

    private let background = BackgroundWriter()
    /// The first failure of an update on the writer thread, thrown by ``commit()``.
    private var failure: NotesFolderError?

    /// Makes the note of a book ``survey(_:fingerprint:)`` asked for, and stages it to be
    /// written if its bytes differ from the file's: on the writer thread, after the books
    /// handed over before it (at most 16 wait, so memory does not grow with the journal).
    /// A failure is thrown by ``commit()``; the books after it are not made.
    public func update(_ source: BookNoteSource, fingerprint: String) {
        background.submit { [self] in
            guard failure == nil else { return }
            do throws(NotesFolderError) { try make(source, fingerprint: fingerprint) } catch { failure = error }
        }
    }

    private func make(_ source: BookNoteSource, fingerprint: String) throws(NotesFolderError) {
        let id = source.book.id
        live.insert(id)
        let content = BookNoteRenderer.render(source)
        let previous = state.notes[id]
        var current = found[id] ?? Found(relativePath: previous?.file ?? "")
        if let previous, current.status != nil, !current.notAFile { read(&current, note: previous) }
        if current.notAFile {
            problems.append(NotesFolderProblem(file: current.relativePath, book: id, reason: .notAFile, diff: nil))
            return
        }
        let newBytes: [UInt8]
        var relativePath = current.relativePath
        var oldFiles = previous?.oldFiles ?? []
        if let previous, let existing = current.bytes {
            newBytes = NoteDocument(existing).splice(properties: content.properties, region: content.region)
            if current.edited && !options.overwriteEdited {
                let diff = options.showEdits
                    ? LineDiff.unified(old: String(decoding: existing, as: UTF8.self), new: String(decoding: newBytes, as: UTF8.self),
                                       oldName: "\(relativePath) (in the folder)", newName: "\(relativePath) (from bmvault)")
                    : nil
                problems.append(NotesFolderProblem(file: relativePath, book: id, reason: .edited, diff: diff))
                return
            }
            if relativePath != previous.file {
                oldFiles.append(previous.file)
                followed += 1
            }
        } else {
            if let reserved = reservedNames[id] {
                relativePath = reserved
            } else if previous == nil || !parentsAreFolders(relativePath) || relativePath.isEmpty {
                // A new note, or one whose folder is gone: a name no file has.
                relativePath = NoteFileName.name(for: source.book.title) { taken.contains(NoteFileName.clashKey($0)) }
                if let previous { oldFiles.append(previous.file) }
            }
            taken.insert(NoteFileName.clashKey(relativePath))
            newBytes = NoteDocument.new(properties: content.properties, region: content.region)
        }
        let hashes = NotesFolderState.Hashes(region: Self.hash(content.region[...]),
                                             properties: Self.hash(BookNoteRenderer.canonical(content.properties)[...]))
        if let existing = current.bytes, existing == newBytes, let status = current.status {
            // Nothing to write: the file keeps its modification time.
            state.notes[id] = NotesFolderState.Note(file: relativePath, oldFiles: oldFiles, journal: fingerprint, written: hashes,
                                                    previous: nil, size: status.size, modified: status.modifiedMilliseconds)
            unchanged += 1
            return
        }
        let temporary = try writeTemporary(newBytes, beside: relativePath, permissions: current.status.map { $0.permissions & 0o777 })
        staged.append(Staged(book: id, temporary: temporary, relativePath: relativePath, expected: current.status,
                             note: NotesFolderState.Note(file: relativePath, oldFiles: oldFiles, journal: fingerprint, written: hashes,
                                                         previous: previous.flatMap { _ in self.currentHashes(current) }, size: 0, modified: 0),
                             isNew: current.status == nil, before: previous))
    }

    /// The hashes of the note as it is now, for `previous` while the export commits.
    private func currentHashes(_ current: Found) -> NotesFolderState.Hashes? {
        guard let bytes = current.bytes else { return nil }
        let document = NoteDocument(bytes)
        return NotesFolderState.Hashes(region: document.regionBytes.map { Self.hash($0) } ?? "",
                                       properties: Self.hash(document.canonicalProperties()[...]))
    }

    private func writeTemporary(_ bytes: [UInt8], beside relativePath: String, permissions: UInt32?) throws(NotesFolderError) -> String {
        let folder = relativePath.contains("/") ? String(relativePath[..<relativePath.lastIndex(of: "/")!]) + "/" : ""
        let suffix: String
        do { suffix = encodeHex(try randomBytes(count: 8)) } catch { throw .io(operation: "random", path: "a note in the folder", errno: 5) }
        let temporary = folder + NotesFolderFormat.temporaryPrefix + suffix + ".md"
        do throws(FileIOError) {
            let file = try FileDescriptor.create(path(temporary), permissions: 0o600)
            do throws(FileIOError) {
                if let permissions, permissions != 0o600 { try file.setPermissions(permissions) }
                try file.writeAll(bytes)
            } catch {
                try? file.close()
                throw error
            }
            // A failed close can be the first report of bytes that did not reach the disk.
            try file.close()
        } catch {
            try? FileSystem.unlink(path(temporary))
            throw .io(error, path: "a note in the folder")
        }
        return temporary
    }

    // MARK: - Committing

    /// Deals with the notes of books no longer in the journal, then puts every staged note
    /// in place and writes the state file.
    public func commit() throws(NotesFolderError) -> NotesFolderSummary {
        background.drain()
        if let failure { throw failure }
        for (id, note) in state.notes where !live.contains(id) { try release(id, note) }
        // Every note on disk before any is renamed into place, and the state file knows both
        // versions before they are.
        if !staged.isEmpty {
            do { try descriptor.syncFileSystem() } catch { throw .io(error, path: "the folder") }
        }
        for note in staged { state.notes[note.book] = note.note }
        try writeState()
        var created = 0, updated = 0, removed = 0
        for note in staged {
            let target = path(note.relativePath)
            let now = try? FileSystem.status(target, followingLinks: false)
            let unchangedSinceRead = note.expected.map { expected in
                now.map { $0.kind == .regular && $0.size == expected.size && $0.modifiedMilliseconds == expected.modifiedMilliseconds } ?? false
            } ?? (now == nil)
            var placed = unchangedSinceRead && parentsAreFolders(note.relativePath)
            if placed {
                do {
                    if note.isNew {
                        try Self.renameWithoutReplacing(path(note.temporary), to: target)
                    } else {
                        try FileSystem.rename(path(note.temporary), to: target)
                    }
                } catch where error.errno == .exists {
                    placed = false
                } catch {
                    try? FileSystem.unlink(path(note.temporary))
                    throw .io(error, path: "a note in the folder")
                }
            }
            guard placed else {
                try? FileSystem.unlink(path(note.temporary))
                problems.append(NotesFolderProblem(file: note.relativePath, book: note.book, reason: .changedDuringExport, diff: nil))
                // Recorded as it was before this export (so the next one makes it again); a new
                // note's name, which a file the reader made there meanwhile has, is not bmvault's.
                state.notes[note.book] = note.isNew ? nil : note.before
                releasedBooks.remove(note.book)
                continue
            }
            if let status = try? FileSystem.status(target, followingLinks: false) {
                state.notes[note.book]?.size = status.size
                state.notes[note.book]?.modified = status.modifiedMilliseconds
            }
            state.notes[note.book]?.previous = nil
            if note.isNew { created += 1 } else if !releasedBooks.contains(note.book) { updated += 1 }
        }
        staged = []
        for id in releasedBooks { state.notes[id] = nil }
        for removal in removals {
            let now = try? FileSystem.status(path(removal.relativePath), followingLinks: false)
            guard let now, now.kind == .regular, now.size == removal.expected.size,
                  now.modifiedMilliseconds == removal.expected.modifiedMilliseconds else { continue }
            if (try? FileSystem.unlink(path(removal.relativePath))) != nil { removed += 1 }
            state.notes[removal.book] = nil
        }
        for (id, note) in state.notes where note.previous != nil { state.notes[id]?.previous = nil }
        state.generator = generator
        state.context = NotesFolderFormat.context
        if state != writtenState {
            for (id, status) in refreshedStatus where state.notes[id] != nil {
                state.notes[id]?.size = status.size
                state.notes[id]?.modified = status.modifiedMilliseconds
            }
        }
        try writeState()
        do { try FileSystem.syncDirectory(directory) } catch { throw .io(error, path: "the folder") }
        return NotesFolderSummary(path: directory, created: created, updated: updated, unchanged: unchanged, removed: removed,
                                  released: released, followed: followed, problems: problems, removedLeftovers: removedLeftovers)
    }

    /// The note of a book no longer in the journal (deleted, or moved to the trash): removed if
    /// it holds nothing but what bmvault wrote; otherwise bmvault's parts are taken out and the
    /// rest left to the reader (unless they edited bmvault's parts: then it is reported).
    private func release(_ id: EntityID, _ note: NotesFolderState.Note) throws(NotesFolderError) {
        var current = look(at: note.file)
        if current.status == nil, !current.notAFile, let moved = findMoved(id) { current = look(at: moved) }
        guard current.status != nil else {
            state.notes[id] = nil
            return
        }
        if current.notAFile {
            state.notes[id] = nil
            return
        }
        read(&current, note: note)
        guard let bytes = current.bytes, let status = current.status else { return }
        if current.edited && !options.overwriteEdited {
            problems.append(NotesFolderProblem(file: current.relativePath, book: id, reason: .edited, diff: nil))
            return
        }
        let kept = NoteDocument(bytes).splice(properties: [], region: nil)
        if kept.allSatisfy({ $0 == 0x0A || $0 == 0x0D || $0 == 0x20 || $0 == 0x09 }) {
            removals.append((id, current.relativePath, status))
            return
        }
        let temporary = try writeTemporary(kept, beside: current.relativePath, permissions: status.permissions & 0o777)
        staged.append(Staged(book: id, temporary: temporary, relativePath: current.relativePath, expected: status,
                             note: note, isNew: false, before: note))
        released += 1
        // The state forgets it once it is written (below, in commit).
        releasedBooks.insert(id)
    }

    private var releasedBooks = Set<EntityID>()
    /// Notes found changed outside bmvault's parts, with their size and time now.
    private var refreshedStatus: [EntityID: FileStatus] = [:]
    /// The state as the state file has it: one with nothing new is not written again.
    private var writtenState: NotesFolderState?

    private func writeState() throws(NotesFolderError) {
        guard state != writtenState else { return }
        let text = state.jsonText()
        let suffix: String
        do { suffix = encodeHex(try randomBytes(count: 8)) } catch { throw .io(operation: "random", path: "the state file", errno: 5) }
        let temporary = path(NotesFolderFormat.temporaryPrefix + suffix + ".json")
        do throws(FileIOError) {
            let file = try FileDescriptor.create(temporary, permissions: 0o600)
            do throws(FileIOError) {
                try file.writeAll(text)
                try file.sync()
            } catch {
                try? file.close()
                throw error
            }
            try file.close()
            try FileSystem.rename(temporary, to: path(NotesFolderFormat.stateFile))
        } catch {
            try? FileSystem.unlink(temporary)
            throw .io(error, path: "the state file")
        }
        writtenState = state
    }

    /// Gives `source` the name `destination` only if nothing has it (a file the reader made
    /// there meanwhile is never replaced); on a file system without `RENAME_NOREPLACE`, looks first.
    private static func renameWithoutReplacing(_ source: String, to destination: String) throws(FileIOError) {
        do {
            try FileSystem.renameWithoutReplacing(source, to: destination)
        } catch where error.errno == .invalidArgument {
            guard !FileSystem.exists(destination, followingLinks: false) else { throw FileIOError(.rename, .exists) }
            try FileSystem.rename(source, to: destination)
        }
    }

    static func hash(_ bytes: ArraySlice<UInt8>) -> String {
        var hasher = SHA256()
        bytes.withUnsafeBytes { hasher.update($0) }
        return hasher.finalizeHex()
    }
}
